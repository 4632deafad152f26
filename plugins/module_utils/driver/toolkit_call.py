# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The cuda_toolkit_state question as one function (its options: plugins/module_utils/stages/): the host read
(packages, alternatives, every nvcc), the plan and the state. The cuda_toolkit_state module and the preflight probe
(preflight_facts' `toolkit` option, which answers the toolkit stage of site.yml in its own call when the driver
stays as it is) both ask it here.

`run(argv)` runs a read-only command and returns (rc, stdout, stderr); `has_program(name)` says whether a program is
on the PATH. No Ansible import.
"""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.os_facts import current_user
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import FILE, path_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.value_inputs import text_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import toolkit_probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_plan import probe_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_state import (
    found_lines, refusal_message, toolkit_dirs, toolkit_state)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import read_bus
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import driver_facts


class ToolkitCallError(Exception):
    """The question cannot be answered (no package manager here, a probe command that failed)."""


# Examples of the role's file options (the `paths` option: {variable: path}) for the refusals.
FILE_EXAMPLES = {"cuda_toolkit_install_log": "/var/log/blackwell-pytorch/cuda-toolkit-install.log"}


def input_refusals(params, stat=os.stat):
    """The refusals of the inputs alone, before the host is read: a toolkit version YAML read as a number (12.10 is
    12.1: quote it), and a file option (`paths`) that is relative, a directory or below a file. [] when none."""
    versions = params["versions"] if isinstance(params["versions"], (list, tuple)) else []
    found = text_problems([("cuda_toolkit_versions", item, "12.8", True) for item in versions]
                          + [("cuda_toolkit_default_version", params.get("default_version"), "12.8")])
    return found + path_problems([(name, path, FILE, FILE_EXAMPLES.get(name, ""))
                                  for name, path in sorted((params.get("paths") or {}).items())], stat)


def driver_inputs(override, driver_status, loaded):
    """(driver, driver_cuda) the toolkits are planned against: the cuda_toolkit role's rule (its vars/main.yml reads
    it through the cuda_toolkit_driver filter) and the preflight probe's. override: cuda_toolkit_driver_version ('' when not set); driver_status: the
    driver stage's published status (None when that stage is not run); loaded: ansible_facts.nvidia_driver."""
    loaded = loaded or {}
    loaded_version = loaded.get("version") or "" if loaded.get("loaded") else ""
    if str(override or "").strip():
        driver = str(override).strip()
    elif driver_status and driver_status.get("version"):
        driver = str(driver_status["version"])
    else:
        driver = loaded_version
    same = bool(loaded.get("loaded")) and loaded.get("version") == driver
    return driver, (str(loaded.get("cuda_driver_version") or "") if same else "")


def host_gpus_and_driver(gpus, driver, sys_root, proc_version):
    """The GPUs and the driver version given, or, where omitted (a driver also where empty), the PCI bus's and the
    loaded driver's."""
    if gpus is not None and driver:
        return gpus, driver
    on_bus, proc_text, loaded = read_bus(sys_root, proc_version)
    if gpus is None:
        gpus = on_bus
    if not driver:
        driver = driver_facts(proc_text, module_loaded=loaded)["version"] or ""
    return gpus, driver


def answer(params, run, has_program, warn, root="", sys_root="/sys", proc_version="/proc/driver/nvidia/version"):
    """The state (toolkit_state's result, msg the refusal or the summary) for the validated options. The plan's
    warnings go to warn(text) unless confirming. Raises ToolkitCallError (host named) when nothing can be asked."""
    refusals = input_refusals(params)
    if refusals:
        raise ToolkitCallError(refusal_message(params["host"], [message.rstrip(".") for message in refusals]))
    asked = {}  # each nvcc answers each question once
    versions = params["versions"]
    if isinstance(versions, (list, tuple)):
        versions = [str(v) for v in versions]
    elif versions is None:
        versions = []
    family = params["os_family"] or toolkit_probe.os_family(has_program)
    if not family:
        raise ToolkitCallError("%s: neither dpkg-query nor rpm is here: the cuda_toolkit role supports Debian, "
                               "Ubuntu and RHEL-like systems" % params["host"])
    try:
        packages = toolkit_probe.read_packages(run, family)
        alternatives = toolkit_probe.read_alternatives(run, family, root)
        found, _answers = toolkit_probe.read_nvcc(run, [], root, asked)
    except RuntimeError as err:
        raise ToolkitCallError("%s: %s" % (params["host"], err))
    gpus, driver = host_gpus_and_driver(params["gpus"], params["driver"], sys_root, proc_version)
    plan = probe_plan(versions, str(params["default_version"] or ""), driver, params["driver_cuda"], gpus,
                      params["minor_version_compat"], params["manage"], packages, found_lines(found),
                      user=params["user"] or current_user())
    answers, real_default = {}, None
    if plan["ok"]:
        dirs = toolkit_dirs(plan)
        _found, answers = toolkit_probe.read_nvcc(run, sorted(set(dirs.values())), root, asked)
        real_default = toolkit_probe.real_dir(dirs[plan["default"]], root)
    state = toolkit_state(plan, answers, toolkit_probe.read_link(root), alternatives, toolkit_probe.read_profile(root),
                          gpus, params["profile"], params["profile_ld_library_path"], real_default,
                          params["confirm"])
    if not params["confirm"]:
        for warning in plan["warnings"]:
            warn("%s: %s" % (params["host"], warning))
    state["msg"] = refusal_message(params["host"], state["problems"]) if not state["ok"] else state["summary"]
    return state
