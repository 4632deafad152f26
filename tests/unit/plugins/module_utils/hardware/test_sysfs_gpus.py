from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import (
    normalize_bus_id, pcie_gen_from_speed, sysfs_gpus)
from sysfs_tree import add_pci


def test_finds_nvidia_display_and_3d_controllers_only(tmp_path):
    add_pci(tmp_path, "0000:00:02.0", 0x8086, 0x4680, 0x030000)            # Intel iGPU
    add_pci(tmp_path, "0000:01:00.0", 0x10DE, 0x2B85, 0x030000)            # RTX 5090 (VGA)
    add_pci(tmp_path, "0000:01:00.1", 0x10DE, 0x22E8, 0x040300)            # its HDMI audio
    add_pci(tmp_path, "0000:18:00.0", 0x10DE, 0x2330, 0x030200,            # H100 (3D controller)
            speed="16.0 GT/s PCIe", width="8")
    add_pci(tmp_path, "0000:41:00.0", 0x10DE, 0x2BB1, 0x030000)            # RTX PRO 6000
    gpus = sysfs_gpus(str(tmp_path))
    assert [g["pci_bus_id"] for g in gpus] == ["0000:01:00.0", "0000:18:00.0", "0000:41:00.0"]
    assert [g["index"] for g in gpus] == [0, 1, 2]
    first, hopper, pro = gpus
    assert first["name"] == "NVIDIA GeForce RTX 5090"
    assert first["pci_device_id"] == "10de:2b85"
    assert (first["compute_capability"], first["sm"], first["arch_family"]) == ("12.0", "sm_120", "Blackwell")
    assert (first["pcie_gen_current"], first["pcie_width_current"]) == (5, 16)
    assert first["source"] == "sysfs" and first["uuid"] is None
    assert (hopper["sm"], hopper["pcie_gen_current"], hopper["pcie_width_current"]) == ("sm_90", 4, 8)
    assert pro["name"] == "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"


def test_unknown_device_id_is_reported_not_guessed(tmp_path):
    add_pci(tmp_path, "0000:65:00.0", 0x10DE, 0xFFF0, 0x030000)
    (gpu,) = sysfs_gpus(str(tmp_path))
    assert gpu["name"] == "NVIDIA device 10de:fff0"
    assert gpu["name_source"] == "unknown_pci_id"
    assert gpu["compute_capability"] is None and gpu["arch_family"] == "unknown"


def test_no_pci_tree(tmp_path):
    assert sysfs_gpus(str(tmp_path / "missing")) == []


@pytest.mark.parametrize("text,gen", [("2.5 GT/s PCIe", 1), ("8.0 GT/s PCIe", 3), ("32.0 GT/s PCIe", 5),
                                      ("64.0 GT/s PCIe", 6), ("Unknown", None), (None, None)])
def test_pcie_gen(text, gen):
    assert pcie_gen_from_speed(text) == gen


def test_normalize_bus_id():
    assert normalize_bus_id("00000000:2A:00.0") == "0000:2a:00.0"
    assert normalize_bus_id("0000:01:00.0") == "0000:01:00.0"
