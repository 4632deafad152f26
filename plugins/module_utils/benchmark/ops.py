# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: the per-device tests (GEMMs, copies, SDPA, conv2d, LayerNorm, softmax).

Each test is `op(bench, size, dtype)` and returns {times_s, inner, warmup_calls, sets,
check}: per-call seconds of each repetition and a correctness check of the op's output.
A GEMM is checked against a float64 product of the same inputs on a slice (64x64 of the
output), so a wrong kernel cannot post a fast time; the other ops against float64 on a
few rows, copies by comparing bytes. The parent turns times into rates.

Runs inside the child process (torch is passed in), Python 3.9 compatible, no Ansible import.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import (
    Timer, check_close, check_equal, measure, random_tensor, rotation_sets, tensor_bytes)

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from torch import Tensor, dtype as DType

MIB = 1024 * 1024
# ||out - ref|| / ||ref|| bounds against float64 on the same (already rounded) inputs: the
# error left is accumulation and output rounding. fp32 sits far under TF32's ~4e-4, so a
# matmul that silently ran in TF32 fails the fp32 check.
GEMM_BOUNDS = {"fp64": 1e-10, "fp32": 5e-5, "tf32": 2e-3, "fp16": 2e-3, "bf16": 1e-2, "fp8": 1e-2}
BF16_OP_BOUND = 2e-2  # sdpa, conv2d, layernorm, softmax in bf16
_SLICE = 64
_ROWS = 8


class Bench:
    """What a test needs: torch, the device, a timer, the timing settings and the cache size."""

    def __init__(self, torch, device, settings, cache_bytes):
        self.torch = torch
        self.device = device
        self.timer = Timer(torch, device)
        self.settings = settings
        self.cache_bytes = cache_bytes

    def dtype(self, name: str) -> DType:
        torch = self.torch
        return {"fp16": torch.float16, "bf16": torch.bfloat16, "tf32": torch.float32,
                "fp32": torch.float32, "fp64": torch.float64, "fp8": torch.float8_e4m3fn}[name]

    def random(self, shape: Sequence[int], dtype: DType) -> Tensor:
        return random_tensor(self.torch, shape, dtype, self.device)

    def input_sets(self, make: Callable[[], Sequence[Tensor]]) -> list[Sequence[Tensor]]:
        """One set of inputs from make(), plus as many more as it takes to defeat the cache."""
        first = make()
        count = rotation_sets(tensor_bytes(*first), self.cache_bytes)
        return [first] + [make() for dummy in range(count - 1)]

    def run(self, call: Callable[[int], object], sets: int) -> dict[str, Any]:
        settings = self.settings
        result = measure(self.timer, call, settings["reps"], settings["warmup_s"], settings["min_rep_s"])
        result["sets"] = sets
        return result


def gemm(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    m, n, k = size["m"], size["n"], size["k"]
    if dtype_name == "fp8":
        return _gemm_fp8(bench, m, n, k)
    dtype = bench.dtype(dtype_name)
    torch.set_float32_matmul_precision("high" if dtype_name == "tf32" else "highest")
    try:
        sets = bench.input_sets(lambda: (bench.random((m, k), dtype), bench.random((k, n), dtype)))
        out = torch.empty((m, n), dtype=dtype, device=bench.device)

        def call(index):
            a, b = sets[index % len(sets)]
            torch.matmul(a, b, out=out)

        result = bench.run(call, len(sets))
        a, b = sets[0]
        torch.matmul(a, b, out=out)
        ref = a[:_SLICE].double() @ b[:, :_SLICE].double()
    finally:
        torch.set_float32_matmul_precision("highest")
    result["check"] = check_close(torch, out[:_SLICE, :_SLICE], ref, GEMM_BOUNDS[dtype_name])
    return result


def _gemm_fp8(bench, m, n, k):
    torch = bench.torch
    fp8 = bench.dtype("fp8")
    scale = torch.ones((), dtype=torch.float32, device=bench.device)
    # _scaled_mm wants A row-major and B column-major: keep B as (n, k) rows and pass B.t().
    sets = bench.input_sets(lambda: (bench.random((m, k), fp8), bench.random((n, k), fp8)))

    def call(index):
        a, b_rows = sets[index % len(sets)]
        return torch._scaled_mm(a, b_rows.t(), scale_a=scale, scale_b=scale, out_dtype=torch.bfloat16)

    result = bench.run(call, len(sets))
    out = call(0)
    a, b_rows = sets[0]
    ref = a[:_SLICE].float().double() @ b_rows[:_SLICE].float().double().t()
    result["check"] = check_close(torch, out[:_SLICE, :_SLICE], ref, GEMM_BOUNDS["fp8"])
    return result


def gemm_batched(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    dtype = bench.dtype(dtype_name)
    batch, m, n, k = size["batch"], size["m"], size["n"], size["k"]
    sets = bench.input_sets(lambda: (bench.random((batch, m, k), dtype), bench.random((batch, k, n), dtype)))
    out = torch.empty((batch, m, n), dtype=dtype, device=bench.device)

    def call(index):
        a, b = sets[index % len(sets)]
        torch.bmm(a, b, out=out)

    result = bench.run(call, len(sets))
    a, b = sets[0]
    torch.bmm(a, b, out=out)
    ref = a[0, :_SLICE].double() @ b[0, :, :_SLICE].double()
    result["check"] = check_close(torch, out[0, :_SLICE, :_SLICE], ref, GEMM_BOUNDS[dtype_name])
    return result


def memcpy(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    nbytes = size["mib"] * MIB
    sets = bench.input_sets(lambda: (bench.random((nbytes,), torch.uint8),
                                     torch.empty((nbytes,), dtype=torch.uint8, device=bench.device)))

    def call(index):
        src, dst = sets[index % len(sets)]
        dst.copy_(src)

    result = bench.run(call, len(sets))
    src, dst = sets[0]
    dst.copy_(src)
    result["check"] = check_equal(torch, dst, src)
    return result


def _pinned(bench, nbytes, fill):
    torch = bench.torch
    host = torch.empty((nbytes,), dtype=torch.uint8, pin_memory=True)
    if fill:
        host.copy_(bench.random((nbytes,), torch.uint8))
    return host


def _host_copy(bench, size, to_device):
    """One pinned host buffer and one device buffer of size["mib"] MiB; the copy one way, then its check."""
    torch = bench.torch
    nbytes = size["mib"] * MIB
    if to_device:
        src, dst = _pinned(bench, nbytes, fill=True), torch.empty((nbytes,), dtype=torch.uint8, device=bench.device)
    else:
        src, dst = bench.random((nbytes,), torch.uint8), _pinned(bench, nbytes, fill=False)
    result = bench.run(lambda index: dst.copy_(src, non_blocking=True), 1)
    bench.timer.sync()
    result["check"] = check_equal(torch, dst, src)
    return result


def h2d(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    return _host_copy(bench, size, to_device=True)


def d2h(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    return _host_copy(bench, size, to_device=False)


def sdpa_backend(torch: ModuleType, q: Tensor, k: Tensor, v: Tensor) -> str | None:
    """The name of the SDPA backend torch picks by default for these inputs ("CUDNN_ATTENTION",
    "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "MATH"), or None where torch cannot say."""
    try:
        from torch.nn.attention import SDPBackend
        return SDPBackend(torch._fused_sdp_choice(q, k, v)).name
    except Exception:  # an older torch without the choice function, or a backend number it does not name
        return None


def sdpa(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    """SDPA forward through the backend torch picks by default (what a model gets), named in `backend`."""
    torch = bench.torch
    attention = torch.nn.functional.scaled_dot_product_attention
    dtype = bench.dtype(dtype_name)
    shape = (size["batch"], size["heads"], size["seq"], size["head_dim"])
    sets = bench.input_sets(lambda: tuple(bench.random(shape, dtype) for dummy in range(3)))
    result = bench.run(lambda index: attention(*sets[index % len(sets)]), len(sets))
    q, k, v = sets[0]
    out = attention(q, k, v)
    result["backend"] = sdpa_backend(torch, q, k, v)
    scores = q[0, 0, :_ROWS].double() @ k[0, 0].double().t() / math.sqrt(size["head_dim"])
    ref = torch.softmax(scores, dim=-1) @ v[0, 0].double()
    result["check"] = check_close(torch, out[0, 0, :_ROWS], ref, BF16_OP_BOUND)
    return result


def conv2d(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    conv = torch.nn.functional.conv2d
    dtype = bench.dtype(dtype_name)
    channels, kernel, pad = size["channels"], size["kernel"], size["kernel"] // 2
    torch.backends.cudnn.benchmark = True
    weight = bench.random((channels, channels, kernel, kernel), dtype).contiguous(memory_format=torch.channels_last)
    sets = bench.input_sets(lambda: (bench.random((size["batch"], channels, size["height"], size["width"]), dtype)
                                     .contiguous(memory_format=torch.channels_last),))
    result = bench.run(lambda index: conv(sets[index % len(sets)][0], weight, padding=pad), len(sets))
    x = sets[0][0][:1]
    ref = conv(x.double(), weight.double(), padding=pad)
    result["check"] = check_close(torch, conv(x, weight, padding=pad), ref, BF16_OP_BOUND)
    return result


def layernorm(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    layer_norm = torch.nn.functional.layer_norm
    dtype = bench.dtype(dtype_name)
    cols = size["cols"]
    weight, bias = bench.random((cols,), dtype), bench.random((cols,), dtype)
    sets = bench.input_sets(lambda: (bench.random((size["rows"], cols), dtype),))
    result = bench.run(lambda index: layer_norm(sets[index % len(sets)][0], (cols,), weight, bias), len(sets))
    x = sets[0][0][:_ROWS]
    ref = layer_norm(x.double(), (cols,), weight.double(), bias.double())
    result["check"] = check_close(torch, layer_norm(x, (cols,), weight, bias), ref, BF16_OP_BOUND)
    return result


def softmax(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    dtype = bench.dtype(dtype_name)
    sets = bench.input_sets(lambda: (bench.random((size["rows"], size["cols"]), dtype),))
    result = bench.run(lambda index: torch.softmax(sets[index % len(sets)][0], dim=-1), len(sets))
    x = sets[0][0][:_ROWS]
    result["check"] = check_close(torch, torch.softmax(x, dim=-1), torch.softmax(x.double(), dim=-1), BF16_OP_BOUND)
    return result


OPS = {"gemm": gemm, "gemm_batched": gemm_batched, "memcpy": memcpy, "h2d": h2d, "d2h": d2h,
       "sdpa": sdpa, "conv2d": conv2d, "layernorm": layernorm, "softmax": softmax}
