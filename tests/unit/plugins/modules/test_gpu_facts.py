from __future__ import annotations

import pytest

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_facts
from sysfs_tree import OPEN_LINE, PROPRIETARY_LINE, add_pci


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A fake machine: sysfs root and /proc/driver/nvidia/version under tmp_path."""
    sys_root = tmp_path / "sys"
    (sys_root / "bus" / "pci" / "devices").mkdir(parents=True)
    proc = tmp_path / "proc_version"
    monkeypatch.setattr(gpu_facts, "SYS_ROOT", str(sys_root))
    monkeypatch.setattr(gpu_facts, "PROC_VERSION", str(proc))

    class Host:
        def gpu(self, bus_id, device):
            add_pci(sys_root, bus_id, 0x10DE, device, 0x030200)

        def driver(self, line):
            proc.write_text(line)
            (sys_root / "module" / "nvidia").mkdir(parents=True, exist_ok=True)

        def nvml(self, nvml):
            monkeypatch.setattr(gpu_facts, "pynvml", nvml)
            monkeypatch.setattr(gpu_facts, "HAS_PYNVML", nvml is not None)
            monkeypatch.setattr(gpu_facts, "PYNVML_IMPORT_ERROR", None if nvml else "ImportError: pynvml")

    return Host()


def test_driver_loaded_nvml(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.nvml(fake.FakeNVML([fake.H100]))
    status, result = run_module(gpu_facts, {})
    assert status == "exit" and result["changed"] is False
    (gpu,) = result["ansible_facts"]["nvidia_gpus"]
    assert (gpu["name"], gpu["compute_capability"], gpu["source"], gpu["nvml_visible"]) == (
        "NVIDIA H100 80GB HBM3", "9.0", "nvml", True)
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["loaded"], driver["version"], driver["branch"], driver["cuda_driver_version"],
            driver["kernel_module_flavor"], driver["nvml_error"]) == (True, "580.159.04", "580", "13.0", "open", None)
    assert result["warnings"] == []


def test_no_driver_sysfs_discovery(host, run_module):
    host.gpu("0000:01:00.0", 0x2B85)
    host.nvml(fake.FakeNVML([], init_error=fake.NVMLError_DriverNotLoaded))
    status, result = run_module(gpu_facts, {})
    assert status == "exit"
    (gpu,) = result["ansible_facts"]["nvidia_gpus"]
    assert (gpu["name"], gpu["sm"], gpu["source"], gpu["nvml_visible"]) == (
        "NVIDIA GeForce RTX 5090", "sm_120", "sysfs", False)
    driver = result["ansible_facts"]["nvidia_driver"]
    assert driver["loaded"] is False
    assert driver["nvml_error"] == "NVMLError_DriverNotLoaded: Driver Not Loaded"


def test_library_not_found_is_reported_not_raised(host, run_module):
    host.gpu("0000:41:00.0", 0x2BB1)
    host.nvml(fake.FakeNVML([], init_error=fake.NVMLError_LibraryNotFound))
    status, result = run_module(gpu_facts, {})
    assert status == "exit"
    assert result["ansible_facts"]["nvidia_driver"]["nvml_error"].startswith("NVMLError_LibraryNotFound")
    assert result["ansible_facts"]["nvidia_gpus"][0]["sm"] == "sm_120"


def test_no_nvidia_gpu_at_all(host, run_module):
    host.nvml(fake.FakeNVML([], init_error=fake.NVMLError_LibraryNotFound))
    status, result = run_module(gpu_facts, {"nvml": "required"})
    assert status == "exit" and result["changed"] is False
    assert result["ansible_facts"]["nvidia_gpus"] == []


def test_pynvml_missing_with_driver_loaded_falls_back_with_a_warning(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(PROPRIETARY_LINE)
    host.nvml(None)
    status, result = run_module(gpu_facts, {})
    assert status == "exit"
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["version"], driver["kernel_module_flavor"], driver["source"]) == (
        "550.54.14", "proprietary", "procfs")
    assert "nvidia-ml-py is not installed" in driver["nvml_error"]
    assert len(result["warnings"]) == 1 and "blackwell.pytorch.tools" in result["warnings"][0]


def test_pynvml_missing_and_required_fails_with_guidance(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.nvml(None)
    status, result = run_module(gpu_facts, {"nvml": "required"})
    assert status == "fail"
    assert "nvidia-ml-py" in result["msg"]


def test_nvml_required_but_driver_missing_fails(host, run_module):
    host.gpu("0000:01:00.0", 0x2B85)
    host.nvml(fake.FakeNVML([], init_error=fake.NVMLError_DriverNotLoaded))
    status, result = run_module(gpu_facts, {"nvml": "required"})
    assert status == "fail"
    assert result["msg"] == "NVML cannot be used: NVMLError_DriverNotLoaded: Driver Not Loaded"


def test_gpu_the_driver_did_not_initialise(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.gpu("0000:41:00.0", 0x2BB1)
    host.driver(PROPRIETARY_LINE)
    host.nvml(fake.FakeNVML([fake.H100]))
    status, result = run_module(gpu_facts, {})
    gpus = result["ansible_facts"]["nvidia_gpus"]
    assert [(g["pci_bus_id"], g["nvml_visible"]) for g in gpus] == [
        ("0000:18:00.0", True), ("0000:41:00.0", False)]
    assert any("0000:41:00.0" in w for w in result["warnings"])


def test_nvml_never(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.nvml(fake.FakeNVML([fake.H100]))
    status, result = run_module(gpu_facts, {"nvml": "never"})
    assert result["ansible_facts"]["nvidia_gpus"][0]["source"] == "sysfs"
    assert result["ansible_facts"]["nvidia_driver"]["version"] == "580.159.04"


def test_bad_option_value(host, run_module):
    status, result = run_module(gpu_facts, {"nvml": "sometimes"})
    assert status == "fail" and "nvml" in result["msg"]
