from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import pci_ids
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.pci_ids import (
    PCI_IDS, host_names, lookup, parse_pci_ids)

# An excerpt of pci.ids (version 2026.08.22) as hwdata ships it, with a second vendor around it.
PCI_IDS_TEXT = """\
#\tVersion: 2026.08.22
10dd  Evans & Sutherland
10de  NVIDIA Corporation
\t2330  GH100 [H100 SXM5 80GB]
\t2302  GH100
\t2b85  GB202 [GeForce RTX 5090]
\t\t10de 2b85  GB202 [GeForce RTX 5090 Founders Edition]
\t2c31  GB203GL [RTX PRO 4500 Blackwell]
\t2d04  GB206 [GeForce RTX 5060 Ti]
\t3182  GB110 [B300 SXM6 AC]
\t9999  Future [GeForce RTX 9090]
10df  Emulex Corporation
\t2b85  Not an NVIDIA device
"""


# Every PCI id named in the project's docs/domain.md (section 1) and the H100 of the GPU layer.
@pytest.mark.parametrize("device,name,capability", [
    (0x2B85, "NVIDIA GeForce RTX 5090", "12.0"),
    (0x2C02, "NVIDIA GeForce RTX 5080", "12.0"),
    (0x2BB1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
    (0x2BB5, "NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    (0x2BB4, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
    (0x2901, "NVIDIA B200", "10.0"),
    (0x2330, "NVIDIA H100 80GB HBM3", "9.0"),
])
def test_domain_ids(device, name, capability):
    assert lookup(device, names={}) == (name, capability, True)


# The parts issue 15 named as `unknown` before: every desktop RTX 50, the RTX PRO Blackwell
# workstation / server / Max-Q / 4000 / 4500 / 5000, B200 / B300 / GB200, H100 / H200 variants, L4 / L40S.
@pytest.mark.parametrize("device,name,capability", [
    (0x2D05, "NVIDIA GeForce RTX 5060", "12.0"),
    (0x2F06, "NVIDIA GeForce RTX 5060", "12.0"),
    (0x2D04, "NVIDIA GeForce RTX 5060 Ti", "12.0"),
    (0x2F04, "NVIDIA GeForce RTX 5070", "12.0"),
    (0x2C05, "NVIDIA GeForce RTX 5070 Ti", "12.0"),
    (0x2B87, "NVIDIA GeForce RTX 5090 D", "12.0"),
    (0x2D83, "NVIDIA GeForce RTX 5050", "12.0"),
    (0x2C34, "NVIDIA RTX PRO 4000 Blackwell", "12.0"),
    (0x2C33, "NVIDIA RTX PRO 4000 Blackwell SFF Edition", "12.0"),
    (0x2C31, "NVIDIA RTX PRO 4500 Blackwell", "12.0"),
    (0x2C3A, "NVIDIA RTX PRO 4500 Blackwell Server Edition", "12.0"),
    (0x2BB3, "NVIDIA RTX PRO 5000 Blackwell", "12.0"),
    (0x2941, "NVIDIA HGX GB200", "10.0"),
    (0x3182, "NVIDIA B300 SXM6 AC", "10.3"),
    (0x31C2, "NVIDIA GB300", "10.3"),
    (0x2335, "NVIDIA H200", "9.0"),
    (0x233B, "NVIDIA H200 NVL", "9.0"),
    (0x2331, "NVIDIA H100 PCIe", "9.0"),
    (0x2339, "NVIDIA H100 SXM5 94GB", "9.0"),
    (0x2342, "NVIDIA GH200 120GB / 480GB", "9.0"),
    (0x27B8, "NVIDIA L4", "8.9"),
    (0x26B9, "NVIDIA L40S", "8.9"),
])
def test_current_parts(device, name, capability):
    assert lookup(device, names={}) == (name, capability, True)


def test_every_id_names_a_catalogue_product_with_a_capability():
    for device in PCI_IDS:
        name, capability, known = lookup(device, names={})
        assert known and name == PCI_IDS[device] and product(name) is not None, hex(device)
        assert parse_capability(capability)[0] >= 7, name


def test_every_blackwell_geforce_and_rtx_pro_is_sm_120():
    for device in PCI_IDS:
        name, capability, _known = lookup(device, names={})
        if "RTX 50" in name or ("RTX PRO" in name and "Blackwell" in name):
            assert capability == "12.0", name


def test_parse_pci_ids_reads_only_nvidia_devices():
    assert parse_pci_ids(PCI_IDS_TEXT) == {
        0x2330: "NVIDIA H100 SXM5 80GB",
        0x2302: "NVIDIA GH100",
        0x2B85: "NVIDIA GeForce RTX 5090",
        0x2C31: "NVIDIA RTX PRO 4500 Blackwell",
        0x2D04: "NVIDIA GeForce RTX 5060 Ti",
        0x3182: "NVIDIA B300 SXM6 AC",
        0x9999: "NVIDIA GeForce RTX 9090",
    }


def test_names_from_pci_ids_capability_from_the_table():
    names = parse_pci_ids(PCI_IDS_TEXT)
    assert lookup(0x2330, names) == ("NVIDIA H100 SXM5 80GB", "9.0", True)
    assert lookup(0x2C02, names) == ("NVIDIA GeForce RTX 5080", "12.0", True)  # not in that pci.ids
    assert lookup(0x9999, names) == ("NVIDIA GeForce RTX 9090", None, False)  # named, capability unknown
    assert lookup(0x7777, names) == ("NVIDIA device 10de:7777", None, False)


def test_host_names_reads_the_first_pci_ids(tmp_path):
    missing, present = tmp_path / "hwdata" / "pci.ids", tmp_path / "misc" / "pci.ids"
    present.parent.mkdir()
    present.write_text(PCI_IDS_TEXT)
    assert host_names([str(missing), str(present)])[0x2B85] == "NVIDIA GeForce RTX 5090"
    assert host_names([str(missing)]) == {}


def test_lookup_uses_the_host_pci_ids(tmp_path, monkeypatch):
    path = tmp_path / "pci.ids"
    path.write_text(PCI_IDS_TEXT)
    monkeypatch.setattr(pci_ids, "PCI_IDS_PATHS", (str(path),))
    assert lookup(0x2330) == ("NVIDIA H100 SXM5 80GB", "9.0", True)
    monkeypatch.setattr(pci_ids, "PCI_IDS_PATHS", ())
    assert lookup(0x2330) == ("NVIDIA H100 80GB HBM3", "9.0", True)
