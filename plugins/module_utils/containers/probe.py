# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the container_toolkit role's one probe on the target printed, read into a dict.

The probe (roles/container_toolkit/tasks/preflight.yml) prints one line per fact, fields
separated by tabs: `nvrm` (the first line of the driver's version file), `gpu` (a name under
the driver's gpus directory, a PCI bus id), `runtime` (an engine found, its program and the first line of its
`--version`), `active`
(a systemd service running), `package` (name, version, dpkg's Status-Abbrev), `spec` (the CDI
spec exists), `mspec` (the management spec exists), `fingerprint` (the recorded fingerprint file, base64) and
`root` (the driver directory's st_mode in
hex, as stat -L prints %f, when it is there: a file there is refused). No Ansible import.
"""
from __future__ import annotations

import base64
import binascii
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import parse_proc_version

# The engine's program as the probe finds it, and the runtime name the role uses for it.
PROGRAMS = {"dockerd": "docker", "docker": "docker", "containerd": "containerd", "podman": "podman"}


def read_probe(text: str) -> dict[str, Any]:
    """The probe's lines -> {driver_version, driver_flavor, gpus, runtimes, engines, active, packages, spec_exists,
    management_exists, recorded, driver_root_mode}.

    driver_version is None when no version file was read; packages maps a name to
    {version, installed, held} (dpkg's "ii"/"hi" are installed, a first "h" held); recorded is the
    fingerprint file's text ("" when there is none or it is not base64); driver_root_mode the driver directory's
    st_mode (None when it is not there); engines maps a runtime to its `--version` line ("" when none was read).
    """
    state = {"driver_version": None, "driver_flavor": "unknown", "gpus": [], "runtimes": {}, "engines": {}, "active": [],
             "packages": {}, "spec_exists": False, "management_exists": False, "recorded": "", "driver_root_mode": None}
    for line in (text or "").splitlines():
        fields = line.rstrip("\n").split("\t")
        kind, values = fields[0], fields[1:]
        if kind == "nvrm" and values:
            parsed = parse_proc_version(values[0])
            state["driver_version"], state["driver_flavor"] = parsed["version"], parsed["flavor"]
        elif kind == "gpu" and values and values[0]:
            state["gpus"].append(values[0])
        elif kind == "runtime" and values and values[0] in PROGRAMS:
            state["runtimes"].setdefault(PROGRAMS[values[0]], values[1] if len(values) > 1 else values[0])
            state["engines"].setdefault(PROGRAMS[values[0]], values[2].strip() if len(values) > 2 else "")
        elif kind == "active" and values and values[0] not in state["active"]:
            state["active"].append(values[0])
        elif kind == "package" and len(values) >= 3:
            status = values[2].strip()
            state["packages"][values[0]] = {"version": values[1], "installed": status[1:2] == "i",
                                            "held": status[:1] == "h"}
        elif kind == "root" and values:
            try:
                state["driver_root_mode"] = int(values[0], 16)
            except ValueError:
                state["driver_root_mode"] = None
        elif kind == "spec":
            state["spec_exists"] = True
        elif kind == "mspec":
            state["management_exists"] = True
        elif kind == "fingerprint" and values:
            try:
                state["recorded"] = base64.b64decode(values[0].encode("ascii"), validate=True).decode("utf-8")
            except (binascii.Error, ValueError, UnicodeError):
                state["recorded"] = ""
    state["gpus"] = sorted(set(state["gpus"]))
    state["active"] = sorted(state["active"])
    return state
