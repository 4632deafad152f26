# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA GPUs on the PCI bus, read from sysfs: works before any driver is loaded."""
from __future__ import annotations

import os
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product_line
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import (
    capability_facts, parse_capability)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.pci_ids import (
    NVIDIA_VENDOR_ID, PCI_IDS, lookup)

# PCI class codes (upper 16 bits of the 24-bit class): VGA controller, 3D controller.
_GPU_CLASSES = (0x0300, 0x0302)
_GEN_BY_SPEED = {"2.5": 1, "5.0": 2, "5": 2, "8.0": 3, "8": 3, "16.0": 4, "16": 4,
                 "32.0": 5, "32": 5, "64.0": 6, "64": 6}


def _read(path):
    try:
        with open(path) as handle:
            return handle.read().strip()
    except (IOError, OSError):
        return None


def _hex(value):
    try:
        return int(value, 16)
    except (TypeError, ValueError):
        return None


def pcie_gen_from_speed(text: str | None) -> int | None:
    """"32.0 GT/s PCIe" -> 5; "Unknown" or None -> None."""
    if not text:
        return None
    return _GEN_BY_SPEED.get(text.split()[0])


def _int(value):
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def normalize_bus_id(bus_id: str) -> str:
    """NVML's "00000000:18:00.0" and sysfs' "0000:18:00.0" -> "0000:18:00.0" (lower case)."""
    if not bus_id:
        return None
    domain, sep, rest = str(bus_id).strip().lower().partition(":")
    if not sep:
        return str(bus_id).lower()
    return "%04x:%s" % (int(domain, 16), rest)


def sysfs_gpu(path: str, bus_id: str) -> dict[str, Any] | None:
    """Facts for one PCI function directory, or None when it is not an NVIDIA GPU."""
    vendor = _hex(_read(os.path.join(path, "vendor")))
    pci_class = _hex(_read(os.path.join(path, "class")))
    if vendor != NVIDIA_VENDOR_ID or pci_class is None or (pci_class >> 8) not in _GPU_CLASSES:
        return None
    device = _hex(_read(os.path.join(path, "device"))) or 0
    name, capability, known = lookup(device)
    gpu = {
        "index": None,
        "name": name,
        "name_source": "pci_id_table" if known else "unknown_pci_id",
        "uuid": None,
        "pci_device_id": "10de:%04x" % device,
        "pci_bus_id": normalize_bus_id(bus_id),
        "compute_capability": None,
        "sm": None,
        "arch_family": "unknown",
        "product_line": product_line(PCI_IDS.get(device) or name),
        "memory_total_mib": None,
        "pcie_gen_current": pcie_gen_from_speed(_read(os.path.join(path, "current_link_speed"))),
        "pcie_gen_max": pcie_gen_from_speed(_read(os.path.join(path, "max_link_speed"))),
        "pcie_width_current": _int(_read(os.path.join(path, "current_link_width"))),
        "pcie_width_max": _int(_read(os.path.join(path, "max_link_width"))),
        "persistence_mode": None,
        "ecc_mode": None,
        "mig_mode": None,
        "power_limit_w": None,
        "max_sm_clock_mhz": None,
        "max_mem_clock_mhz": None,
        "memory_bus_width_bits": None,
        "driver_bound": os.path.basename(os.path.realpath(os.path.join(path, "driver")))
        if os.path.exists(os.path.join(path, "driver")) else None,
        "source": "sysfs",
    }
    if capability:
        gpu.update(capability_facts(*parse_capability(capability)))
    return gpu


def sysfs_gpus(sys_root: str = "/sys") -> list[dict[str, Any]]:
    """Every NVIDIA display/3D controller under sys_root/bus/pci/devices, in bus order."""
    base = os.path.join(sys_root, "bus", "pci", "devices")
    try:
        entries = sorted(os.listdir(base))
    except (IOError, OSError):
        return []
    gpus = []
    for bus_id in entries:
        gpu = sysfs_gpu(os.path.join(base, bus_id), bus_id)
        if gpu is not None:
            gpu["index"] = len(gpus)
            gpus.append(gpu)
    return gpus
