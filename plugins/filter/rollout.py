# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The rollout playbook's summary filter: a thin shell over module_utils/verify/rollout (documented in the
sidecar YAML file of its name)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_dict, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

rollout = module_utils("verify.rollout")


def rollout_summary(hosts, results):
    """Batches, wall times and outcomes of a rollout from its hosts in order and {host: rollout_result}."""
    results = as_dict(results, "results", "rollout_summary")
    return call("rollout_summary", rollout.summary, [text(host) for host in as_list(hosts, "hosts", "rollout_summary")],
                dict((text(host), None if value is None else dict(value)) for host, value in results.items()))


class FilterModule(object):
    """blackwell.pytorch rollout filters."""

    def filters(self):
        return {"rollout_summary": rollout_summary}
