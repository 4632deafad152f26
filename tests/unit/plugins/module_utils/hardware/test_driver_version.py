from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import (
    cuda_version_string, driver_branch, driver_facts, parse_proc_version)
from sysfs_tree import OPEN_LINE, PROPRIETARY_LINE


def test_open_module_line():
    assert parse_proc_version(OPEN_LINE) == {"version": "580.159.04", "flavor": "open"}


def test_proprietary_module_line():
    assert parse_proc_version(PROPRIETARY_LINE) == {"version": "550.54.14", "flavor": "proprietary"}


def test_open_module_aarch64_line():
    line = "NVRM version: NVIDIA UNIX Open Kernel Module for aarch64  580.95.05  Release Build  (dvs-builder@x)\n"
    assert parse_proc_version(line) == {"version": "580.95.05", "flavor": "open"}


@pytest.mark.parametrize("text", ["", None, "garbage\n"])
def test_unparsable(text):
    assert parse_proc_version(text) == {"version": None, "flavor": "unknown"}


@pytest.mark.parametrize("value,expected", [(13000, "13.0"), (12080, "12.8"), (12090, "12.9"), (None, None)])
def test_cuda_version_string(value, expected):
    assert cuda_version_string(value) == expected


def test_branch():
    assert driver_branch("580.159.04") == "580"
    assert driver_branch(None) is None


def test_driver_facts_from_nvml_and_procfs():
    facts = driver_facts(OPEN_LINE, "580.159.04", 13000, None, True)
    assert facts == {"loaded": True, "version": "580.159.04", "branch": "580",
                     "cuda_driver_version": "13.0", "kernel_module_flavor": "open",
                     "source": "nvml", "nvml_error": None}


def test_driver_facts_procfs_only():
    facts = driver_facts(PROPRIETARY_LINE, None, None, "nvidia-ml-py is not installed", True)
    assert facts["loaded"] is True
    assert facts["version"] == "550.54.14"
    assert facts["kernel_module_flavor"] == "proprietary"
    assert facts["source"] == "procfs"
    assert facts["cuda_driver_version"] is None


def test_driver_facts_no_driver():
    facts = driver_facts(None, None, None, "NVMLError_DriverNotLoaded: Driver Not Loaded", False)
    assert facts["loaded"] is False
    assert facts["version"] is None and facts["branch"] is None
    assert facts["kernel_module_flavor"] == "unknown"
    assert facts["nvml_error"] == "NVMLError_DriverNotLoaded: Driver Not Loaded"
