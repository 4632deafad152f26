# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark suite: test names, what each counts, sizes per profile, validation.

Every test names its size and what its figure counts. Sizes are per profile for CUDA GPUs
and one small set for `device: cpu` (CPU mode exercises the same code paths, not the CPU's
speed). Pure data and functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

MIB = 1024 * 1024

PROFILES = {
    "quick": {"reps": 10, "timeout": 120},
    "standard": {"reps": 20, "timeout": 300},
    "full": {"reps": 30, "timeout": 900},
}
MIN_REPS = 10
# One timing window for every profile, close to triton.testing.do_bench's defaults (25 ms of
# warm-up, then ~0.1 s of repetitions): figures are burst rates, comparable across profiles.
# Longer load lowers them as power and clocks settle (H100 bf16 8192^3, measured: 792
# TFLOP/s after 50 ms of warm-up, 682 after 0.2 s of warm-up and 20 repetitions of 2 ms).
WARMUP_S = 0.025
MIN_REP_S = 0.001

_CORE = ["gemm_fp16", "gemm_bf16", "gemm_tf32", "gemm_fp32", "gemm_fp64", "gemm_fp8", "gemm_batched",
         "memcpy", "h2d", "d2h", "sdpa", "conv2d", "layernorm", "softmax", "p2p", "allreduce"]
# The low-precision recipes beside gemm_fp8 (low_precision.py): measured, or refused with the reason.
LOW_PRECISION = ["gemm_fp8_rowwise", "gemm_mxfp8", "gemm_mxfp8_nn", "gemm_nvfp4", "gemm_grouped_fp8"]
PROFILE_TESTS = {
    "quick": _CORE,
    "standard": _CORE + LOW_PRECISION + ["sustained"],
    "full": _CORE + LOW_PRECISION + ["sustained", "transformer_encoder", "resnet50", "compile_speedup"],
}
SUSTAINED_S = 25  # default duration of the sustained tests on a GPU (size key `seconds`)


def _gemm(dtype, quick, standard, devices=("cuda", "cpu"), **extra):
    sizes = {"quick": dict(m=quick, n=quick, k=quick), "standard": dict(m=standard, n=standard, k=standard),
             "full": dict(m=standard, n=standard, k=standard)}
    if "cpu" in devices:
        sizes["cpu"] = dict(m=256, n=256, k=256)
    return dict({
        "op": "gemm", "dtype": dtype, "unit": "TFLOP/s", "peak_kind": dtype, "keys": ("m", "n", "k"),
        "counts": "2*M*N*K FLOP per (M,K)x(K,N) product (dense)",
        "work": lambda s, world: 2.0 * s["m"] * s["n"] * s["k"], "sizes": sizes, "devices": devices,
    }, **extra)


def _sustained(dtype):
    gpu = dict(m=8192, n=8192, k=8192, seconds=SUSTAINED_S)
    return {
        "op": "sustained", "dtype": dtype, "unit": "TFLOP/s", "peak_kind": dtype, "keys": ("m", "n", "k", "seconds"),
        "counts": "2*M*N*K FLOP per product, products kept back to back for `seconds`; the value is the rate "
                  "of the last 5 seconds, `sustained` holds the first second's rate and the ratio",
        "work": lambda s, world: 2.0 * s["m"] * s["n"] * s["k"], "sustained": True,
        "sizes": {"quick": gpu, "standard": gpu, "full": gpu, "cpu": dict(m=256, n=256, k=256, seconds=3)},
    }


def _same(size, cpu):
    return {"quick": size, "standard": size, "full": size, "cpu": cpu}


TESTS = {
    "gemm_fp16": _gemm("fp16", 8192, 8192),
    "gemm_bf16": _gemm("bf16", 8192, 8192),
    "gemm_tf32": _gemm("tf32", 8192, 8192, devices=("cuda",)),
    "gemm_fp32": dict(_gemm("fp32", 4096, 8192), counts="2*M*N*K FLOP, TF32 off (IEEE FP32)"),
    "gemm_fp64": _gemm("fp64", 4096, 8192),
    "gemm_fp8": _gemm("fp8", 8192, 8192, devices=("cuda",), min_capability=(8, 9), multiple=16,
                      counts="2*M*N*K FLOP, e4m3 inputs, per-tensor scales, bf16 output (torch._scaled_mm)"),
    "gemm_fp8_rowwise": _gemm("fp8", 8192, 8192, devices=("cuda",), min_capability=(8, 9), multiple=16,
                              recipe="FP8 row-wise", op="gemm_fp8_rowwise",
                              counts="2*M*N*K FLOP, e4m3 inputs, one fp32 scale per row of A and per column of B, "
                                     "bf16 output (torch._scaled_mm)"),
    "gemm_mxfp8": _gemm("mxfp8", 8192, 8192, devices=("cuda",), min_capability=(10, 0), multiple=128,
                        recipe="MXFP8", op="gemm_mxfp8", peak_kind="fp8",
                        counts="2*M*N*K FLOP, e4m3 inputs, one e8m0 scale per 32 elements along K, TN layout "
                               "(A row-major, B column-major), bf16 output (torch._scaled_mm)"),
    "gemm_mxfp8_nn": _gemm("mxfp8", 8192, 8192, devices=("cuda",), min_capability=(10, 0), multiple=128,
                           recipe="MXFP8", op="gemm_mxfp8_nn", peak_kind="fp8",
                           counts="2*M*N*K FLOP, e4m3 inputs, one e8m0 scale per 32 elements along K, NN layout "
                                  "(A and B row-major), bf16 output (torch._scaled_mm)"),
    "gemm_nvfp4": _gemm("nvfp4", 8192, 8192, devices=("cuda",), min_capability=(10, 0), multiple=128,
                        recipe="NVFP4", op="gemm_nvfp4", peak_kind="fp4",
                        counts="2*M*N*K FLOP, e2m1 inputs packed two a byte (float4_e2m1fn_x2), one e4m3 scale "
                               "per 16 elements along K, bf16 output (torch._scaled_mm)"),
    "gemm_grouped_fp8": {
        "op": "gemm_grouped_fp8", "dtype": "fp8", "unit": "TFLOP/s", "peak_kind": "fp8", "devices": ("cuda",),
        "keys": ("groups", "m", "n", "k"), "min_capability": (8, 9), "multiple": 16, "recipe": "grouped FP8",
        "counts": "2*groups*M*N*K FLOP: `groups` products of (M,K)x(K,N) in one torch._scaled_grouped_mm call, "
                  "e4m3 inputs, row-wise fp32 scales, bf16 output",
        "work": lambda s, world: 2.0 * s["groups"] * s["m"] * s["n"] * s["k"],
        "sizes": {"quick": dict(groups=8, m=2048, n=4096, k=4096), "standard": dict(groups=8, m=2048, n=4096, k=4096),
                  "full": dict(groups=8, m=2048, n=4096, k=4096)},
    },
    "gemm_batched": {
        "op": "gemm_batched", "dtype": "bf16", "unit": "TFLOP/s", "peak_kind": "bf16",
        "keys": ("batch", "m", "n", "k"), "counts": "2*batch*M*N*K FLOP (bf16 bmm)",
        "work": lambda s, world: 2.0 * s["batch"] * s["m"] * s["n"] * s["k"],
        "sizes": {"quick": dict(batch=32, m=1024, n=1024, k=1024), "standard": dict(batch=64, m=1024, n=1024, k=1024),
                  "full": dict(batch=64, m=1024, n=1024, k=1024), "cpu": dict(batch=4, m=64, n=64, k=64)},
    },
    "memcpy": {
        "op": "memcpy", "unit": "GB/s", "peak_kind": "memory", "keys": ("mib",),
        "counts": "bytes read + bytes written by a device-to-device copy",
        "work": lambda s, world: 2.0 * s["mib"] * MIB,
        "sizes": {"quick": dict(mib=1024), "standard": dict(mib=4096), "full": dict(mib=4096), "cpu": dict(mib=64)},
    },
    "h2d": {
        "op": "h2d", "unit": "GB/s", "peak_kind": "pcie", "keys": ("mib",), "devices": ("cuda",),
        "counts": "bytes copied from pinned host memory to the GPU",
        "work": lambda s, world: float(s["mib"] * MIB),
        "sizes": {"quick": dict(mib=256), "standard": dict(mib=1024), "full": dict(mib=1024)},
    },
    "d2h": {
        "op": "d2h", "unit": "GB/s", "peak_kind": "pcie", "keys": ("mib",), "devices": ("cuda",),
        "counts": "bytes copied from the GPU to pinned host memory",
        "work": lambda s, world: float(s["mib"] * MIB),
        "sizes": {"quick": dict(mib=256), "standard": dict(mib=1024), "full": dict(mib=1024)},
    },
    "sdpa": {
        "op": "sdpa", "dtype": "bf16", "unit": "TFLOP/s", "peak_kind": "bf16",
        "keys": ("batch", "heads", "seq", "head_dim"),
        "counts": "4*batch*heads*seq^2*head_dim FLOP (QK^T and PV, non-causal forward, the backend torch picks by "
                  "default, named in `backend`)",
        "work": lambda s, world: 4.0 * s["batch"] * s["heads"] * s["seq"] ** 2 * s["head_dim"],
        "sizes": {"quick": dict(batch=8, heads=16, seq=2048, head_dim=128),
                  "standard": dict(batch=16, heads=16, seq=4096, head_dim=128),
                  "full": dict(batch=16, heads=16, seq=4096, head_dim=128),
                  "cpu": dict(batch=1, heads=2, seq=128, head_dim=64)},
    },
    "conv2d": {
        "op": "conv2d", "dtype": "bf16", "unit": "TFLOP/s", "peak_kind": "bf16",
        "keys": ("batch", "channels", "height", "width", "kernel"),
        "counts": "2*batch*channels^2*kernel^2*height*width FLOP (stride 1, same padding, "
                  "channels_last, cuDNN on CUDA)",
        "work": lambda s, world: 2.0 * s["batch"] * s["channels"] ** 2 * s["kernel"] ** 2 * s["height"] * s["width"],
        "sizes": {"quick": dict(batch=32, channels=256, height=56, width=56, kernel=3),
                  "standard": dict(batch=64, channels=256, height=56, width=56, kernel=3),
                  "full": dict(batch=64, channels=256, height=56, width=56, kernel=3),
                  "cpu": dict(batch=2, channels=16, height=16, width=16, kernel=3)},
    },
    "layernorm": {
        "op": "layernorm", "dtype": "bf16", "unit": "GB/s", "peak_kind": "memory", "keys": ("rows", "cols"),
        "counts": "bytes of x read + y written (bf16 layer_norm over cols)",
        "work": lambda s, world: 2.0 * 2 * s["rows"] * s["cols"],
        "sizes": {"quick": dict(rows=16384, cols=8192), "standard": dict(rows=32768, cols=8192),
                  "full": dict(rows=32768, cols=8192), "cpu": dict(rows=256, cols=1024)},
    },
    "softmax": {
        "op": "softmax", "dtype": "bf16", "unit": "GB/s", "peak_kind": "memory", "keys": ("rows", "cols"),
        "counts": "bytes of x read + y written (bf16 softmax over cols)",
        "work": lambda s, world: 2.0 * 2 * s["rows"] * s["cols"],
        "sizes": {"quick": dict(rows=16384, cols=8192), "standard": dict(rows=32768, cols=8192),
                  "full": dict(rows=32768, cols=8192), "cpu": dict(rows=256, cols=1024)},
    },
    "sustained": _sustained("bf16"),
    "sustained_fp16": _sustained("fp16"),
    "p2p": {
        "op": "p2p", "unit": "GB/s", "peak_kind": None, "keys": ("mib",), "devices": ("cuda",), "scope": "multi",
        "counts": "bytes copied from one GPU to another, per ordered pair",
        "work": lambda s, world: float(s["mib"] * MIB),
        "sizes": {"quick": dict(mib=256), "standard": dict(mib=1024), "full": dict(mib=1024)},
    },
    "allreduce": {
        "op": "allreduce", "unit": "GB/s", "peak_kind": None, "keys": ("mib",), "scope": "multi",
        "counts": "bus bandwidth: fp32 buffer bytes x 2(n-1)/n per all-reduce, one process per GPU "
                  "(NCCL; gloo over 2 CPU ranks in CPU mode)",
        "work": lambda s, world: s["mib"] * MIB * 2.0 * (world - 1) / world,
        "sizes": {"quick": dict(mib=256), "standard": dict(mib=1024), "full": dict(mib=1024), "cpu": dict(mib=8)},
    },
    "transformer_encoder": {
        "op": "transformer_encoder", "dtype": "bf16", "unit": "tokens/s", "peak_kind": None,
        "keys": ("batch", "seq", "d_model", "heads", "layers"),
        "counts": "tokens (batch*seq) per second through torch.nn.TransformerEncoder inference "
                  "(bf16, ffn 4*d_model)",
        "work": lambda s, world: float(s["batch"] * s["seq"]),
        "sizes": _same(dict(batch=32, seq=512, d_model=1024, heads=16, layers=12),
                       dict(batch=2, seq=32, d_model=64, heads=4, layers=2)),
    },
    "resnet50": {
        "op": "resnet50", "dtype": "bf16", "unit": "images/s", "peak_kind": None, "keys": ("batch", "image_size"),
        "counts": "images per second through torchvision ResNet-50 inference (random weights, bf16, "
                  "channels_last)",
        "work": lambda s, world: float(s["batch"]),
        "sizes": _same(dict(batch=64, image_size=224), dict(batch=2, image_size=64)),
    },
    "compile_speedup": {
        "op": "compile_speedup", "dtype": "bf16", "unit": "x", "peak_kind": None, "keys": ("rows", "cols"),
        "counts": "eager time / torch.compile time of x@w followed by pointwise gelu*sigmoid+tanh",
        "work": None,
        "sizes": _same(dict(rows=8192, cols=8192), dict(rows=256, cols=256)),
    },
}


def spec_of(name: str) -> dict[str, Any]:
    """The definition of a test with defaults filled in."""
    spec = dict(TESTS[name])
    spec.setdefault("devices", ("cuda", "cpu"))
    spec.setdefault("scope", "device")
    spec.setdefault("min_capability", None)
    spec.setdefault("multiple", 1)
    spec.setdefault("dtype", None)
    spec.setdefault("sustained", False)
    spec.setdefault("recipe", None)
    return spec


def select_tests(profile: str, tests: Sequence[str] | None) -> tuple[list[str], list[str]]:
    """(names, errors): `tests` if given, else the profile's, in suite order."""
    names = list(tests) if tests else list(PROFILE_TESTS[profile])
    unknown = sorted(set(name for name in names if name not in TESTS))
    if unknown:
        return [], ["unknown test(s): %s; known tests: %s" % (", ".join(unknown), ", ".join(TESTS))]
    return [name for name in TESTS if name in names], []


def _check_size(name, size, spec):
    errors = []
    for key, value in sorted(size.items()):
        if key not in spec["keys"]:
            errors.append("unknown size key %r for %s; keys: %s" % (key, name, ", ".join(spec["keys"])))
        elif isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            errors.append("size %s.%s must be a positive integer, got %r" % (name, key, value))
        elif value % spec["multiple"]:
            errors.append("size %s.%s must be a multiple of %d, got %d" % (name, key, spec["multiple"], value))
    return errors


def resolve_sizes(names: Sequence[str], profile: str, device: str,
                  overrides: Mapping[str, Any] | None) -> tuple[dict[str, dict[str, Any]], list[str]]:
    """(sizes by test name, errors). Overrides replace single keys of the default size."""
    overrides = overrides or {}
    errors = []
    stray = sorted(set(overrides) - set(names))
    if stray:
        errors.append("sizes given for tests not run: %s" % ", ".join(stray))
    sizes = {}
    for name in names:
        spec = spec_of(name)
        override = overrides.get(name) or {}
        if not isinstance(override, dict):
            errors.append("sizes.%s must be a dict of %s" % (name, ", ".join(spec["keys"])))
            continue
        errors.extend(_check_size(name, override, spec))
        base = spec["sizes"].get("cpu" if device == "cpu" else profile)
        sizes[name] = dict(base or {}, **override)
    return sizes, errors


def skip_reason(name: str, device: str, capability: Sequence[int] | None = None,
                gpu_count: int | None = None) -> str | None:
    """Why a test cannot run on this device, or None. capability: (major, minor) of the GPU;
    None for capability or gpu_count: not known yet, not checked."""
    spec = spec_of(name)
    if device not in spec["devices"]:
        return "needs device %s" % " or ".join(spec["devices"])
    if device == "cuda" and spec["scope"] == "multi" and gpu_count is not None and gpu_count < 2:
        return "needs 2 or more GPUs"
    if device == "cuda" and spec["min_capability"] and capability is not None \
            and tuple(capability) < spec["min_capability"]:
        if spec["recipe"]:  # "not supported on sm_90: MXFP8 needs compute capability 10.0+"
            return "not supported on sm_%d%d: %s needs compute capability %d.%d+" % (
                tuple(capability) + (spec["recipe"],) + spec["min_capability"])
        return "needs compute capability >= %d.%d" % spec["min_capability"]
    return None


def size_text(name: str, size: Mapping[str, Any]) -> str:
    """"m=8192 n=8192 k=8192 bf16" for a result (no size for a test without one on this device)."""
    spec = spec_of(name)
    text = " ".join("%s=%s" % (key, size[key]) for key in spec["keys"] if key in size)
    return "%s %s" % (text, spec["dtype"]) if spec["dtype"] else text
