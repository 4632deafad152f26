"""Write a fake /sys (PCI devices) and /proc/driver/nvidia/version under a temp dir."""
from __future__ import annotations

import os

OPEN_LINE = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build  "
             "(dvs-builder@U22-I3-AF03-09-1)  Sat Jul 26 02:17:45 UTC 2025\n"
             "GCC version:  gcc version 13.3.0 (Ubuntu 13.3.0-6ubuntu2~24.04)\n")
PROPRIETARY_LINE = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024\n"
                    "GCC version:  gcc version 12.3.0 (Ubuntu 12.3.0-1ubuntu1~22.04)\n")


def add_pci(sys_root, bus_id, vendor, device, pci_class, speed="32.0 GT/s PCIe", width="16",
            max_speed="32.0 GT/s PCIe", max_width="16"):
    path = os.path.join(str(sys_root), "bus", "pci", "devices", bus_id)
    os.makedirs(path, exist_ok=True)
    for name, value in (("vendor", "0x%04x" % vendor), ("device", "0x%04x" % device),
                        ("class", "0x%06x" % pci_class), ("current_link_speed", speed),
                        ("current_link_width", width), ("max_link_speed", max_speed),
                        ("max_link_width", max_width)):
        with open(os.path.join(path, name), "w") as handle:
            handle.write(value + "\n")
    return path
