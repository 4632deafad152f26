# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The plan from an index as the pytorch_plan module makes it, for the index reader's tests."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import COMPANIONS
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.index_catalog import read_catalog, with_index

# what read_catalog takes; the rest is resolve_stack's
READ = ("python_tag", "platform", "fetch", "timeout", "offline_fallback", "proxy", "ca_path", "client_cert",
        "trusted_hosts")


def plan_from_index(index, **kwargs):
    """read_catalog, then resolve_stack on its catalog (with_index), as the pytorch_plan module plans from an index;
    a refusal (PlanError) as {"error": its message}, the message the module fails with."""
    read = dict((key, kwargs.pop(key)) for key in READ if key in kwargs)
    try:
        found = read_catalog(index, version=kwargs.get("version", ""), companions=kwargs.get("companions", COMPANIONS),
                             **read)
        return with_index(resolve_stack(catalog=found["catalog"], **kwargs), found)
    except PlanError as refused:
        return {"error": str(refused)}
