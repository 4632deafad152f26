# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's filter: a thin shell over module_utils/stages/tools.py (documented in the sidecar YAML file of
its name)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

tools = module_utils("stages.tools")


def tools_state(venv, packages, use_existing=True, uv=False, preflight=None, python=None, base_python="",
                wheelhouse="", check_mode=False, check=None, built=None):
    """Whether the tools venv is wanted and has work, what the preflight probe reads of it, and NVML's interpreter."""
    name = "tools_state"
    return call(name, tools.decide, text(venv), [text(item) for item in as_list(packages, "packages", name)],
                as_bool(use_existing, "use_existing", name), as_bool(uv, "uv", name),
                as_dict(preflight, "preflight", name), as_dict(python, "python", name), text(base_python),
                text(wheelhouse), as_bool(check_mode, "check_mode", name),
                as_dict(check, "check", name) if check is not None else None,
                as_dict(built, "built", name) if built is not None else None)


class FilterModule(object):
    """blackwell.pytorch tools filters."""

    def filters(self):
        return {"tools_state": tools_state}
