# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight probe's GPU facts and, when asked, the GPUs' health, read in one NVML session.

The health reading is the one gpu_health returns as `health` (gpus, nvml_error, hostname, kernel_log), with
what it was read under (the kernel log mode, the textfile directory and the driver version) and the current
text of the health textfile, so the verify role can judge it on the controller instead of calling gpu_health
again (module_utils/verify/probe_health_verdict.py decides whether it serves). No Ansible import.
"""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import (
    bus_only_facts, nvml_or_bus_facts, snapshot_facts)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import TEXTFILE, read_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import (
    nvml_error_text, nvml_session, read_snapshot)


def facts_and_health(on_bus: Sequence[Mapping[str, Any]], proc_text: str | None, module_loaded: bool, nvml: Any,
                     without_nvml: str,
                     health: bool) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
    """(nvidia_gpus, nvidia_driver, reading): the facts as nvml_or_bus_facts gives them and, when `health` and
    `nvml` (the pynvml module) is there, gpu_health's NVML reading ({"gpus", "nvml_error"}) taken in the same
    session. The reading is None when it was not asked, pynvml is absent, or NVML failed after it started (the
    verify role then calls gpu_health); NVML that does not start is reported as gpu_health reports it."""
    if nvml is None or not health:
        gpus, driver = nvml_or_bus_facts(on_bus, proc_text, module_loaded, nvml, without_nvml)
        return gpus, driver, None
    started = []

    def snapshot(session):
        started.append(True)
        return read_snapshot(session)

    def reading(session):
        try:
            return read_health(session)
        except session.NVMLError:
            return None
    try:
        facts, found = nvml_session(nvml, snapshot, reading)
    except nvml.NVMLError as err:
        gpus, driver = bus_only_facts(on_bus, proc_text, module_loaded, nvml_error_text(err))
        return gpus, driver, None if started else {"gpus": [], "nvml_error": nvml_error_text(err)}
    gpus, driver = snapshot_facts(facts, on_bus, proc_text, module_loaded)
    return gpus, driver, found


def textfile_text(textfile_dir: str) -> str | None:
    """The current text of the health textfile in `textfile_dir`; None when there is none (or no directory)."""
    return read_text(os.path.join(textfile_dir, TEXTFILE)) if textfile_dir else None


def published(reading: Mapping[str, Any] | None, request: Mapping[str, Any], driver: Mapping[str, Any],
              kernel_log: Mapping[str, Any], hostname: str, textfile: str | None) -> dict[str, Any]:
    """What blackwell_preflight.health holds: the `reading` (gpu_health's `health`, completed with `hostname` and
    the `kernel_log` reading), the `request` it answers ({kernel_log, textfile_dir}), the driver version it was
    read under and the textfile's current text (None: absent). None when nothing was read."""
    if reading is None:
        return None
    return {"kernel_log": request["kernel_log"], "textfile_dir": request["textfile_dir"] or "",
            "driver_version": driver.get("version"), "textfile": textfile,
            "reading": dict(reading, hostname=hostname, kernel_log=kernel_log)}


def probe(bus: tuple[list[dict[str, Any]], str | None, bool], nvml: Any, without_nvml: str,
          request: Mapping[str, Any] | None,
          read_log: Callable[[str], dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any], dict[str, Any] | None]:
    """(nvidia_gpus, nvidia_driver, health): `bus` is read_bus()'s (GPUs on the bus, procfs text, module loaded),
    `request` the health option ({kernel_log, textfile_dir}, None: not read), read_log(mode) the kernel log's
    reading (gpu_health.kernel_log); `health` is published()'s."""
    gpus, driver, reading = facts_and_health(bus[0], bus[1], bus[2], nvml, without_nvml, request is not None)
    if reading is None:
        return gpus, driver, None
    return gpus, driver, published(reading, request, driver, read_log(request["kernel_log"]), os.uname()[1],
                                   textfile_text(request["textfile_dir"]))
