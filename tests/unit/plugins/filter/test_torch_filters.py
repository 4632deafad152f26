from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.torch import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import resolve, role_messages, role_steps, source_build
from shells import assert_each_argument_matters, changed

F = FilterModule().filters()
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}

PLAN_BASE = {"version": "2.9.1", "channel": "cu128", "torchvision": "", "torchaudio": "",
             "companions": ["torchvision", "torchaudio"], "gpus": [RTX5090], "driver_cuda": "13.0",
             "method": "wheel", "toolkit_cuda": None, "builds": True, "local_label": True,
             "cuda_home": "/usr/local/cuda"}


def test_plan_passes_every_argument():
    changes = {"version": "2.9.0", "channel": "cu126", "torchvision": "0.24.0", "torchaudio": "2.9.0",
               "companions": ["torchvision"], "gpus": [H100], "driver_cuda": "12.6", "local_label": False}
    result = assert_each_argument_matters(F["torch_plan"], PLAN_BASE, changes)
    assert result == resolve.resolve_stack(**PLAN_BASE)
    assert result["error"] is None and result["stack"] == "torch-2.9.1-cu128"
    # method, toolkit_cuda, builds and cuda_home act on a source plan
    source = changed(PLAN_BASE, method="source", channel="", toolkit_cuda="12.8")
    assert_each_argument_matters(F["torch_plan"], source, {"method": "wheel", "toolkit_cuda": "13.0"})
    no_toolkit = changed(source, toolkit_cuda=None)
    assert_each_argument_matters(F["torch_plan"], no_toolkit, {"cuda_home": "/opt/cuda-12.8", "builds": False})
    error = F["torch_plan"](**no_toolkit)["error"]
    assert error.startswith("a source build needs a CUDA toolkit and there is none at /usr/local/cuda")


def test_the_reported_plan_through_the_filter():
    # '2.9' | blackwell.pytorch.torch_plan(gpus=[RTX 5090]): a channel with sm_120 kernels, never "None" or "pypi"
    plan = F["torch_plan"]("2.9", gpus=[{"index": 0, "name": "RTX 5090", "compute_capability": "12.0"}])
    assert (plan["error"], plan["channel"], plan["stack"]) == (None, "cu130", "torch-2.9.1-cu130")
    assert plan["verdicts"][0]["verdict"] == "native" and plan["source"] == "version table (planning/matrix.py)"
    assert F["torch_plan"]("2.9.1", local_label="false", gpus=[H100], companions=[])["pins"] == ["torch==2.9.1"]


def test_every_filter_is_there():
    assert sorted(F) == ["torch_adopted_steps", "torch_arch_list", "torch_check_policy", "torch_check_summary",
                         "torch_decide", "torch_gate_failure", "torch_max_jobs", "torch_pip_args", "torch_pip_private",
                         "torch_plan", "torch_profile", "torch_published", "torch_settled", "torch_wheelhouse",
                         "torch_wheelhouse_report", "torch_wheelhouse_use"]


def test_profile_shell():
    base = {"current": "/opt/pytorch/current", "module_loading": "LAZY", "alloc_conf": "expandable_segments:True",
            "allow_tf32": False, "managed": "Ansible managed"}
    result = assert_each_argument_matters(F["torch_profile"], base, {
        "current": "/srv/torch/current", "module_loading": "EAGER", "alloc_conf": "", "allow_tf32": "true",
        "managed": "Lab managed"})
    assert result == role_steps.profile_text("/opt/pytorch/current", "LAZY", "expandable_segments:True")
    with pytest.raises(AnsibleFilterError, match="^torch_profile: allow_tf32 must be true or false, got 'perhaps'$"):
        F["torch_profile"]("/opt/pytorch/current", allow_tf32="perhaps")


def test_plan_reads_versions_with_packaging():
    # a spelling packaging normalises; the stack name carries the normalised version
    assert F["torch_plan"]("v2.9.1", channel="cu128", gpus=[RTX5090])["stack"] == "torch-2.9.1-cu128"
    assert F["torch_plan"]("2.9.1", channel="cu128", torchvision="0.24.01", gpus=[RTX5090])["companions"][
        "torchvision"] == "0.24.1"


@pytest.mark.parametrize("kwargs,message", [
    ({"gpus": [{"compute_capability": "twelve"}]}, "torch_plan: not a compute capability"),
    ({"gpus": "sm_120"}, "torch_plan: gpus must be a list, got str"),
    ({"gpus": [None]}, r"torch_plan: gpus\[0\] must be a mapping, got NoneType"),
    ({"companions": "torchvision"}, "torch_plan: companions must be a list, got str"),
    ({"builds": "perhaps"}, "torch_plan: builds must be true or false, got 'perhaps'$"),
])
def test_plan_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["torch_plan"]("2.9.1", channel="cu128", **kwargs)


def test_plan_refusal_stays_in_the_plan():
    assert F["torch_plan"]("2.9.1", channel="cu126", gpus=[RTX5090])["error"].startswith("channel cu126 has no kernels")


def test_arch_list_shell():
    base = {"gpu_lists": [[{"sm": "sm_120"}], [{"sm": "sm_89"}]], "ptx": False}
    result = assert_each_argument_matters(F["torch_arch_list"], base, {"gpu_lists": [[{"sm": "sm_90"}]], "ptx": True})
    assert result == source_build.arch_list(base["gpu_lists"]) == "8.9;12.0"
    assert F["torch_arch_list"]([[{"sm": "sm_120"}]], ptx="yes") == "12.0+PTX"
    assert F["torch_arch_list"](None) == ""


@pytest.mark.parametrize("value,message", [
    ("sm_120", "torch_arch_list: gpu_lists must be a list, got str"),
    ([{"sm": "sm_120"}], r"torch_arch_list: gpu_lists\[0\] must be a list, got dict"),
    ([["sm_120"]], r"torch_arch_list: gpu_lists\[0\]\[0\] must be a mapping, got str"),
    ([[{"sm": "sm_twelve"}]], "torch_arch_list: not a compute capability"),
])
def test_arch_list_errors(value, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["torch_arch_list"](value)


def test_max_jobs_shell():
    base = {"cpus": 16, "memory_mb": 65536, "gib_per_job": 4, "override": 0}
    result = assert_each_argument_matters(F["torch_max_jobs"], base, {
        "cpus": 8, "memory_mb": 16384, "gib_per_job": 8, "override": 3})
    assert result == source_build.max_jobs(16, 65536, 4, 0) and result["max_jobs"] == 16
    assert F["torch_max_jobs"]("2", "6144")["max_jobs"] == 1


@pytest.mark.parametrize("kwargs,message", [
    ({"cpus": "many", "memory_mb": 1024}, "torch_max_jobs: cpus, memory_mb, gib_per_job and override must be numbers"),
    ({"cpus": 4, "memory_mb": [1]}, "torch_max_jobs: cpus, memory_mb, gib_per_job and override must be numbers"),
    ({"cpus": 4, "memory_mb": 1024, "gib_per_job": 0}, "torch_max_jobs: gib_per_job must be more than 0, not 0"),
])
def test_max_jobs_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["torch_max_jobs"](**kwargs)


def test_role_message_shells():
    check = {"build": {"torch_version": "2.9.1"}, "gpus": []}
    assert F["torch_check_summary"](check, "s", [], "native", None) == (
        "s: torch 2.9.1; no GPU visible; no verdict required (no GPU in the facts): passed")


def test_check_summary_under_the_gates_policy():
    check = {"build": {"torch_version": "2.9.1"}, "gpus": []}
    policy = {"min_verdict": "native", "require": ["nccl"]}
    base = {"check": check, "stack": "s", "policy": policy}
    result = assert_each_argument_matters(F["torch_check_summary"], base, {
        "check": dict(check, build={"torch_version": "2.9.0"}), "stack": "t", "policy": dict(policy, min_verdict="")})
    assert result == role_messages.gate_summary("s", check, policy) == F["torch_check_summary"](
        check, "s", True, "native", ["nccl"]) == "s: torch 2.9.1; no GPU visible; min_verdict native, require nccl: passed"
    with pytest.raises(AnsibleFilterError, match="^torch_check_summary: policy must be a mapping, got str"):
        F["torch_check_summary"](check, "s", policy="native")


def test_gate_failure_shell():
    failed = {"msg": "found none", "gpus": [{"kernel_image": {"verdict": "none"}}]}
    plan = F["torch_plan"]("2.9.1", channel="cu128", gpus=[RTX5090])
    source = F["torch_plan"]("2.9.1", channel="cu128", gpus=[RTX5090], method="source", toolkit_cuda="12.8")
    base = {"check": failed, "plan": plan, "fallback": None, "kept": "/k", "current": "/c"}
    result = assert_each_argument_matters(F["torch_gate_failure"], base, {
        "check": dict(failed, msg="other"), "kept": "/k2", "current": "/c2"})
    assert_each_argument_matters(F["torch_gate_failure"], changed(base, fallback=source), {"plan": {}, "fallback": None})
    assert result == role_messages.gate_failure(failed, plan, None, "/k", "/c") == (
        "found none -- /k is kept for inspection; /c was not moved.")
    assert F["torch_gate_failure"](failed, plan, source, "/k", "/c") == ""
    assert F["torch_gate_failure"](failed, None, source) == "found none --  is kept for inspection;  was not moved."


@pytest.mark.parametrize("kwargs,message", [
    ({"check": "failed", "plan": {}}, "torch_gate_failure: check must be a mapping, got str"),
    ({"check": {}, "plan": []}, "torch_gate_failure: plan must be a mapping, got list"),
    ({"check": {}, "plan": {}, "fallback": "source"}, "torch_gate_failure: fallback must be a mapping, got str"),
])
def test_gate_failure_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["torch_gate_failure"](**kwargs)
