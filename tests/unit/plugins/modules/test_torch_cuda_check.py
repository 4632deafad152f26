from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import run as cuda_check_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child import companions_source
from ansible_collections.blackwell.pytorch.plugins.modules import torch_cuda_check

TORCH_PYTHON = os.environ.get("BLACKWELL_TEST_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PYTHON, reason="needs a torch interpreter; make test sets "
                                 "BLACKWELL_TEST_TORCH_PYTHON")
NO_KERNEL = "AcceleratorError: CUDA error: no kernel image is available for execution on the device"
CU130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
CU126 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "uuid": "GPU-521d52b3",
        "pci_bus_id": "0000:00:06.0", "memory_total_mib": 81079, "multi_processor_count": 132}
RTX5090 = dict(H100, name="NVIDIA GeForce RTX 5090", capability=[12, 0])
OK = {"status": "ok", "error": None, "seconds": 0.1, "failed_op": None}
FAILED = {"status": "failed", "error": NO_KERNEL, "seconds": 0.004, "failed_op": "elementwise"}
PROBES = dict((name, OK) for name in ("flash_attention", "efficient_attention", "cudnn_attention",
                                      "math_attention", "triton", "bf16", "fp8"))


def child(result):
    return {"status": "ok", "returncode": 0, "seconds": 5.0, "result": result, "stdout_tail": "",
            "stderr_tail": "", "error": None}


@pytest.fixture
def host(monkeypatch):
    """host(device, arch_list, version, normal, disable, force): canned children behind the module."""
    def install(device, arch_list, version, normal, disable, force):
        facts = {"torch_version": version, "git_version": "abc", "cuda": "13.0", "hip": None, "cudnn": 91900,
                 "nccl": [2, 28, 9], "nccl_available": True, "cuda_available": True, "cuda_unavailable_reason": None,
                 "devices": [device], "arch_list": arch_list, "phases": {}}
        companions = {"torchvision": {"version": None, "import_error": "ModuleNotFoundError: No module named "
                                      "'torchvision'"}, "torchaudio": {"version": None, "import_error": "x"}}
        init = {"index": 0, "init": {"status": "ok", "error": None}, "phases": {}}
        modes = {"normal": dict(init, ops=normal, probes=PROBES), "disable": dict(init, ops=disable, sass=OK),
                 "force": dict(init, ops=force), "compile": dict(init, compile=OK)}
        calls = []

        def run_child(python, source, args=(), env=None, timeout=None):
            env = env or {}
            kind = ("companions" if source == companions_source() else "facts") if not args else (
                "compile" if args[1] == "compile" else "disable" if env.get("CUDA_DISABLE_PTX_JIT")
                else "force" if env.get("CUDA_FORCE_PTX_JIT") else "normal")
            calls.append(kind)
            return child({"facts": facts, "companions": companions}.get(kind) or modes[kind])

        monkeypatch.setattr(cuda_check_run, "run_child", run_child)
        return calls
    return install


def test_h100_meets_the_requirements(host, run_module):
    host(H100, CU130, "2.11.0+cu130", OK, OK, FAILED)
    status, result = run_module(torch_cuda_check, {
        "python": sys.executable, "min_verdict": "native",
        "require": ["native", "native_sass_launch", "flash_attention", "triton", "nccl"]})
    assert status == "exit" and result["changed"] is False
    assert result["unmet"] == [] and result["warnings"] == []
    (gpu,) = result["gpus"]
    assert (gpu["kernel_image"]["verdict"], gpu["runs"]["force_ptx_jit"]["status"],
            gpu["runs"]["force_ptx_jit"]["expected"]) == ("native", "failed", True)
    assert result["build"]["torch_version"] == "2.11.0+cu130" and result["python"] == sys.executable
    assert "error" not in result


def test_check_mode_reports_the_same(host, run_module):
    calls = host(H100, CU130, "2.11.0+cu130", OK, OK, FAILED)
    status, result = run_module(torch_cuda_check, {"python": sys.executable, "_ansible_check_mode": True})
    assert status == "exit" and result["changed"] is False
    assert result["gpus"][0]["runs"]["normal"]["status"] == "ok"
    assert sorted(calls) == ["companions", "disable", "facts", "force", "normal"]


def test_wheel_without_blackwell_kernels_fails_with_what_to_do(host, run_module):
    host(RTX5090, CU126, "2.7.1+cu126", FAILED, FAILED, FAILED)
    status, result = run_module(torch_cuda_check, {"python": sys.executable, "min_verdict": "native",
                                                   "require": ["cuda"]})
    assert status == "fail" and result["changed"] is False
    assert result["unmet"] == [
        "GPU 0 (NVIDIA GeForce RTX 5090, sm_120): min_verdict=native required, found none: torch 2.7.1+cu126 has "
        "no sm_120 SASS and no PTX <= compute_120: install a cu128+ wheel",
        "GPU 0 (NVIDIA GeForce RTX 5090, sm_120): cuda required, found the normal run failed: " + NO_KERNEL
        + ": see gpus[0].runs.normal"]
    assert result["msg"] == " | ".join(result["unmet"])
    assert result["gpus"][0]["kernel_image"]["verdict"] == "none"


def test_without_requirements_it_only_reports(host, run_module):
    host(RTX5090, CU126, "2.7.1+cu126", FAILED, FAILED, FAILED)
    status, result = run_module(torch_cuda_check, {"python": sys.executable})
    assert status == "exit" and result["unmet"] == []
    assert result["gpus"][0]["runs"]["normal"]["note"] == "expected: the build has no kernel image for sm_120"


def test_an_unexpected_outcome_is_a_warning(host, run_module):
    host(H100, CU130, "2.11.0+cu130", OK, FAILED, FAILED)
    status, result = run_module(torch_cuda_check, {"python": sys.executable})
    assert status == "exit"
    assert result["warnings"] == [
        "GPU 0 disable_ptx_jit run: unexpected: predicted to run because sm_90 SASS runs without JIT"]


def test_requiring_torch_compile_runs_it(host, run_module):
    calls = host(H100, CU130, "2.11.0+cu130", OK, OK, FAILED)
    status, result = run_module(torch_cuda_check, {"python": sys.executable, "require": ["torch_compile"]})
    assert status == "exit" and "compile" in calls
    assert result["gpus"][0]["probes"]["torch_compile"]["status"] == "ok"


def test_unknown_requirement_is_refused_with_the_valid_names(run_module):
    status, result = run_module(torch_cuda_check, {"require": ["native", "warp_drive"]})
    assert status == "fail"
    assert "warp_drive" in result["msg"]
    for name in ("cuda", "native", "forward_compatible", "native_sass_launch", "flash_attention", "triton",
                 "torch_compile", "fp8", "nccl", "torchvision", "torchaudio"):
        assert name in result["msg"]


def test_missing_and_non_executable_interpreters(tmp_path, run_module):
    status, result = run_module(torch_cuda_check, {"python": str(tmp_path / "python3")})
    assert (status, result["msg"]) == ("fail", "Python interpreter %s does not exist" % (tmp_path / "python3"))
    plain = tmp_path / "python"
    plain.write_text("")
    status, result = run_module(torch_cuda_check, {"python": str(plain)})
    assert (status, result["msg"]) == ("fail", "Python interpreter %s is not an executable file" % plain)


def test_torch_not_installed_in_the_default_interpreter(run_module):
    status, result = run_module(torch_cuda_check, {})  # the test runner's Python, which has no torch
    assert (status, result["msg"]) == ("fail", "torch is not installed in %s" % sys.executable)


@needs_torch
def test_cpu_torch_reports_and_fails_only_when_something_is_required(run_module):
    status, result = run_module(torch_cuda_check, {"python": TORCH_PYTHON})
    assert status == "exit" and result["gpus"] == []
    version = result["build"]["torch_version"]
    assert result["cuda"] == {"available": False, "reason": "torch %s was built without CUDA" % version}
    status, result = run_module(torch_cuda_check, {"python": TORCH_PYTHON, "min_verdict": "native"})
    assert status == "fail"
    assert result["msg"] == (
        "min_verdict=native required, but CUDA is not usable from %s (torch %s): torch %s was built without "
        "CUDA: install a CUDA build of torch (a cuXYZ wheel)" % (TORCH_PYTHON, version, version))
