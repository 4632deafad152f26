"""The child sources, run for real: without torch, and with a CPU-only torch (no GPU needed)."""
from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import emit_result_source, run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.child import (
    GPU_PARTS, PRELUDE, companions_source, facts_source, gpu_source)
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.probes import PROBES_SOURCE
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.native_sass import SASS_SOURCE

TORCH_PYTHON = os.environ.get("BLACKWELL_TEST_TORCH_PYTHON")
needs_torch = pytest.mark.skipif(not TORCH_PYTHON, reason="needs a torch interpreter; make test sets "
                                 "BLACKWELL_TEST_TORCH_PYTHON")


def run(source, *args, **kwargs):
    result = run_child(kwargs.pop("python", TORCH_PYTHON), source, args=args, timeout=120, **kwargs)
    assert result["status"] == "ok", result
    return result["result"]


@pytest.mark.parametrize("parts", [GPU_PARTS, ("ops",), ("compile",), ("ops", "sass")])
def test_gpu_sources_compile(parts):
    compile(gpu_source(parts), "<gpu child>", "exec")


def test_unknown_gpu_part_is_refused():
    with pytest.raises(ValueError, match="unknown GPU child part"):
        gpu_source(("ops", "fly"))


@pytest.mark.parametrize("source", [facts_source, companions_source])
def test_without_torch(source):
    result = run(source(), python=sys.executable)
    assert result["torch_missing"] is True
    assert result["torch_import_error"] == "ModuleNotFoundError: No module named 'torch'"


@needs_torch
def test_facts_of_a_cpu_build():
    facts = run(facts_source())
    assert facts["cuda"] is None and facts["cuda_available"] is False and facts["devices"] == []
    assert facts["cuda_unavailable_reason"] == "torch %s was built without CUDA" % facts["torch_version"]
    assert facts["nccl_available"] is False and facts["arch_list"] == []
    assert set(facts["phases"]) == {"import_torch", "build_and_devices"}


@needs_torch
def test_companions_child_reports_each_package():
    companions = run(companions_source())
    for name in ("torchvision", "torchaudio"):
        if companions[name]["import_error"]:  # this venv may or may not hold them
            assert companions[name]["import_error"].startswith("ModuleNotFoundError")
        else:
            assert companions[name]["version"]


@needs_torch
def test_gpu_child_reports_cuda_init_failure():
    result = run(gpu_source(("ops", "probes")), 0, "ops,probes")
    assert result["init"] == {"status": "failed", "error": "AssertionError: Torch not compiled with CUDA enabled"}
    assert "ops" not in result


PROBES_ON_CPU = emit_result_source() + PRELUDE + PROBES_SOURCE + r'''
import torch
cpu = torch.device("cpu")
result = dict((name, timed(probe_sdpa, cpu, attr)) for name, attr in SDPA_BACKENDS)
result["bf16"] = timed(probe_bf16, cpu)
result["fp8_on_ampere"] = timed(probe_fp8, cpu, (8, 6))
result["skipped_after_failed_ops"] = part_probes(0, (9, 0), {"ops": {"status": "failed", "error": "boom"}})
emit(result)
'''


@needs_torch
def test_probe_code_on_the_cpu():
    """The probes take a device: on the CPU the math backend runs and the fused ones are refused."""
    result = run(PROBES_ON_CPU)
    assert result["math_attention"]["status"] == "ok" and result["math_attention"]["relative_error"] < 2e-2
    assert result["efficient_attention"]["status"] == "unavailable"
    assert result["bf16"]["status"] == "ok"
    assert result["fp8_on_ampere"]["status"] == "skipped"
    assert result["fp8_on_ampere"]["reason"] == "compute capability 8.6 < 8.9: no FP8 tensor cores"
    skipped = result["skipped_after_failed_ops"]
    assert sorted(skipped) == sorted(["flash_attention", "efficient_attention", "cudnn_attention",
                                      "math_attention", "triton", "bf16", "fp8"])
    assert skipped["triton"] == {"status": "skipped", "reason": "the basic op mix failed on this GPU: boom"}


SASS_WITHOUT_NVRTC = emit_result_source() + PRELUDE + SASS_SOURCE + r'''
def nvrtc_candidates():
    return ["/nonexistent/libnvrtc.so.13"]


emit(part_sass(0, (12, 0), {}))
'''


@needs_torch
def test_native_sass_launch_without_nvrtc_is_unavailable():
    result = run(SASS_WITHOUT_NVRTC)
    assert (result["status"], result["arch"], result["nvrtc"]) == ("unavailable", "sm_120", None)
    assert result["error"].startswith("no loadable libnvrtc (torch's nvidia wheels, CUDA_HOME, /usr/local/cuda, "
                                      "ldconfig); tried /nonexistent/libnvrtc.so.13 (")
