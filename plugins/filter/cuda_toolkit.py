# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the cuda_toolkit role: thin shells over module_utils/driver (toolkit_plan, toolkit_call),
each documented in the file of its name beside this one (cuda_toolkit_plan.yml, ...). Driver
versions are compared with packaging (plugin_utils/versions.py)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, as_dicts, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils, plugin_utils

toolkit_call = module_utils("driver.toolkit_call")
toolkit_plan = module_utils("driver.toolkit_plan")
controller_versions = plugin_utils("versions")


def cuda_toolkit_plan(versions, default="", driver=None, driver_cuda=None, gpus=None, minor_compat=False,
                      manage="auto", installed=None, found=None, current=None, user=None):
    """Toolkits to install, adopt or check, their default, and every refusal, before any change."""
    name = "cuda_toolkit_plan"
    if not isinstance(installed, str):
        installed = [text(v) for v in as_list(installed, "installed", name)]
    if not isinstance(found, str):
        found = as_dict(found, "found", name)
    if not isinstance(versions, str):  # text: refused by the plan with a message naming the variable
        versions = [text(v) for v in as_list(versions, "versions", name)]
    return call(name, toolkit_plan.probe_plan, versions,
                text(default), text(driver) or None, text(driver_cuda) or None, as_dicts(gpus, "gpus", name),
                as_bool(minor_compat, "minor_compat", name), text(manage), installed, found, text(current) or None,
                controller_versions.parse, as_dict(user, "user", name))


def cuda_toolkit_driver(override, driver_status=None, loaded=None):
    """The driver the toolkits are planned against and its CUDA version: toolkit_call.driver_inputs, the rule the
    preflight probe applies too; known: anything names the driver (the override, the driver stage's status, the
    loaded driver's facts), else cuda_toolkit_state reads the loaded one itself."""
    name = "cuda_toolkit_driver"
    status = as_dict(driver_status, "driver_status", name) if driver_status is not None else None
    driver, driver_cuda = call(name, toolkit_call.driver_inputs, text(override), status,
                               as_dict(loaded, "loaded", name))
    known = bool(text(override)) or driver_status is not None or loaded is not None
    return {"driver": driver, "driver_cuda": driver_cuda, "known": known}


class FilterModule(object):
    """blackwell.pytorch CUDA toolkit filters."""

    def filters(self):
        return {"cuda_toolkit_plan": cuda_toolkit_plan, "cuda_toolkit_driver": cuda_toolkit_driver}
