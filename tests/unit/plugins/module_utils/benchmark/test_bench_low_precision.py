"""The low-precision recipes: each is measured or refused by name, never a traceback or a hang.

The child's op functions run here with a fake torch (no GPU can produce a refusal of another GPU): the refusal is
decided on the first call, before any timing, so the fake only needs to get that far. The timeout runs the real
child program with a fake torch package whose scaled GEMM never returns."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import ansible_collections

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import low_precision as lowp
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.capability import block, line
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.child import child_program
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.refusals import is_refusal, refusal_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import _child, _missing

SIZE = {"m": 256, "n": 256, "k": 256}
REAL_CUBLASLT_VERSION = lowp.cublaslt_version
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), *[os.pardir] * 5))
TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")  # the unit layer's CPU torch
NOT_SUPPORTED = ("CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasLtMatmulAlgoGetHeuristic( ltHandle, "
                 "computeDesc.descriptor(), Adesc.descriptor(), ...)`")
NN_TEXT = "Only multiplication of row-major and column-major matrices is supported by cuBLASLt"  # torch 2.11, H200


class FakeTensor:
    def view(self, *args):
        return self

    def t(self):
        return self

    def contiguous(self):
        return self

    def transpose(self, *args):
        return self

    def to(self, *args):
        return self


def fake_torch(version="2.11.0+cu130", capability=(12, 0), error=None, lacks=()):
    """Just enough torch for a low-precision op to reach its first scaled GEMM, which raises `error`."""
    def scaled(*args, **kwargs):
        raise error

    torch = types.SimpleNamespace(
        __version__=version, float32="float32", bfloat16="bfloat16", uint8="uint8", int32="int32",
        float8_e4m3fn="e4m3", float8_e8m0fnu="e8m0", float4_e2m1fn_x2="e2m1x2",
        full=lambda *args, **kwargs: FakeTensor(), arange=lambda *args, **kwargs: FakeTensor(),
        _scaled_mm=scaled, _scaled_grouped_mm=scaled,
        cuda=types.SimpleNamespace(get_device_capability=lambda device: capability))
    for name in lacks:
        delattr(torch, name)
    return torch


class FakeBench:
    def __init__(self, torch):
        self.torch, self.device = torch, "cuda:0"

    def random(self, shape, dtype):
        return FakeTensor()

    def input_sets(self, make):
        return [make()]

    def run(self, call, sets):
        raise AssertionError("a refused recipe is never timed")


@pytest.fixture(autouse=True)
def no_cublas(monkeypatch):
    monkeypatch.setattr(lowp, "cublaslt_version", lambda: None)  # this process has no cuBLASLt


@pytest.mark.parametrize("op, size, lacks, reason", [
    (lowp.gemm_nvfp4, SIZE, ("float4_e2m1fn_x2",), "torch 2.7.1+cu128 has no float4_e2m1fn_x2"),
    (lowp.gemm_mxfp8, SIZE, ("float8_e8m0fnu",), "torch 2.7.1+cu128 has no float8_e8m0fnu"),
    (lowp.gemm_mxfp8_nn, SIZE, ("float8_e8m0fnu",), "torch 2.7.1+cu128 has no float8_e8m0fnu"),
    (lowp.gemm_grouped_fp8, dict(SIZE, groups=2), ("_scaled_grouped_mm",),
     "torch 2.7.1+cu128 has no _scaled_grouped_mm"),
])
def test_a_torch_without_what_a_recipe_needs_refuses_it_by_name(op, size, lacks, reason):
    assert op(FakeBench(fake_torch("2.7.1+cu128", lacks=lacks)), size, None) == {"skipped": reason}


@pytest.mark.parametrize("op, size, capability, reason", [
    (lowp.gemm_fp8_rowwise, SIZE, (12, 0), "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for FP8 row-wise on sm_120 "
                                           "with torch 2.10.0+cu130 (pytorch/pytorch#192707)"),
    (lowp.gemm_mxfp8_nn, SIZE, (12, 0), "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for MXFP8 (NN) on sm_120 "
                                        "with torch 2.10.0+cu130 (pytorch/pytorch#198126)"),
    (lowp.gemm_nvfp4, SIZE, (12, 0), "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for NVFP4 on sm_120 "
                                     "with torch 2.10.0+cu130"),
    (lowp.gemm_mxfp8, SIZE, (10, 0), "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for MXFP8 (TN) on sm_100 "
                                     "with torch 2.10.0+cu130"),
])
def test_a_cublas_not_supported_status_is_a_named_refusal(op, size, capability, reason):
    torch = fake_torch("2.10.0+cu130", capability, RuntimeError(NOT_SUPPORTED))
    assert op(FakeBench(torch), size, None) == {"skipped": reason}


def test_torch_s_own_refusal_is_quoted_with_the_gpu_and_the_stack(monkeypatch):
    monkeypatch.setattr(lowp, "cublaslt_version", lambda: "13.1.0")
    torch = fake_torch("2.11.0+cu130", (10, 0), RuntimeError(NN_TEXT))
    assert lowp.gemm_mxfp8_nn(FakeBench(torch), SIZE, None) == {"skipped": (
        "torch 2.11.0+cu130, cuBLASLt 13.1.0 does not run MXFP8 (NN) on sm_100: " + NN_TEXT)}
    grouped = fake_torch("2.11.0+cu130", (12, 0), NotImplementedError("grouped gemm is not implemented for sm_120"))
    assert lowp.gemm_grouped_fp8(FakeBench(grouped), dict(SIZE, groups=2), None)["skipped"].startswith(
        "torch 2.11.0+cu130, cuBLASLt 13.1.0 does not run grouped FP8 on sm_120: grouped gemm is not implemented")


def test_an_error_that_is_not_a_refusal_stays_a_failure():
    torch = fake_torch(error=RuntimeError("CUDA error: an illegal memory access was encountered"))
    with pytest.raises(RuntimeError, match="illegal memory access"):
        lowp.gemm_fp8_rowwise(FakeBench(torch), SIZE, None)
    assert not is_refusal("RuntimeError", "CUDA error: no kernel image is available for execution on the device")
    # the device failing in words a refusal also uses: still a failure
    assert not is_refusal("RuntimeError", "CUDA error: operation not supported\nCUDA kernel errors might be "
                                          "asynchronously reported at some other API call")
    assert is_refusal("RuntimeError", "CUDA error: %s when calling `cublasLtMatmul( ...)`" % NOT_SUPPORTED)
    assert is_refusal("NotImplementedError", "") and is_refusal("RuntimeError", NOT_SUPPORTED)


def test_a_refusal_without_a_message_still_reads():
    assert refusal_text("NVFP4", "sm_121", "torch 2.12.0+cu130", "") == \
        "torch 2.12.0+cu130 does not run NVFP4 on sm_121: no message"


def test_the_cublaslt_version_comes_from_the_library_this_process_loaded(tmp_path):
    maps = tmp_path / "maps"
    maps.write_text("7f00-7f10 r-xp 00000000 08:01 1 /usr/lib/libc.so.6\n")
    assert REAL_CUBLASLT_VERSION(str(maps)) is None
    maps.write_text("7f00-7f10 r-xp 00000000 08:01 1 /nowhere/libcublasLt.so.13\n")
    assert REAL_CUBLASLT_VERSION(str(maps)) is None  # named but not loadable: not known, no error


def test_fp4_values_unpack_two_e2m1_numbers_per_byte_with_a_real_torch():
    code = ("import json, torch\n"
            "from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.low_precision import fp4_values\n"
            "packed = torch.tensor([[0x21, 0xF8], [0x7F, 0x00]], dtype=torch.uint8)\n"
            "print(json.dumps(fp4_values(torch, packed).tolist()))\n")
    collections = os.path.dirname(list(ansible_collections.__path__)[0])
    out = subprocess.run([TORCH_PYTHON, "-c", code], env=dict(os.environ, PYTHONPATH=collections), check=True,
                         stdout=subprocess.PIPE, universal_newlines=True).stdout
    # low nibble first: 0x21 -> 1 (0.5), 2 (1.0); 0xF8 -> 8 (-0.0), 15 (-6.0); 0x7F -> 15 (-6.0), 7 (6.0)
    assert json.loads(out) == [[0.5, 1.0, -0.0, -6.0], [-6.0, 6.0, 0.0, 0.0]]


H200_ROWS = {
    "gemm_fp8": {"status": "ok", "value": 1446.7, "unit": "TFLOP/s", "fraction_of_peak": 0.731, "error": None},
    "gemm_fp8_rowwise": {"status": "ok", "value": 1408.4, "unit": "TFLOP/s", "fraction_of_peak": 0.7117,
                         "error": None},
    "gemm_mxfp8": {"status": "skipped", "value": None, "unit": "TFLOP/s", "fraction_of_peak": None,
                   "error": "not supported on sm_90: MXFP8 needs compute capability 10.0+"},
}
LIBRARIES = {"torch": "2.11.0+cu130", "cuda": "13.0", "cublaslt": "13.1.0", "driver": "580.159.04"}


def test_the_capability_block_answers_for_every_recipe():
    got = block(H200_ROWS, (9, 0), {"version": "2.11.0+cu130", "cuda": "13.0"}, "13.1.0", "580.159.04")
    assert got["libraries"] == LIBRARIES
    assert [(row["recipe"], row["state"], row["value"], row["reason"]) for row in got["recipes"]] == [
        ("FP8 per-tensor", "runs", 1446.7, None),
        ("FP8 row-wise", "runs", 1408.4, None),
        ("MXFP8 (TN)", "refused", None, "not supported on sm_90: MXFP8 needs compute capability 10.0+"),
        # not measured in this run, but the GPU's capability answers already
        ("MXFP8 (NN)", "refused", None, "not supported on sm_90: MXFP8 needs compute capability 10.0+"),
        ("NVFP4", "refused", None, "not supported on sm_90: NVFP4 needs compute capability 10.0+"),
        ("grouped FP8", "not_measured", None,
         "not measured in this run (the standard and full profiles measure it)"),
    ]
    assert line("GPU 0 NVIDIA H200", got) == (
        "GPU 0 NVIDIA H200 low precision: FP8 per-tensor 1447 TFLOP/s (0.73 of peak), FP8 row-wise 1408 TFLOP/s "
        "(0.71 of peak); refused: MXFP8 (TN) (not supported on sm_90: MXFP8 needs compute capability 10.0+), "
        "MXFP8 (NN) (not supported on sm_90: MXFP8 needs compute capability 10.0+), NVFP4 (not supported on sm_90: "
        "NVFP4 needs compute capability 10.0+); not measured: grouped FP8")


def test_a_rate_above_the_datasheet_peak_names_the_clock_it_ran_at():
    fast = {"status": "ok", "value": 1745.0, "unit": "TFLOP/s", "fraction_of_peak": 1.0412, "error": None,
            "telemetry": {"sm_clock_mhz": {"median": 2850.0}}}
    got = block({"gemm_nvfp4": fast}, (12, 0), {}, None, None)
    assert got["recipes"][4]["sm_clock_mhz"] == 2850.0
    assert line("GPU 0", got).startswith("GPU 0 low precision: NVFP4 1745 TFLOP/s (1.04 of peak, SM 2850 MHz); ")


def test_a_blackwell_quick_run_says_what_it_did_not_measure_and_an_old_result_says_nothing():
    quick = block({"gemm_fp8": H200_ROWS["gemm_fp8"]}, (12, 0), {}, None, None)
    assert [row["state"] for row in quick["recipes"]] == ["runs"] + ["not_measured"] * 5
    assert line("GPU 0", {"recipes": [{"recipe": "NVFP4", "state": "not_measured"}]}) is None
    assert line("GPU 0", None) is None
    wrong = block({"gemm_nvfp4": {"status": "wrong_result", "error": "result check failed"}}, (10, 0), {}, None, None)
    assert wrong["recipes"][4]["state"] == "wrong_result"
    assert line("GPU 0", wrong).endswith("wrong result: NVFP4 (result check failed); not measured: FP8 per-tensor, "
                                         "FP8 row-wise, MXFP8 (TN), MXFP8 (NN), grouped FP8")


HANGING_TORCH = '''
__version__ = "2.11.0+cu130"
import time
class device:
    def __init__(self, spec):
        self.type = spec.split(":")[0]
class _NoGrad:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return False
def no_grad():
    return _NoGrad()
class _DType:
    is_floating_point, itemsize = True, 1
float32 = bfloat16 = float8_e4m3fn = _DType()
class _Tensor:
    def numel(self):
        return 1
    def element_size(self):
        return 1
    def to(self, *args):
        return self
    def t(self):
        return self
def full(*args, **kwargs):
    return _Tensor()
randn = full
def _scaled_mm(*args, **kwargs):
    time.sleep(3600)
'''


def test_a_recipe_that_hangs_is_cut_at_the_child_s_timeout_and_reported(tmp_path):
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(HANGING_TORCH)
    plan = {"mode": "device", "device": "cpu", "gpu_lock": None,
            "settings": {"reps": 10, "warmup_s": 0.025, "min_rep_s": 0.001, "timeout": 2},
            "tests": [{"name": "gemm_fp8_rowwise", "op": "gemm_fp8_rowwise", "dtype": "fp8", "size": SIZE}]}
    result = _child(sys.executable, child_program(), plan, 2, env={"PYTHONPATH": str(tmp_path)})
    assert (result["status"], result["result"]) == ("timeout", None)
    fig = figure("gemm_fp8_rowwise", SIZE, None, {"peak": None, "peak_source": None}, _missing(result))
    assert (fig["status"], fig["error"]) == ("not_run", "the benchmark child timeout before this test: %s"
                                             % result["error"])
    assert block({"gemm_fp8_rowwise": fig}, (9, 0), {}, None, None)["recipes"][1]["state"] == "failed"


def test_a_refusal_fails_only_a_gate_that_names_its_test():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gates import evaluate, validate
    refused = {"skipped": "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for FP8 row-wise on sm_120 with torch "
                          "2.10.0+cu130 (pytorch/pytorch#192707)"}
    fig = figure("gemm_fp8_rowwise", dict(SIZE), refused, {"peak": 419.0, "peak_source": "table"})
    assert (fig["status"], fig["error"]) == ("skipped", refused["skipped"])
    document = {"devices": [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "figures": {"gemm_fp8_rowwise": fig}}]}
    assert evaluate({}, document, "ws-01") == []
    assert validate({"gemm_fp8_rowwise": {"min_tflops": 300}}, {}, "cuda") == []  # named like any test
    (failure,) = evaluate({"gemm_fp8_rowwise": {"min_tflops": 300}}, document, "ws-01")
    assert failure["reason"] == "no figure: skipped (%s)" % refused["skipped"]
    # refused by the GPU's capability before anything runs: the gate is refused with the reason, as for any test
    assert validate({"gemm_nvfp4": {"min_tflops": 1000}},
                    {"gemm_nvfp4": "not supported on sm_90: NVFP4 needs compute capability 10.0+ on GPU(s) 0"},
                    "cuda") == ["gate on gemm_nvfp4, a test that does not run: not supported on sm_90: NVFP4 "
                                "needs compute capability 10.0+ on GPU(s) 0"]
