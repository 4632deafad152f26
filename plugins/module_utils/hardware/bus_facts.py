# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the PCI bus and procfs say about NVIDIA GPUs and the loaded driver, without NVML.

Works before any driver exists; gpu_facts adds NVML's view on top when it can.
"""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import driver_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import sysfs_gpus

PROC_VERSION = "/proc/driver/nvidia/version"


def read_text(path):
    """A file's text, or None when it cannot be read."""
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def read_bus(sys_root="/sys", proc_version=PROC_VERSION):
    """(GPUs on the PCI bus, /proc/driver/nvidia/version text or None, nvidia module loaded)."""
    return (sysfs_gpus(sys_root), read_text(proc_version),
            os.path.isdir(os.path.join(sys_root, "module", "nvidia")))


def bus_only_facts(on_bus, proc_text, module_loaded, nvml_error):
    """(nvidia_gpus, nvidia_driver) facts from the bus and procfs alone; nvml_error says why."""
    gpus = [dict(gpu, nvml_visible=False) for gpu in on_bus]
    return gpus, driver_facts(proc_text, None, None, nvml_error, module_loaded)
