# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the PCI bus and procfs say about NVIDIA GPUs and the loaded driver, without NVML.

Works before any driver exists; gpu_facts adds NVML's view on top when it can.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import driver_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import (
    merge_with_sysfs, nvml_error_text, nvml_snapshot)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import sysfs_gpus

PROC_VERSION = "/proc/driver/nvidia/version"


def read_bus(sys_root: str = "/sys", proc_version: str = PROC_VERSION) -> tuple[list[dict[str, Any]], str | None, bool]:
    """(GPUs on the PCI bus, /proc/driver/nvidia/version text or None, nvidia module loaded)."""
    return (sysfs_gpus(sys_root), read_text(proc_version),
            os.path.isdir(os.path.join(sys_root, "module", "nvidia")))


def bus_only_facts(on_bus: Sequence[Mapping[str, Any]], proc_text: str | None, module_loaded: bool,
                   nvml_error: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(nvidia_gpus, nvidia_driver) facts from the bus and procfs alone; nvml_error says why."""
    gpus = [dict(gpu, nvml_visible=False) for gpu in on_bus]
    return gpus, driver_facts(proc_text, None, None, nvml_error, module_loaded)


def nvml_or_bus_facts(on_bus: Sequence[Mapping[str, Any]], proc_text: str | None, module_loaded: bool, nvml: Any,
                      without_nvml: str) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(nvidia_gpus, nvidia_driver) from NVML when `nvml` (the pynvml module, or None) answers, else
    from the bus and procfs with nvml_error saying why (`without_nvml` when pynvml is absent).
    Never warns or fails: a caller that needs NVML uses gpu_facts."""
    if nvml is None:
        return bus_only_facts(on_bus, proc_text, module_loaded, without_nvml)
    try:
        snapshot = nvml_snapshot(nvml)
    except nvml.NVMLError as err:
        return bus_only_facts(on_bus, proc_text, module_loaded, nvml_error_text(err))
    return snapshot_facts(snapshot, on_bus, proc_text, module_loaded)


def snapshot_facts(snapshot: Mapping[str, Any], on_bus: Sequence[Mapping[str, Any]], proc_text: str | None,
                   module_loaded: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """(nvidia_gpus, nvidia_driver) from an NVML snapshot (nvml_snapshot), with the GPUs only the bus shows."""
    gpus = merge_with_sysfs(snapshot["gpus"], on_bus)
    return gpus, driver_facts(proc_text, snapshot["driver_version"], snapshot["cuda_driver_version"], None,
                              module_loaded)
