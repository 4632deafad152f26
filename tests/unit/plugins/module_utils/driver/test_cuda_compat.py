from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions as target_versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import (
    compute_name, current_release, default_toolkit, driver_cuda_version, driver_key, driver_supports, minimum_driver,
    nvcc_check, nvcc_check_gpus, package_name, parse_cuda_version, parse_found, parse_gpu_archs, parse_nvcc_version,
    toolkit_archs, toolkits_from_packages, untargetable)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions

PARSERS = pytest.mark.parametrize("parse", [target_versions.parse, controller_versions.parse], ids=["target", "packaging"])

RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
V100 = {"name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0", "sm": "sm_70"}
GB10 = {"name": "NVIDIA GB10", "compute_capability": "12.1", "sm": "sm_121"}

NVCC_128 = """nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Fri_Feb_21_20:23:50_PST_2025
Cuda compilation tools, release 12.8, V12.8.93
Build cuda_12.8.r12.8/compiler.35583870_0
"""
# nvcc --list-gpu-arch of CUDA 13.0 (V13.0.88) as printed on the H100 test machine, in its order
ARCHS_130 = "\n".join("compute_%d" % a for a in (75, 80, 86, 87, 88, 89, 90, 100, 110, 103, 120, 121)) + "\n"


@pytest.mark.parametrize("value,expected", [
    ("12.8", (12, 8)), ("12-8", (12, 8)), ("cuda-12.8", (12, 8)), ("12.8.1", (12, 8)), ((13, 0), (13, 0)),
    ("13.0", (13, 0)), (" 12.9 ", (12, 9)),
])
def test_parse_cuda_version(value, expected):
    assert parse_cuda_version(value) == expected


@pytest.mark.parametrize("value", ["", None, "twelve", "12", "cu128"])
def test_parse_cuda_version_rejects(value):
    with pytest.raises(ValueError):
        parse_cuda_version(value)


def test_package_name():
    assert package_name("12.8") == "cuda-toolkit-12-8"
    assert package_name("13.0") == "cuda-toolkit-13-0"


@PARSERS
def test_driver_key_orders_driver_versions(parse):
    # debian revisions and rpm epochs are stripped; "580" is the branch's floor (MINOR_COMPAT_FLOOR)
    ordered = ["525.60.13", "570.26", "570.133.07", "575.51.03", "580", "580.65.06", "580.82.07-1.el9",
               "3:580.95.05-1", "580.159.04"]
    keys = [driver_key(value, parse) for value in ordered]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert driver_key("580.95.05-1", parse) == driver_key("580.95.05", parse) == driver_key("580.95.5", parse)


@PARSERS
@pytest.mark.parametrize("value", ["none", "", None, "580.95.05rc1", "v580"])
def test_driver_key_rejects(parse, value):
    with pytest.raises(ValueError, match="not a driver version"):
        driver_key(value, parse)


@pytest.mark.parametrize("toolkit,driver", [("12.8", "570.26"), ("12.9", "575.51.03"), ("13.0", "580.65.06")])
def test_minimum_driver_table(toolkit, driver):
    assert minimum_driver(toolkit) == driver
    assert minimum_driver("11.8") is None


@pytest.mark.parametrize("toolkit,driver,expected", [
    ("13.0", "580.95.05", (True, "native")),
    ("13.0", "580.65.06", (True, "native")),
    ("12.8", "570.26", (True, "native")),
    ("12.9", "570.133.07", (False, "CUDA 12.9 needs driver >= 575.51.03; driver 570.133.07 runs it only through "
                                   "minor-version compatibility (no new features or PTX of 12.9): set "
                                   "cuda_toolkit_minor_version_compat: true to accept that")),
    ("13.0", "575.57.08", (False, "CUDA 13.0 needs driver >= 580.65.06; the driver is 575.57.08")),
    ("12.8", "520.61.05", (False, "CUDA 12.8 needs driver >= 570.26; the driver is 520.61.05")),
])
def test_driver_supports(toolkit, driver, expected):
    assert driver_supports(toolkit, driver) == expected


def test_driver_supports_minor_compat_when_allowed():
    assert driver_supports("12.9", "570.133.07", minor_compat=True) == (True, "minor_compat")
    # 13.x minor compatibility starts at 580: 13.0 on 580.40 (below 13.0's GA minimum)
    assert driver_supports("13.0", "580.40.01", minor_compat=True) == (True, "minor_compat")


@pytest.mark.parametrize("driver,cuda", [
    ("580.159.04", "13.0"), ("580.95.05", "13.0"), ("575.57.08", "12.9"), ("570.133.07", "12.8"),
    ("560.35.03", "12.6"), ("520.61.05", None),
])
def test_driver_cuda_version(driver, cuda):
    assert driver_cuda_version(driver) == cuda


def test_toolkit_archs_blackwell_from_12_8():
    assert "compute_120" in toolkit_archs("12.8") and "compute_121" not in toolkit_archs("12.8")
    assert "compute_121" in toolkit_archs("12.9")
    assert "compute_120" not in toolkit_archs("12.6")
    assert "compute_70" not in toolkit_archs("13.0") and "compute_110" in toolkit_archs("13.0")
    assert toolkit_archs("11.8") == []


def test_compute_name_and_untargetable():
    assert compute_name("12.0") == "compute_120" and compute_name("sm_90") == "compute_90"
    assert untargetable("12.6", ["12.0", "9.0"]) == ["compute_120"]
    assert untargetable("13.0", ["7.0", "12.0"]) == ["compute_70"]
    assert untargetable("12.8", ["12.1"]) == ["compute_121"]


@pytest.mark.parametrize("driver,gpus,driver_cuda,expected", [
    ("580.95.05", [RTX5090], None, "13.0"),
    ("580.159.04", [H100], "13.0", "13.0"),
    ("580.95.05", [V100], None, "12.9"),        # 13.0 cannot target sm_70
    ("575.57.08", [RTX5090], None, "12.9"),
    ("570.133.07", [RTX5090], None, "12.8"),
    ("570.133.07", [GB10], None, None),         # sm_121 needs 12.9, which needs 575
    ("580.95.05", [RTX5090], "12.9", "12.9"),   # NVML's CUDA version caps the choice
    ("560.35.03", [H100], None, None),          # below every installable toolkit
    ("580.95.05", [], None, "13.0"),
])
def test_default_toolkit(driver, gpus, driver_cuda, expected):
    assert default_toolkit(driver, [g["compute_capability"] for g in gpus], driver_cuda) == expected


def test_parse_nvcc_version_and_archs():
    assert parse_nvcc_version(NVCC_128) == {"release": "12.8", "full": "12.8.93"}
    assert parse_nvcc_version("bash: nvcc: command not found") is None
    assert parse_gpu_archs(ARCHS_130)[:2] == ["compute_75", "compute_80"]
    assert parse_gpu_archs("compute_90\ncompute_90\ncompute_100f\n") == ["compute_90", "compute_100f"]


def test_nvcc_check():
    ok = nvcc_check(NVCC_128.replace("12.8", "13.0").replace("V13.0.93", "V13.0.88"), ARCHS_130, "13.0", ["12.0", "9.0"])
    assert ok["ok"] and ok["missing"] == [] and ok["msg"] == "nvcc 13.0.88 targets compute_120, compute_90"
    wrong = nvcc_check(NVCC_128, ARCHS_130, "13.0", ["7.0"])
    assert not wrong["ok"]
    assert wrong["msg"] == ("nvcc --version reports 12.8, expected 13.0; nvcc --list-gpu-arch lacks compute_70 "
                            "(the GPUs here need them)")
    assert nvcc_check("", "", "12.8")["msg"] == "nvcc --version reports no release line, expected 12.8"


def test_parse_found_prefers_the_versioned_directory():
    text = "/usr/local/cuda\t12.8\n/usr/local/cuda-12\t12.8\n/usr/local/cuda-12.8\t12.8\n/usr/local/cuda-13.0\t13.0\n/x\t\n"
    assert parse_found(text) == {"12.8": "/usr/local/cuda-12.8", "13.0": "/usr/local/cuda-13.0"}
    # the GPU test machine: CUDA 13.0 directly at /usr/local/cuda
    assert parse_found("/usr/local/cuda\t13.0\n") == {"13.0": "/usr/local/cuda"}


def test_current_release():
    assert current_release("/usr/local/cuda\t12.8\n/usr/local/cuda-12.8\t12.8\n") == "12.8"
    assert current_release("/usr/local/cuda-12.8\t12.8\n") is None


def test_toolkits_from_packages():
    text = "cuda-toolkit-12-8\t12.8.93-1\tii \ncuda-toolkit-13-0\t13.0.88-1\thi \ncuda-toolkit-12-9\t12.9.86-1\trc \n" \
           "cuda-toolkit-config-common\t12.8.90-1\tii \n"
    assert toolkits_from_packages(text) == ["12.8", "13.0"]


@PARSERS
def test_driver_decisions_are_the_same_with_either_parser(parse):
    assert driver_supports("13.0", "580.65.06", parse=parse) == (True, "native")
    assert driver_supports("13.0", "580.65.5", parse=parse)[0] is False
    assert driver_cuda_version("575.51.03", parse) == "12.9"
    assert default_toolkit("580.95.05", ["12.0"], parse=parse) == "13.0"


def test_nvcc_check_gpus_reads_capability_or_sm():
    gpus = [{"compute_capability": "12.0"}, {"sm": "sm_90"}]
    assert nvcc_check_gpus(NVCC_128, "compute_90\ncompute_120\n", "12.8", gpus)["ok"]
    missing = nvcc_check_gpus(NVCC_128, "compute_90\n", "12.8", gpus)
    assert missing["missing"] == ["compute_120"] and not missing["ok"]
    assert nvcc_check_gpus(NVCC_128, "", "12.8", [])["msg"] == "nvcc 12.8.93 targets (no GPU)"
