from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.torch import FilterModule

F = FilterModule().filters()


def test_every_filter_is_there():
    assert sorted(F) == ["torch_arch_list", "torch_arch_rejections", "torch_hashes_mismatches",
                         "torch_installed_mismatches", "torch_max_jobs", "torch_plan", "torch_stack_name",
                         "torch_stacks_to_prune"]


def test_plan_through_the_filter():
    plan = F["torch_plan"]("2.9.1", channel="cu128", gpus=[{"index": 0, "name": "x", "compute_capability": "12.0"}],
                           driver_cuda="13.0")
    assert plan["error"] is None and plan["stack"] == "torch-2.9.1-cu128"


def test_plan_bad_gpu_entry_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="torch_plan: not a compute capability"):
        F["torch_plan"]("2.9.1", channel="cu128", gpus=[{"compute_capability": "twelve"}])


def test_prune_keep_zero():
    with pytest.raises(AnsibleFilterError, match="keep must be at least 1"):
        F["torch_stacks_to_prune"]([], 0)


def test_source_helpers():
    assert F["torch_arch_list"]([[{"sm": "sm_120"}], [{"sm": "sm_89"}]]) == "8.9;12.0"
    assert F["torch_max_jobs"](2, 6144)["max_jobs"] == 1
    assert F["torch_arch_rejections"]("12.0", "", "compute_90") == [
        {"name": "12.0", "reason": "the tree's select_compute_arch.cmake has no numeric pattern"},
        {"name": "12.0", "reason": "nvcc --list-gpu-arch has no compute_120"}]
    assert F["torch_stack_name"]("2.11.0+cu130", "cu130") == "torch-2.11.0-cu130"
