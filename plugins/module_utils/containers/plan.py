# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit role's preflight decision, from its probe's output and its settings.

One answer: the refusals (an unsupported OS, no driver, bad inputs, runtimes that are not there), the
runtimes to configure (runtimes.py), whether the pinned toolkit is in place, the packages still to hold,
the CDI spec's plan (cdi.py) and the report line. Also dpkg's name of the architecture, which the
repository's layout uses. No Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi import cdi_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi_compat import SPEC_DIRS, spec_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.inputs import input_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.probe import read_probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.runtimes import runtime_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.toolkit import (
    CDI_REFRESH_SPEC, CDI_REFRESH_UNITS, MANAGEMENT_ARGS, MANAGEMENT_SPEC_NAME, behaviour)

# uname -m -> dpkg's architecture (NVIDIA's repository: <base>/stable/deb/<arch>/).
DEB_ARCHES = {"x86_64": "amd64", "aarch64": "arm64"}


def deb_arch(machine: str) -> str:
    """dpkg's name of the architecture `machine` (empty: x86_64): amd64, arm64, else `machine` itself."""
    machine = str(machine or "") or "x86_64"
    return DEB_ARCHES.get(machine, machine)


def os_label(distribution: str, version: str) -> str:
    """The OS as container_toolkit_supported_os names it: Ubuntu with its full version, another with its major."""
    version = str(version)
    return "%s %s" % (distribution, version if distribution == "Ubuntu" else version.split(".", maxsplit=1)[0])


def os_problem(os_info: Mapping[str, Any], supported: Sequence[str]) -> str | None:
    """The refusal of an OS outside `supported` or not of the Debian family (NVIDIA's repository for apt), else None."""
    label = os_label(os_info.get("distribution", ""), os_info.get("version", ""))
    if os_info.get("family") == "Debian" and label in supported:
        return None
    return "%s is not supported by the container_toolkit role (container_toolkit_supported_os: %s)" % (
        label, ", ".join(supported))


def driver_problem(driver_version: str, driver_stage: bool, require_driver: bool, driver_root: str) -> str | None:
    """The refusal of a host where no driver is loaded and the driver stage did not run, unless no driver is
    required (an image build), else None."""
    if driver_version or driver_stage or not require_driver:
        return None
    return ("no NVIDIA driver is loaded (%s/version is absent) and the nvidia_driver role did not run in this play: "
            "run it first (site.yml stages driver and containers), or set container_toolkit_require_driver: false "
            "(or blackwell_require_gpu: false) for an image build" % driver_root)


def in_place(packages: Mapping[str, Mapping[str, Any]], names: Sequence[str], version: str) -> bool:
    """Every package of `names` installed at `version` (and no other read)."""
    pinned = [name for name, package in packages.items()
              if package.get("installed") and package.get("version") == version]
    return sorted(pinned) == sorted(names)


def preflight_plan(probe_text: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The preflight's answer: {ok, problems, state, driver, runtimes, in_place, ctk_usable, hold, toolkit, dry_run,
    cdi_spec_plan, cdi_args, management_spec, management_args, refresh_spec, refresh_units, check_dirs, cdi, msg}.

    settings: os (blackwell_preflight.os), supported_os, require_driver, driver_status (nvidia_driver_status, None
    when the driver stage did not run in this play; reboot_required a bool), runtimes (asked), packages, version,
    repo_url, key_url, key_content, fingerprints, proxy, spec, cdi_args, management (the management spec too; default
    false), driver_root, check_mode. problems: the OS's,
    the driver's, the inputs' (inputs.py), the runtimes'. ctk_usable: nvidia-ctk is there, or will be (not in a check
    run that would install it). hold: the packages not held yet. toolkit: toolkit.behaviour of the version. dry_run:
    per runtime configured, its file and the drop-in file the toolkit writes ("": none). cdi_spec_plan:
    cdi_compat.spec_plan over the engines chosen; cdi_args: the generate options (those asked, then those that
    keep the spec readable); management_args: the options of the management spec's generate. refresh_spec: the spec
    nvidia-cdi-refresh writes, to remove ("" when the toolkit has no such unit or it is the role's own spec);
    refresh_units: its units, to turn off. check_dirs: the CDI directories the check after generation lists
    (cdi_compat.cdi_check). cdi: cdi.cdi_plan, the driver installed in this play counting only while its reboot is
    pending.
    """
    state = read_probe(probe_text)
    version = settings["version"]
    status = settings["driver_status"]
    runtimes = runtime_plan(settings["runtimes"], state["runtimes"].keys(), state["active"])
    problems = [problem for problem in (
        os_problem(settings["os"], settings["supported_os"]),
        driver_problem(state["driver_version"] or "", status is not None, settings["require_driver"],
                       settings["driver_root"])) if problem]
    problems += input_problems(settings["repo_url"], settings["key_url"], settings["key_content"],
                               settings["fingerprints"], settings["proxy"], version, settings["spec"],
                               settings["driver_root"], state["driver_root_mode"])
    problems += runtimes["problems"]
    placed = in_place(state["packages"], settings["packages"], version)
    installed_driver = str((status or {}).get("version") or "") if (status or {}).get("reboot_required") else ""
    toolkit = behaviour(version)
    chosen = runtimes["configure"] + runtimes["cdi_only"]
    compat = spec_plan(toolkit, state["engines"], chosen)
    cdi_args = list(settings["cdi_args"]) + [arg for arg in compat["args"] if arg not in settings["cdi_args"]]
    management = bool(settings.get("management", False))
    spec_dir = settings["spec"].rsplit("/", 1)[0] or "/"
    dry_run = dict((name, {"config": path, "drop_in": toolkit["containerd_drop_in"] if name == "containerd" else ""})
                   for name, path in runtimes["paths"].items())
    cdi = cdi_plan(state["driver_version"] or "", state["gpus"], state["recorded"], state["spec_exists"], version,
                   cdi_args, settings["spec"], installed_driver, management, state["management_exists"])
    msg = "toolkit %s (%s); %s; CDI spec: %s (%s)" % (
        version, "in place" if placed else "to install", runtimes["msg"], cdi["action"], cdi["reason"]) + "".join(
        "; " + note for note in compat["notes"])
    return {"ok": not problems, "problems": problems, "state": state, "driver": state["driver_version"] or "",
            "runtimes": runtimes, "in_place": placed, "ctk_usable": placed or not settings["check_mode"],
            "hold": [name for name in settings["packages"] if not state["packages"].get(name, {}).get("held")],
            "toolkit": toolkit, "dry_run": dry_run, "cdi_spec_plan": compat, "cdi_args": cdi_args,
            "management_spec": "%s/%s" % (spec_dir.rstrip("/"), MANAGEMENT_SPEC_NAME),
            "management_args": list(MANAGEMENT_ARGS) + compat["args"],
            "refresh_spec": CDI_REFRESH_SPEC if toolkit["cdi_refresh"] and settings["spec"] != CDI_REFRESH_SPEC else "",
            "refresh_units": list(CDI_REFRESH_UNITS) if toolkit["cdi_refresh"] else [],
            "check_dirs": list(SPEC_DIRS) + ([spec_dir] if spec_dir not in SPEC_DIRS else []),
            "cdi": cdi, "msg": msg}
