from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.torch import FilterModule

F = FilterModule().filters()


def test_every_filter_is_there():
    assert sorted(F) == ["torch_arch_list", "torch_arch_refusal", "torch_arch_rejections", "torch_check_summary",
                         "torch_hashes_mismatches", "torch_max_jobs", "torch_missing_paths", "torch_pip_progress",
                         "torch_plan", "torch_plan_summary", "torch_poll_report"]


def test_plan_through_the_filter():
    plan = F["torch_plan"]("2.9.1", channel="cu128", gpus=[{"index": 0, "name": "x", "compute_capability": "12.0"}],
                           driver_cuda="13.0")
    assert plan["error"] is None and plan["stack"] == "torch-2.9.1-cu128"


def test_plan_bad_gpu_entry_is_a_filter_error():
    with pytest.raises(AnsibleFilterError, match="torch_plan: not a compute capability"):
        F["torch_plan"]("2.9.1", channel="cu128", gpus=[{"compute_capability": "twelve"}])


def test_source_helpers():
    assert F["torch_arch_list"]([[{"sm": "sm_120"}], [{"sm": "sm_89"}]]) == "8.9;12.0"
    assert F["torch_max_jobs"](2, 6144)["max_jobs"] == 1
    assert F["torch_arch_rejections"]("12.0", "", "compute_90") == [
        {"name": "12.0", "reason": "the tree's select_compute_arch.cmake has no numeric pattern"},
        {"name": "12.0", "reason": "nvcc --list-gpu-arch has no compute_120"}]


def test_hashes_mismatches_shell():
    text = "torch==2.9.1+cu128 \\\n    --hash=sha256:00\ntorchvision==0.24.0+cu128\n"
    assert F["torch_hashes_mismatches"](text, ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"]) != []
    assert F["torch_hashes_mismatches"](text, ["torch==2.9.1+cu128", "torchvision==0.24.0+cu128"]) == []


def test_pip_progress_shell():
    log = ("Looking in indexes: https://download.pytorch.org/whl/cu128\n"
           "Collecting torch==2.9.1+cu128\n"
           "  Downloading https://download.pytorch.org/whl/cu128/torch-2.9.1%2Bcu128-cp312-linux_x86_64.whl (899.7 MB)\n"
           "Collecting numpy\n"
           "  Downloading numpy-2.3.0-cp312-manylinux_2_28_x86_64.whl (16.6 MB)\n")
    assert F["torch_pip_progress"](log) == (
        "2 downloads, 916.3 MB; Downloading numpy-2.3.0-cp312-manylinux_2_28_x86_64.whl (16.6 MB)")
    assert F["torch_pip_progress"]("") == "0 downloads, 0.0 MB; starting"


def test_role_message_shells():
    plan = F["torch_plan"]("2.9.1", channel="cu128", gpus=[{"index": 0, "name": "x", "compute_capability": "12.0"}])
    assert F["torch_plan_summary"](plan).startswith("torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 ")
    stat = {"item": {"var": "pytorch_hashes_file", "path": "/h", "dir": False}, "stat": {"exists": False}}
    assert F["torch_missing_paths"]([stat], "ws") == ["pytorch_hashes_file /h is not a file on ws."]
    assert F["torch_arch_refusal"]("12.0", "", "compute_120", tree="/t", ref="v1", cuda_home="/c") == (
        "TORCH_CUDA_ARCH_LIST=12.0 cannot be built from /t (v1) with /c: 12.0: the tree's select_compute_arch.cmake "
        "has no numeric pattern. Use a newer PyTorch ref (or toolkit), or set pytorch_build_arch_list.")
    check = {"build": {"torch_version": "2.9.1"}, "gpus": []}
    assert F["torch_check_summary"](check, "s", [], "native", None) == (
        "s: torch 2.9.1; no GPU visible; no verdict required (no GPU in the facts): passed")
    assert F["torch_poll_report"]("", "torch build", "h", "61.7", "") == (
        "torch build on h: 0:01:01 elapsed, running; last log line: ")
