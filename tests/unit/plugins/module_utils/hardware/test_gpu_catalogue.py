from __future__ import annotations

import pytest

import fake_pynvml as fake
import sysfs_tree
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import gpu_peaks
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import _device_entry
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import cuda_compat
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.inputs import branch_problems, minimum_branch
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue, pci_ids
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import arch_family
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import nvml_snapshot
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import sysfs_gpus
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import WHEEL_CHANNELS, channel_sass
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.plan import plan as verify_plan

# Names the verify role's former Jinja classifier called data-center cards while the peaks called them
# workstation cards, and one the catalogue does not list (classified by its name).
EXTRA_NAMES = ("NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA TITAN RTX", "Quadro RTX 8000")


def _known_names():
    return sorted(set(catalogue.PRODUCTS) | set(pci_ids.PCI_IDS.values()) | set(EXTRA_NAMES))


def _plan_line(name):
    return verify_plan({"device": "cuda", "profile": "quick", "gpu_name": name})["product_line"]


def _nvml_fact(name, capability):
    gpu = dict(fake.H100, name=name, cc=capability)
    return nvml_snapshot(fake.FakeNVML([gpu]))["gpus"][0]


def _benchmark_device(name, capability):
    gpu = {"index": 0, "name": name, "uuid": "GPU-0", "sm_count": 100, "l2_bytes": 1, "memory_total_mib": 1,
           "nvml": None, "capability": capability}
    return _device_entry(gpu, {})


def test_every_row_is_well_formed():
    for capability, row in catalogue.ARCHITECTURES.items():
        for key in ("first_toolkit", "last_toolkit"):
            assert row[key] is None or row[key] in cuda_compat.TOOLKITS, (capability, key)
        if row["rates"]:
            assert sorted(row["rates"]) == ["fp32", "fp64", "tensor"], capability
    for name, row in catalogue.PRODUCTS.items():
        assert row["capability"] in catalogue.ARCHITECTURES, name
        assert row["line"] in catalogue.PRODUCT_LINES, name
        assert set(row["peaks"]) <= set(catalogue.PEAK_KINDS), name


def test_driver_branch_is_the_ga_driver_of_the_first_toolkit():
    for capability, row in catalogue.ARCHITECTURES.items():
        first = row["first_toolkit"]
        expected = int(cuda_compat.TOOLKITS[first].split(".")[0]) if first else None
        assert row["driver_branch"] == expected, capability


def test_toolkit_targets_are_what_nvcc_lists():
    # docs/domain.md section 3 (measured for 13.0) and NVIDIA's release notes
    older = ["compute_%d" % n for n in (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)]
    assert cuda_compat.toolkit_archs("12.6") == older
    assert cuda_compat.toolkit_archs("12.8") == older + ["compute_100", "compute_101", "compute_120"]
    assert cuda_compat.toolkit_archs("12.9") == older + ["compute_100", "compute_101", "compute_103",
                                                         "compute_120", "compute_121"]
    assert cuda_compat.toolkit_archs("13.0") == ["compute_%d" % n for n in (
        75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)]
    assert cuda_compat.toolkit_archs("11.8") == []


def test_wheel_sass_of_each_channel():
    pre_blackwell = ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90")
    assert [channel_sass(channel) for channel in WHEEL_CHANNELS] == [pre_blackwell] * 3 + [
        ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")] * 2 + [
        ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")] * 3
    assert WHEEL_CHANNELS[-3:] == ("cu130", "cu132", "cu134")
    assert channel_sass("cu140") == () and channel_sass("cpu") == ()


@pytest.mark.parametrize("name", _known_names())
def test_one_product_line_per_gpu_everywhere(name):
    row = catalogue.product(name)
    capability = row["capability"] if row else (8, 9)
    line = catalogue.product_line(name)
    assert line == (row["line"] if row else "workstation")
    assert gpu_peaks.product_line(name) == line
    assert _plan_line(name) == line  # verify.json's top-level product_line and the default gates
    assert _benchmark_device(name, capability)["product_line"] == line  # verify.json's per-device value
    assert _nvml_fact(name, capability)["product_line"] == line  # gpu_facts with a driver
    derived = gpu_peaks.peak({"name": name, "capability": "8.9", "sm_count": 10, "max_sm_clock_mhz": 1000}, "tf32")
    assert derived["peak_source"] == "derived" and derived["peak_note"].endswith(
        "(compute capability 8.9, %s); datasheets use a boost clock that can be lower" % line)


def test_the_cards_the_two_classifiers_disagreed_on_are_workstation_cards():
    for name in ("NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA TITAN RTX"):
        assert catalogue.product(name)["line"] == "workstation"
        assert _plan_line(name) == _benchmark_device(name, (8, 9))["product_line"] == "workstation"


def test_gpu_facts_without_a_driver_give_the_catalogue_line_of_every_pci_id(tmp_path):
    devices = sorted(pci_ids.PCI_IDS)
    for number, device in enumerate(devices):
        sysfs_tree.add_pci(tmp_path, "0000:%02x:%02x.0" % (number // 32 + 1, number % 32), 0x10DE, device, 0x030200)
    facts = sysfs_gpus(str(tmp_path))
    assert [gpu["pci_device_id"] for gpu in facts] == ["10de:%04x" % device for device in devices]
    for device, gpu in zip(devices, facts):
        product = catalogue.product(pci_ids.PCI_IDS[device])
        assert gpu["product_line"] == product["line"] and gpu["compute_capability"] == "%d.%d" % product["capability"]


def test_adding_one_gpu_is_one_entry_and_its_pci_id(monkeypatch, tmp_path):
    # A made-up architecture and product: one catalogue row each, and one PCI id.
    monkeypatch.setitem(catalogue.ARCHITECTURES, (15, 0), {
        "family": "Example", "first_toolkit": (13, 0), "last_toolkit": None, "driver_branch": 580,
        "wheel_sass": ((13, 0), None), "rates": {"tensor": 2048, "fp32": 256, "fp64": 4}})
    monkeypatch.setitem(catalogue.PRODUCTS, "NVIDIA RTX PRO 9000 Example", {
        "capability": (15, 0), "line": "workstation", "peaks": {"memory": 4000, "bf16": 900}})
    monkeypatch.setitem(pci_ids.PCI_IDS, 0x3FF0, "NVIDIA RTX PRO 9000 Example")
    name = "NVIDIA RTX PRO 9000 Example"

    # arch and PCI id: gpu_facts without a driver and with one
    assert arch_family(15, 0) == "Example"
    assert pci_ids.lookup(0x3FF0, names={}) == (name, "15.0", True)
    sysfs_tree.add_pci(tmp_path, "0000:01:00.0", 0x10DE, 0x3FF0, 0x030200)
    (bus,) = sysfs_gpus(str(tmp_path))
    assert (bus["name"], bus["compute_capability"], bus["sm"], bus["arch_family"], bus["product_line"]) == (
        name, "15.0", "sm_150", "Example", "workstation")
    nvml = _nvml_fact(name, (15, 0))
    assert (nvml["arch_family"], nvml["product_line"]) == ("Example", "workstation")

    # driver minimum and toolkit
    assert minimum_branch("15.0") == 580
    assert branch_problems("575", [bus]) == [
        "nvidia_driver_branch 575 cannot drive the GPUs here: %s (sm_150) needs branch 580 or newer. Set "
        "nvidia_driver_branch: 580 (long-term branch)" % name]
    assert "compute_150" in cuda_compat.toolkit_archs("13.0")
    assert cuda_compat.untargetable("12.9", ["15.0"]) == ["compute_150"]
    assert cuda_compat.default_toolkit("580.95.05", ["15.0"]) == "13.0"

    # wheels
    assert "sm_150" in channel_sass("cu130") and "sm_150" not in channel_sass("cu129")

    # peaks: the datasheet figures, the rest derived from the capability's rates
    gpu = {"name": name, "capability": "15.0", "sm_count": 100, "max_sm_clock_mhz": 2000}
    assert gpu_peaks.peak(gpu, "bf16")["peak"] == 900.0 and gpu_peaks.peak(gpu, "memory")["peak"] == 4000.0
    assert gpu_peaks.peak(gpu, "fp16") == {"peak": 409.6, "peak_source": "derived", "peak_note": (
        "estimate: 100 SMs x 2000 MHz (max SM clock) x 2048 dense fp16 FLOP/clock/SM (compute capability 15.0, "
        "workstation); datasheets use a boost clock that can be lower")}

    # product line: the verify role's gates and the benchmark's per-device value
    plan = verify_plan({"device": "cuda", "profile": "quick", "gpu_name": name})
    assert plan["product_line"] == "workstation"
    assert [entry["gates"]["gemm_bf16"] for entry in plan["gpu_gates"] if entry["line"] == "workstation"] == [
        {"min_fraction_of_peak": 0.5}]
    assert _benchmark_device(name, (15, 0))["product_line"] == "workstation"


@pytest.mark.parametrize("capability,name,expected", [
    ((6, 1), "NVIDIA GeForce GTX 1080", catalogue.OPEN_UNSUPPORTED),
    ((7, 0), "Tesla V100-SXM2-32GB", catalogue.OPEN_UNSUPPORTED),
    ((7, 5), "Tesla T4", catalogue.OPEN_SUPPORTED),
    ((9, 0), "NVIDIA H100 80GB HBM3", catalogue.OPEN_SUPPORTED),
    ((9, 0), "NVIDIA GH200 120GB / 480GB", catalogue.OPEN_REQUIRED),
    ((9, 0), "NVIDIA GH200 480GB", catalogue.OPEN_REQUIRED),  # not a catalogue row: its name decides
    ((10, 0), "NVIDIA B200", catalogue.OPEN_REQUIRED),
    ((12, 0), None, catalogue.OPEN_REQUIRED),
    # without a row: like the closest listed capability below it
    ((8, 5), None, catalogue.OPEN_SUPPORTED),
    ((12, 3), None, catalogue.OPEN_REQUIRED),
    ((13, 0), None, catalogue.OPEN_REQUIRED),
    ((3, 5), None, catalogue.OPEN_UNSUPPORTED),
])
def test_open_kernel_modules_by_capability_and_name(capability, name, expected):
    assert catalogue.open_module(capability, name) == expected


def test_open_modules_from_turing_and_only_them_from_blackwell():
    assert catalogue.open_module_oldest() == (7, 5)
    for capability, row in catalogue.ARCHITECTURES.items():
        assert row["open_module"] in (catalogue.OPEN_REQUIRED, catalogue.OPEN_SUPPORTED, catalogue.OPEN_UNSUPPORTED)
        assert (row["open_module"] == catalogue.OPEN_REQUIRED) == (row["family"] == "Blackwell"), capability
    assert catalogue.nearest_architecture((8, 5)) is catalogue.ARCHITECTURES[(8, 0)]
    assert catalogue.nearest_architecture((4, 0)) is None


def test_first_wheel_channel_of_a_capability():
    assert catalogue.first_wheel_channel((12, 0)) == (12, 8)
    assert catalogue.first_wheel_channel((12, 1)) == (12, 8)  # runs the sm_120 SASS
    assert catalogue.first_wheel_channel((10, 3)) == (12, 8)
    assert catalogue.first_wheel_channel((8, 9)) == (11, 8)  # runs the sm_86 SASS
    assert catalogue.first_wheel_channel((11, 0)) is None
    assert catalogue.first_wheel_channel((5, 2)) == (11, 8)
