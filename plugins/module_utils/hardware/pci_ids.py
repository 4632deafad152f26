# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA PCI device ids -> model name and compute capability.

Used only before a driver is loaded (NVML reads the truth once one is). The name comes from the
host's pci.ids (hwdata / pciutils) when it has one and knows the id, else from the table; the
compute capability comes from the catalogue's product the table names (pci.ids has none).
Unknown ids are reported as such; the table never guesses. Ids and names follow pci.ids
(version 2026.08.22); every name is a product of hardware.catalogue.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product

NVIDIA_VENDOR_ID = 0x10DE

# Where distributions keep pci.ids: hwdata (Debian 13, RHEL, Ubuntu), pciutils (Debian 12).
PCI_IDS_PATHS = ("/usr/share/hwdata/pci.ids", "/usr/share/misc/pci.ids", "/usr/share/pci.ids")

# device id -> product name (hardware.catalogue.PRODUCTS)
PCI_IDS = {
    # Blackwell, GeForce RTX 50 (sm_120)
    0x2B85: "NVIDIA GeForce RTX 5090",
    0x2B87: "NVIDIA GeForce RTX 5090 D",
    0x2B8C: "NVIDIA GeForce RTX 5090 D V2",
    0x2C02: "NVIDIA GeForce RTX 5080",
    0x2C05: "NVIDIA GeForce RTX 5070 Ti",
    0x2F04: "NVIDIA GeForce RTX 5070",
    0x2D04: "NVIDIA GeForce RTX 5060 Ti",
    0x2D05: "NVIDIA GeForce RTX 5060",
    0x2F06: "NVIDIA GeForce RTX 5060",
    0x2D83: "NVIDIA GeForce RTX 5050",
    0x2C18: "NVIDIA GeForce RTX 5090 Max-Q / Mobile",
    0x2C58: "NVIDIA GeForce RTX 5090 Max-Q / Mobile",
    0x2C19: "NVIDIA GeForce RTX 5080 Max-Q / Mobile",
    0x2C59: "NVIDIA GeForce RTX 5080 Max-Q / Mobile",
    0x2F18: "NVIDIA GeForce RTX 5070 Ti Mobile",
    0x2F58: "NVIDIA GeForce RTX 5070 Ti Mobile",
    0x2D18: "NVIDIA GeForce RTX 5070 Max-Q / Mobile",
    0x2D58: "NVIDIA GeForce RTX 5070 Max-Q / Mobile",
    0x2D19: "NVIDIA GeForce RTX 5060 Max-Q / Mobile",
    0x2D59: "NVIDIA GeForce RTX 5060 Max-Q / Mobile",
    0x2D98: "NVIDIA GeForce RTX 5050 Max-Q / Mobile",
    0x2DD8: "NVIDIA GeForce RTX 5050 Max-Q / Mobile",
    # Blackwell, RTX PRO workstation and server (sm_120)
    0x2BB1: "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
    0x2BB4: "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition",
    0x2BB5: "NVIDIA RTX PRO 6000 Blackwell Server Edition",
    0x2BB2: "NVIDIA RTX PRO 6000D Blackwell Workstation Edition",
    0x2BBC: "NVIDIA RTX PRO 6000D Blackwell Max-Q Workstation Edition",
    0x2BB3: "NVIDIA RTX PRO 5000 Blackwell",
    0x2C31: "NVIDIA RTX PRO 4500 Blackwell",
    0x2C3A: "NVIDIA RTX PRO 4500 Blackwell Server Edition",
    0x2C34: "NVIDIA RTX PRO 4000 Blackwell",
    0x2C33: "NVIDIA RTX PRO 4000 Blackwell SFF Edition",
    0x2D30: "NVIDIA RTX PRO 2000 Blackwell",
    0x2C38: "NVIDIA RTX PRO 5000 Blackwell Generation Laptop GPU",
    0x2C39: "NVIDIA RTX PRO 4000 Blackwell Generation Laptop GPU",
    0x2F38: "NVIDIA RTX PRO 3000 Blackwell Generation Laptop GPU",
    0x2D39: "NVIDIA RTX PRO 2000 Blackwell Generation Laptop GPU",
    0x2DB8: "NVIDIA RTX PRO 1000 Blackwell Generation Laptop GPU",
    0x2DB9: "NVIDIA RTX PRO 500 Blackwell Generation Laptop GPU",
    0x2C77: "NVIDIA RTX PRO 5000 Blackwell Embedded GPU",
    0x2C79: "NVIDIA RTX PRO 4000 Blackwell Embedded GPU",
    0x2D79: "NVIDIA RTX PRO 2000 Blackwell Embedded GPU",
    0x2DF9: "NVIDIA RTX PRO 500 Blackwell Embedded GPU",
    # Blackwell, data center: GB100 (sm_100), GB110 = Blackwell Ultra (sm_103)
    0x2901: "NVIDIA B200",
    0x2909: "NVIDIA HGX B200 168GB",
    0x2941: "NVIDIA HGX GB200",
    0x3182: "NVIDIA B300 SXM6 AC",
    0x31A1: "NVIDIA GB300 MaxQ",
    0x31C2: "NVIDIA GB300",
    0x31C3: "NVIDIA GB300",
    # Hopper (sm_90)
    0x2330: "NVIDIA H100 80GB HBM3",
    0x2331: "NVIDIA H100 PCIe",
    0x2336: "NVIDIA H100",
    0x2337: "NVIDIA H100 SXM5 64GB",
    0x2338: "NVIDIA H100 SXM5 96GB",
    0x2339: "NVIDIA H100 SXM5 94GB",
    0x233D: "NVIDIA H100 96GB",
    0x2321: "NVIDIA H100L 94GB",
    0x2313: "NVIDIA H100 CNX",
    0x2322: "NVIDIA H800 PCIe",
    0x2324: "NVIDIA H800",
    0x233A: "NVIDIA H800L 94GB",
    0x2329: "NVIDIA H20",
    0x232C: "NVIDIA H20 HBM3e",
    0x2335: "NVIDIA H200",
    0x233B: "NVIDIA H200 NVL",
    0x2342: "NVIDIA GH200 120GB / 480GB",
    0x2348: "NVIDIA GH200 144G HBM3e",
    # Ada (sm_89)
    0x2684: "NVIDIA GeForce RTX 4090",
    0x2704: "NVIDIA GeForce RTX 4080",
    0x26B1: "NVIDIA RTX 6000 Ada Generation",
    0x26B5: "NVIDIA L40",
    0x26B9: "NVIDIA L40S",
    0x27B8: "NVIDIA L4",
    # Ampere (sm_80, sm_86)
    0x20B0: "NVIDIA A100-SXM4-40GB",
    0x20B2: "NVIDIA A100-SXM4-80GB",
    0x20B5: "NVIDIA A100 80GB PCIe",
    0x20F1: "NVIDIA A100-PCIE-40GB",
    0x2204: "NVIDIA GeForce RTX 3090",
    0x2230: "NVIDIA RTX A6000",
    # Turing (sm_75)
    0x1E04: "NVIDIA GeForce RTX 2080 Ti",
    0x1EB8: "Tesla T4",
}

_DEVICE_LINE = re.compile(r"^\t([0-9a-fA-F]{4})\s+(.+?)\s*$")
_BRACKETED = re.compile(r"\[(.+)\]")
_cache = {}


def parse_pci_ids(text: str, vendor: int = NVIDIA_VENDOR_ID) -> dict[int, str]:
    """{device id: name} of one vendor in pci.ids text; "GB202 [GeForce RTX 5090]" -> "NVIDIA GeForce RTX 5090".

    A device line without a marketing name in brackets ("GH100") keeps the chip name.
    """
    names = {}
    inside = False
    head = "%04x" % vendor
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        if not line.startswith("\t"):
            inside = line[:4].lower() == head
            continue
        if not inside:
            continue
        match = _DEVICE_LINE.match(line)
        if match:
            label = match.group(2)
            bracketed = _BRACKETED.search(label)
            names[int(match.group(1), 16)] = "NVIDIA " + (bracketed.group(1) if bracketed else label)
    return names


def host_names(paths: Iterable[str] | None = None) -> dict[int, str]:
    """{device id: name} from the first readable pci.ids of the host; {} when it has none."""
    paths = PCI_IDS_PATHS if paths is None else tuple(paths)
    if paths not in _cache:
        _cache[paths] = {}
        for path in paths:
            try:
                with open(path, encoding="utf-8", errors="replace") as handle:
                    _cache[paths] = parse_pci_ids(handle.read())
                break
            except (IOError, OSError):
                continue
    return _cache[paths]


def lookup(device_id: int, names: Mapping[int, str] | None = None) -> tuple[str, str | None, bool]:
    """Return (name, capability or None, known) for a PCI device id (int).

    names: {device id: name} from pci.ids; None reads the host's (host_names()). `known` says
    whether the table knows the compute capability.
    """
    if names is None:
        names = host_names()
    table = PCI_IDS.get(device_id)
    row = product(table) if table else None
    name = names.get(device_id) or table or "NVIDIA device 10de:%04x" % device_id
    if row:
        return name, "%d.%d" % row["capability"], True
    return name, None, False
