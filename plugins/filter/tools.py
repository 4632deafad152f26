# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's filter: a thin shell over module_utils/stages/tools.py (documented in the sidecar YAML file of
its name)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

tools = module_utils("stages.tools")


def tools_state(options):
    """Whether the tools venv is wanted and has work, what the preflight probe reads of it, and NVML's interpreter,
    from one dict: the role's options (without their blackwell_tools_ prefix) and what the host says of them."""
    name = "tools_state"
    found = as_dict(options, "options", name, allow_none=False)  # a key it does not know: tools.state() refuses it
    for key in ("venv", "base_python", "wheelhouse", "uv_package"):
        found[key] = text(found.get(key))
    found["pip_packages"] = [text(item) for item in as_list(found.get("pip_packages"), "pip_packages", name)]
    for key, default in (("use_existing", True), ("uv", False), ("check_mode", False)):
        found[key] = as_bool(found.get(key, default), key, name)
    for key in ("preflight", "python"):
        found[key] = as_dict(found.get(key), key, name)
    for key in ("check", "built"):  # None: the task did not run
        found[key] = None if found.get(key) is None else as_dict(found[key], key, name)
    return call(name, tools.state, found)


class FilterModule(object):
    """blackwell.pytorch tools filters."""

    def filters(self):
        return {"tools_state": tools_state}
