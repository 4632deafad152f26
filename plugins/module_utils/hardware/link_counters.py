# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A GPU's PCIe link error counters, read before and after a load: NVML's replay counter and the kernel's AER counters.

- nvmlDeviceGetPcieReplayCounter: the packets the GPU's link layer sent again because the other end did
  not acknowledge them (a bad LCRC, a lost packet) since the driver loaded. A healthy link replays none.
- AER (Advanced Error Reporting) counters the kernel keeps per PCI function in sysfs:
  /sys/bus/pci/devices/<bus id>/aer_dev_correctable, aer_dev_nonfatal and aer_dev_fatal, one "Name count"
  line per error kind ending with TOTAL_ERR_COR, TOTAL_ERR_NONFATAL or TOTAL_ERR_FATAL. The files exist
  only where the kernel handles AER for the device (not in most virtual machines): then the reading is None.

The bus id is NVML's (nvmlDeviceGetPciInfo), lower case with a four-digit domain as sysfs names it. The sysfs
root is an argument so tests read a fake tree. Runs in the benchmark child (pynvml passed in); Python 3.9,
no Ansible import.
"""
from __future__ import annotations

import errno
import os
from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import normalize_bus_id

AER_FILES = (("correctable", "aer_dev_correctable"), ("nonfatal", "aer_dev_nonfatal"), ("fatal", "aer_dev_fatal"))


def parse_aer(text: str) -> int | None:
    """The error count of one aer_dev_* file: its TOTAL_* line, else the sum of its lines; None when no line
    holds a count."""
    total, summed, seen = None, 0, False
    for line in (text or "").splitlines():
        parts = line.split()
        if len(parts) != 2 or not parts[1].isdigit():
            continue
        seen = True
        if parts[0].startswith("TOTAL_"):
            total = int(parts[1])
        else:
            summed += int(parts[1])
    if total is not None:
        return total
    return summed if seen else None


def _read(path):
    with open(path) as handle:
        return handle.read()


def read_aer(bus_id: str, root: str = "/sys", reader: Callable[[str], str] = _read) -> dict[str, int | None] | None:
    """{correctable, nonfatal, fatal} counts of the PCI function `bus_id` (None for a file that holds no
    count), or None when sysfs has no AER file for it."""
    base = os.path.join(root, "bus", "pci", "devices", normalize_bus_id(bus_id) or "")
    counts, found = {}, False
    for kind, name in AER_FILES:
        try:
            counts[kind] = parse_aer(reader(os.path.join(base, name)))
            found = True
        except (IOError, OSError) as err:
            if getattr(err, "errno", None) not in (errno.ENOENT, errno.ENOTDIR):
                found = True
            counts[kind] = None
    return counts if found else None


def read_counters(nvml: Any, handle: object, root: str = "/sys") -> dict[str, Any]:
    """{bus_id, pcie_replay (None when NVML cannot tell), aer (read_aer())} of one GPU."""
    try:
        bus = nvml.nvmlDeviceGetPciInfo(handle).busId
        bus = normalize_bus_id(bus.decode("ascii", "replace") if isinstance(bus, bytes) else bus)
    except (nvml.NVMLError, AttributeError):
        bus = None
    try:
        replay = int(nvml.nvmlDeviceGetPcieReplayCounter(handle))
    except (nvml.NVMLError, AttributeError):
        replay = None
    return {"bus_id": bus, "pcie_replay": replay, "aer": read_aer(bus, root) if bus else None}


def _change(before, after):
    if before is None or after is None:
        return {"before": before, "after": after, "delta": None}
    return {"before": before, "after": after, "delta": after - before}


def counter_changes(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> dict[str, Any]:
    """{bus_id, pcie_replay: {before, after, delta}, aer: {correctable, nonfatal, fatal: {before, after,
    delta}} or None}: what changed between two read_counters() readings (delta None where either is unknown);
    None without a first reading."""
    if before is None:
        return None
    after = after or {}
    aer = None
    if before.get("aer") is not None or after.get("aer") is not None:
        first, last = before.get("aer") or {}, after.get("aer") or {}
        aer = dict((kind, _change(first.get(kind), last.get(kind))) for kind, dummy in AER_FILES)
    return {"bus_id": before.get("bus_id") or after.get("bus_id"),
            "pcie_replay": _change(before.get("pcie_replay"), after.get("pcie_replay")), "aer": aer}
