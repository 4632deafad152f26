from __future__ import annotations

import pytest

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import (
    merge_with_sysfs, nvml_error_text, nvml_snapshot)


def test_rtx_5090():
    snap = nvml_snapshot(fake.FakeNVML([fake.RTX_5090]))
    (gpu,) = snap["gpus"]
    assert gpu == {
        "index": 0, "name": "NVIDIA GeForce RTX 5090", "name_source": "nvml",
        "uuid": "GPU-3f1b2c4d-5e6f-7081-92a3-b4c5d6e7f809", "pci_device_id": "10de:2b85",
        "pci_bus_id": "0000:01:00.0", "compute_capability": "12.0", "sm": "sm_120",
        "arch_family": "Blackwell", "product_line": "geforce", "memory_total_mib": 32607, "pcie_gen_current": 1,
        "pcie_gen_max": 5, "pcie_width_current": 16, "pcie_width_max": 16,
        "persistence_mode": False, "ecc_mode": None, "mig_mode": None, "power_limit_w": 575.0,
        "enforced_power_limit_w": 575.0, "max_sm_clock_mhz": 3090, "max_mem_clock_mhz": 14001, "memory_bus_width_bits": 512,
        "driver_bound": "nvidia", "source": "nvml",
    }
    assert snap["driver_version"] == "580.159.04" and snap["cuda_driver_version"] == 13000


def test_rtx_pro_6000_blackwell():
    (gpu,) = nvml_snapshot(fake.FakeNVML([fake.RTX_PRO_6000]))["gpus"]
    assert gpu["name"] == "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"
    assert (gpu["compute_capability"], gpu["sm"], gpu["arch_family"]) == ("12.0", "sm_120", "Blackwell")
    assert gpu["ecc_mode"] is False and gpu["mig_mode"] is None
    assert gpu["memory_total_mib"] == 97887 and gpu["pci_device_id"] == "10de:2bb1"


def test_h100():
    (gpu,) = nvml_snapshot(fake.FakeNVML([fake.H100]))["gpus"]
    assert (gpu["compute_capability"], gpu["sm"], gpu["arch_family"]) == ("9.0", "sm_90", "Hopper")
    assert gpu["ecc_mode"] is True and gpu["mig_mode"] is False and gpu["persistence_mode"] is True
    assert (gpu["max_sm_clock_mhz"], gpu["max_mem_clock_mhz"], gpu["memory_bus_width_bits"]) == (1980, 2619, 5120)
    assert gpu["power_limit_w"] == 700.0 and gpu["pci_bus_id"] == "0000:18:00.0"


def test_the_enforced_power_limit_is_read_beside_the_management_limit():
    capped = dict(fake.H200_0, power_mw=700000, enforced_mw=600000)
    gpu, other = nvml_snapshot(fake.FakeNVML([capped, fake.H200_1]))["gpus"]
    assert (gpu["power_limit_w"], gpu["enforced_power_limit_w"]) == (700.0, 600.0)
    assert (other["power_limit_w"], other["enforced_power_limit_w"]) == (700.0, 700.0)


def test_mig_enabled_gpu_next_to_a_plain_one():
    nvml = fake.FakeNVML([fake.H100, fake.H100_MIG])
    first, second = nvml_snapshot(nvml)["gpus"]
    assert first["mig_mode"] is False and second["mig_mode"] is True
    assert second["index"] == 1 and second["pci_bus_id"] == "0000:2a:00.0"
    assert nvml.shutdown_calls == 1


@pytest.mark.parametrize("error,text", [
    (fake.NVMLError_DriverNotLoaded, "NVMLError_DriverNotLoaded: Driver Not Loaded"),
    (fake.NVMLError_LibraryNotFound, "NVMLError_LibraryNotFound: NVML Shared Library Not Found"),
])
def test_init_errors_propagate_with_a_readable_text(error, text):
    nvml = fake.FakeNVML([fake.H100], init_error=error)
    with pytest.raises(fake.NVMLError) as caught:
        nvml_snapshot(nvml)
    assert nvml_error_text(caught.value) == text


def test_gpu_on_bus_but_not_in_nvml_is_kept():
    nvml_list = nvml_snapshot(fake.FakeNVML([fake.H100]))["gpus"]
    bus = [dict(nvml_list[0], source="sysfs"),
           dict(nvml_list[0], pci_bus_id="0000:41:00.0", name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                source="sysfs")]
    merged = merge_with_sysfs(nvml_list, bus)
    assert [(g["source"], g["nvml_visible"], g["index"]) for g in merged] == [
        ("nvml", True, 0), ("sysfs", False, None)]
