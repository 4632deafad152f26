# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: the low-precision GEMMs beside gemm_fp8 (per-tensor scales, ops.py).

- gemm_fp8_rowwise: e4m3 inputs, one fp32 scale per row of A and per column of B (torch._scaled_mm);
- gemm_mxfp8 / gemm_mxfp8_nn: e4m3 inputs, one e8m0 scale per 32 elements along K, A row-major and B
  column-major (TN) or both row-major (NN);
- gemm_nvfp4: e2m1 inputs packed two a byte (float4_e2m1fn_x2), one e4m3 scale per 16 elements along K;
- gemm_grouped_fp8: `groups` products of (M,K)x(K,N) in one torch._scaled_grouped_mm call, row-wise scales.
Every output is bf16. Every scale of A is 2 and of B 1/2 (exact in each scale type, not 1, so a kernel that
ignores its scales fails the check); the check compares a 64x64 slice with a float64 product of the same inputs
(for the grouped GEMM, of the first and the last group). Scales of one value make their blocked layout moot.

What torch or cuBLAS does not offer here is refused, not failed (refusals.py): the op returns {"skipped": why}
("torch 2.7.1+cu128 has no float4_e2m1fn_x2", "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for FP8 row-wise on
sm_120 with torch 2.10.0+cu130 (pytorch/pytorch#192707)"). A refusal is decided on the first call, before any
timing. Runs inside the child (torch passed in), Python 3.9 compatible, no Ansible import.
"""
from __future__ import annotations

import ctypes
import functools
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.refusals import (
    is_refusal, missing_text, refusal_text)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import check_close

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from torch import Tensor, device as Device
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.ops import Bench

BOUND = 1e-2  # bf16 output of products of exactly representable inputs, accumulated in FP32
SCALE_A, SCALE_B = 2.0, 0.5
E8M0 = {2.0: 128, 0.5: 126}  # e8m0 holds 2^(byte - 127)
FP4_VALUES = (0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0)  # e2m1 magnitudes; bit 3 is the sign
_SLICE = 64


class Refused(Exception):
    """The recipe is not offered by this GPU, torch or cuBLAS; the message says which and why."""


def stack_text(torch: ModuleType) -> str:
    """"torch 2.11.0+cu130", with ", cuBLASLt 13.1.0" once a GEMM has loaded it."""
    cublaslt = cublaslt_version()
    return "torch %s%s" % (torch.__version__, ", cuBLASLt %s" % cublaslt if cublaslt else "")


def sm_name(torch: ModuleType, device: Device) -> str:
    major, minor = torch.cuda.get_device_capability(device)
    return "sm_%d%d" % (major, minor)


def _needs(torch, *names):
    missing = [name for name in names if not hasattr(torch, name)]
    if missing:
        raise Refused(missing_text(stack_text(torch), missing))


def _first(bench, recipe, call):
    """The first call, which says whether the recipe runs here at all: its output, or Refused."""
    try:
        return call(0)
    except Exception as exc:  # torch raises RuntimeError, NotImplementedError or ValueError for what it lacks
        if is_refusal(type(exc).__name__, str(exc)):
            raise Refused(refusal_text(recipe, sm_name(bench.torch, bench.device), stack_text(bench.torch), str(exc)))
        raise


def recipe_op(*needs: str) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., dict[str, Any]]]:
    """An op of this module: a torch without `needs` (attributes of torch) refuses the recipe by name, and a Refused
    raised inside (by its first call, _first) becomes the skipped figure with its reason."""
    def wrap(func):
        @functools.wraps(func)
        def op(bench, size, dtype_name):
            try:
                _needs(bench.torch, *needs)
                return func(bench, size, dtype_name)
            except Refused as refused:
                return {"skipped": str(refused)}
        return op
    return wrap


def _timed(bench, recipe, sets, call, check):
    out = _first(bench, recipe, call)
    result = bench.run(call, len(sets))
    result["check"] = check(out)
    return result


def _fp8_pair(bench, m, n, k):
    fp8 = bench.torch.float8_e4m3fn
    return bench.input_sets(lambda: (bench.random((m, k), fp8), bench.random((n, k), fp8)))


def _reference(torch, a_rows, b_rows):
    """float64 product of A's first rows and B's first rows (B kept as (n, k)), times the scales."""
    return (a_rows.to(torch.float64) @ b_rows.to(torch.float64).t()) * (SCALE_A * SCALE_B)


def _scaled_gemm(bench, recipe, m, n, k, scales, nn=False):
    torch = bench.torch
    sets = _fp8_pair(bench, m, n, k)
    if nn:  # B row-major (k, n): a copy of each set's B, made once
        sets = [(a, b_rows, b_rows.t().contiguous()) for a, b_rows in sets]
    scale_a, scale_b = scales

    def call(index):
        entry = sets[index % len(sets)]
        b = entry[2] if nn else entry[1].t()
        return torch._scaled_mm(entry[0], b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)

    def check(out):
        ref = _reference(torch, sets[0][0][:_SLICE].float(), sets[0][1][:_SLICE].float())
        return check_close(torch, out[:_SLICE, :_SLICE], ref, BOUND)

    return _timed(bench, recipe, sets, call, check)


@recipe_op()
def gemm_fp8_rowwise(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    m, n, k = size["m"], size["n"], size["k"]
    scales = (torch.full((m, 1), SCALE_A, dtype=torch.float32, device=bench.device),
              torch.full((1, n), SCALE_B, dtype=torch.float32, device=bench.device))
    return _scaled_gemm(bench, "FP8 row-wise", m, n, k, scales)


def _e8m0(torch, rows, blocks, value, device):
    return torch.full((rows, blocks), E8M0[value], dtype=torch.uint8, device=device).view(torch.float8_e8m0fnu)


def _mxfp8(bench, size, nn):
    torch = bench.torch
    recipe = "MXFP8 (NN)" if nn else "MXFP8 (TN)"
    m, n, k = size["m"], size["n"], size["k"]
    scales = (_e8m0(torch, m, k // 32, SCALE_A, bench.device), _e8m0(torch, n, k // 32, SCALE_B, bench.device))
    return _scaled_gemm(bench, recipe, m, n, k, scales, nn=nn)


@recipe_op("float8_e8m0fnu")
def gemm_mxfp8(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    return _mxfp8(bench, size, nn=False)


@recipe_op("float8_e8m0fnu")
def gemm_mxfp8_nn(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    return _mxfp8(bench, size, nn=True)


def fp4_values(torch: ModuleType, packed: Tensor) -> Tensor:
    """The float32 values of e2m1 pairs packed in bytes (uint8), two per byte, low nibble first. (The order of
    the two matters not to the check: A and B are unpacked alike, so a swap pairs the same products.)"""
    table = torch.tensor(FP4_VALUES + tuple(-value for value in FP4_VALUES), dtype=torch.float32,
                         device=packed.device)
    low, high = (packed & 0x0F).long(), (packed >> 4).long()
    return torch.stack((table[low], table[high]), dim=-1).reshape(packed.shape[0], packed.shape[1] * 2)


@recipe_op("float4_e2m1fn_x2")
def gemm_nvfp4(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    m, n, k = size["m"], size["n"], size["k"]
    fp4 = torch.float4_e2m1fn_x2
    sets = bench.input_sets(lambda: (bench.random((m, k // 2), torch.uint8), bench.random((n, k // 2), torch.uint8)))
    scale_a = torch.full((m, k // 16), SCALE_A, device=bench.device).to(torch.float8_e4m3fn)
    scale_b = torch.full((n, k // 16), SCALE_B, device=bench.device).to(torch.float8_e4m3fn)

    def call(index):
        a, b_rows = sets[index % len(sets)]
        return torch._scaled_mm(a.view(fp4), b_rows.view(fp4).t(), scale_a=scale_a, scale_b=scale_b,
                                out_dtype=torch.bfloat16)

    def check(out):
        a, b_rows = sets[0]
        ref = _reference(torch, fp4_values(torch, a[:_SLICE]), fp4_values(torch, b_rows[:_SLICE]))
        return check_close(torch, out[:_SLICE, :_SLICE], ref, BOUND)

    return _timed(bench, "NVFP4", sets, call, check)


@recipe_op("_scaled_grouped_mm")
def gemm_grouped_fp8(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    groups, m, n, k = size["groups"], size["m"], size["n"], size["k"]
    fp8 = torch.float8_e4m3fn
    sets = bench.input_sets(lambda: (bench.random((groups * m, k), fp8), bench.random((groups, n, k), fp8)))
    offsets = torch.arange(m, groups * m + 1, m, dtype=torch.int32, device=bench.device)
    scale_a = torch.full((groups * m,), SCALE_A, dtype=torch.float32, device=bench.device)
    scale_b = torch.full((groups, n), SCALE_B, dtype=torch.float32, device=bench.device)

    def call(index):
        a, b = sets[index % len(sets)]
        return torch._scaled_grouped_mm(a, b.transpose(-2, -1), scale_a, scale_b, offs=offsets,
                                        out_dtype=torch.bfloat16)

    def check(out):
        a, b = sets[0]
        last = (groups - 1) * m
        got = torch.cat((out[:_SLICE, :_SLICE], out[last:last + _SLICE, :_SLICE]))
        ref = torch.cat((_reference(torch, a[:_SLICE].float(), b[0, :_SLICE].float()),
                         _reference(torch, a[last:last + _SLICE].float(), b[groups - 1, :_SLICE].float())))
        return check_close(torch, got, ref, BOUND)

    return _timed(bench, "grouped FP8", sets, call, check)


def cublaslt_version(maps: str = "/proc/self/maps") -> str | None:
    """"13.1.0": the cuBLASLt this process loaded (after a GEMM), from its own cublasLtGetVersion(); None when
    none is loaded or it cannot say."""
    try:
        with open(maps) as stream:
            paths = [line.split()[-1] for line in stream if "libcublasLt" in line and "/" in line]
        if not paths:
            return None
        library = ctypes.CDLL(paths[0])
        library.cublasLtGetVersion.restype = ctypes.c_size_t
        version = int(library.cublasLtGetVersion())
    except (OSError, AttributeError, ValueError):
        return None
    return "%d.%d.%d" % (version // 10000, version % 10000 // 100, version % 100)


OPS = {"gemm_fp8_rowwise": gemm_fp8_rowwise, "gemm_mxfp8": gemm_mxfp8, "gemm_mxfp8_nn": gemm_mxfp8_nn,
       "gemm_nvfp4": gemm_nvfp4, "gemm_grouped_fp8": gemm_grouped_fp8}
