from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.cuda import FilterModule

F = FilterModule().filters()
FILTER_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter")
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}


def test_every_filter_is_there_and_documented():
    assert sorted(F) == ["cuda_nvcc_check", "cuda_toolkit_plan", "nvidia_driver_apt_packages", "nvidia_driver_load_state",
                         "nvidia_driver_plan", "openpgp_key_check"]
    for name in F:
        assert os.path.exists(os.path.join(FILTER_DIR, name + ".yml")), name


def test_driver_plan_from_probe_text():
    plan = F["nvidia_driver_plan"]([RTX5090], flavor="auto", branch="580", manage="auto",
                                   loaded={"loaded": False}, packages="nvidia-open\t580.95.05-1\thi \n",
                                   kernel="6.8.0-50-generic", os_family="Debian")
    assert plan["ok"] and plan["flavor"] == "open" and plan["open_required"] and plan["action"] == "manage"
    assert plan["installed"]["version"] == "580.95.05" and plan["headers_meta"] == "linux-headers-generic"
    assert plan["apt_query"][:2] == ["nvidia-driver-pinning-580", "nvidia-open"]


def test_driver_plan_refusal_keeps_the_flavor_message():
    plan = F["nvidia_driver_plan"]([RTX5090], flavor="proprietary")
    assert not plan["ok"] and plan["action"] is None and plan["msg"].startswith("nvidia_driver_flavor proprietary refused")


def test_driver_plan_bad_gpu_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="nvidia_driver_plan: not a compute capability"):
        F["nvidia_driver_plan"]([{"compute_capability": "twelve"}])


def test_gpus_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="gpus must be a list"):
        F["nvidia_driver_plan"]("sm_120")


def test_toolkit_plan_parses_probe_text():
    plan = F["cuda_toolkit_plan"](["12.8", "13.0"], default="12.8", driver="580.95.05", gpus=[RTX5090],
                                  installed="cuda-toolkit-13-0\t13.0.88-1\tii \n", found="/usr/local/cuda-13.0\t13.0\n")
    assert plan["ok"] and plan["install"] == ["12.8"] and plan["managed"] == ["13.0"]


def test_nvcc_check_through_the_filter():
    result = F["cuda_nvcc_check"]("Cuda compilation tools, release 12.8, V12.8.93", "compute_90\ncompute_120\n",
                                  expected="12.8", gpus=[RTX5090])
    assert result["ok"] and result["full"] == "12.8.93"
    with pytest.raises(AnsibleFilterError, match="cuda_nvcc_check"):
        F["cuda_nvcc_check"]("", "", expected="twelve")


def test_load_state_and_key_check():
    assert F["nvidia_driver_load_state"]([], nouveau_loaded=True)["reboot_required"] is False
    assert F["openpgp_key_check"]("not a key", ["EB693B3035CD5710E231E123A4B469963BF863CC"])["ok"] is False
