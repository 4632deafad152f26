# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA PCI device ids -> model name and compute capability.

Used only before a driver is loaded (NVML reads the truth once one is). Unknown ids are
reported as such; the table never guesses.
"""
from __future__ import annotations

NVIDIA_VENDOR_ID = 0x10DE

# device id -> (name, compute capability)
PCI_IDS = {
    # Blackwell, GeForce and workstation (sm_120)
    0x2B85: ("NVIDIA GeForce RTX 5090", "12.0"),
    0x2C02: ("NVIDIA GeForce RTX 5080", "12.0"),
    0x2C05: ("NVIDIA GeForce RTX 5070 Ti", "12.0"),
    0x2BB1: ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
    0x2BB4: ("NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
    0x2BB5: ("NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    # Blackwell, data center (sm_100)
    0x2901: ("NVIDIA B200", "10.0"),
    # Hopper (sm_90)
    0x2330: ("NVIDIA H100 80GB HBM3", "9.0"),
    0x2331: ("NVIDIA H100 PCIe", "9.0"),
    0x2335: ("NVIDIA H200", "9.0"),
    # Ada (sm_89)
    0x2684: ("NVIDIA GeForce RTX 4090", "8.9"),
    0x2704: ("NVIDIA GeForce RTX 4080", "8.9"),
    0x26B1: ("NVIDIA RTX 6000 Ada Generation", "8.9"),
    0x26B9: ("NVIDIA L40S", "8.9"),
    0x27B8: ("NVIDIA L4", "8.9"),
    # Ampere (sm_80, sm_86)
    0x20B0: ("NVIDIA A100-SXM4-40GB", "8.0"),
    0x20B2: ("NVIDIA A100-SXM4-80GB", "8.0"),
    0x20B5: ("NVIDIA A100 80GB PCIe", "8.0"),
    0x20F1: ("NVIDIA A100-PCIE-40GB", "8.0"),
    0x2204: ("NVIDIA GeForce RTX 3090", "8.6"),
    0x2230: ("NVIDIA RTX A6000", "8.6"),
    # Turing (sm_75)
    0x1E04: ("NVIDIA GeForce RTX 2080 Ti", "7.5"),
    0x1EB8: ("Tesla T4", "7.5"),
}


def lookup(device_id):
    """Return (name, capability or None, known) for a PCI device id (int)."""
    if device_id in PCI_IDS:
        name, capability = PCI_IDS[device_id]
        return name, capability, True
    return "NVIDIA device 10de:%04x" % device_id, None, False
