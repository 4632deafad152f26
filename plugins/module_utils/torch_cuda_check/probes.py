# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Feature probes of torch_cuda_check: each runs a tiny case on one GPU and checks the numbers.

GPU child parts (see child_gpu): part_probes (SDPA with each backend forced, Triton, bf16,
FP8) and part_compile (torch.compile, its own child because it takes seconds to minutes).
Every probe returns {"status": ok|failed|unavailable|skipped, "error" or "reason", "seconds"}:
unavailable = torch or the GPU cannot serve it (torch says so), failed = it ran and broke or
computed wrong numbers, skipped = not applicable here. The parent reads PROBES for the names.

Runs in the checked interpreter (Python 3.9+), shipped by common.child_program; torch is
imported inside the probes only. No Ansible import.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child_base import since

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from torch import Tensor, device as Device

SDPA_BACKENDS = (
    ("flash_attention", "FLASH_ATTENTION"),
    ("efficient_attention", "EFFICIENT_ATTENTION"),
    ("cudnn_attention", "CUDNN_ATTENTION"),
    ("math_attention", "MATH"),
)
PROBES = tuple(name for name, _attr in SDPA_BACKENDS) + ("triton", "bf16", "fp8", "torch_compile")
PROBE_NAMES = tuple(name for name in PROBES if name != "torch_compile")  # those of part_probes

# Triton reads a kernel's source with inspect, so the kernel is written to a file and imported.
TRITON_KERNEL = """
import triton
import triton.language as tl


@triton.jit
def axpb(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(y_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * 2.0 + 1.0, mask=mask)
"""


def timed(func: Callable[..., dict[str, Any]], *args: Any) -> dict[str, Any]:
    """Run a probe body; exceptions become a failed probe."""
    start = time.monotonic()
    try:
        result = func(*args)
    except Exception as exc:
        result = {"status": "failed", "error": err_text(exc)}
    result["seconds"] = since(start)
    return result


def judged(error: float, tolerance: float) -> dict[str, Any]:
    """ok when the relative error is within tolerance, else failed with the error."""
    if error <= tolerance:
        return {"status": "ok", "error": None, "relative_error": error}
    return {"status": "failed", "error": "wrong result: relative error %.3g > %g" % (error, tolerance),
            "relative_error": error}


def close(got: Tensor, want: Tensor, tolerance: float) -> dict[str, Any]:
    """ok when the largest error relative to the largest reference value is within tolerance."""
    return judged(float((got.float() - want.float()).abs().max() / want.float().abs().max().clamp(min=1e-6)),
                  tolerance)


def probe_sdpa(dev: Device, attr: str) -> dict[str, Any]:
    import warnings
    import torch
    import torch.nn.functional as F
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        return {"status": "skipped", "reason": "this torch has no torch.nn.attention.sdpa_kernel (added in 2.3)"}
    backend = getattr(SDPBackend, attr, None)
    if backend is None:
        return {"status": "skipped", "reason": "this torch has no SDPBackend.%s" % attr}
    gen = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 4, 256, 64, generator=gen).to(dev, torch.bfloat16) for _draw in range(3))
    want = torch.softmax(q.float() @ k.float().transpose(-1, -2) / 8.0, dim=-1) @ v.float()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with sdpa_kernel(backend):
                got = F.scaled_dot_product_attention(q, k, v)
        except RuntimeError as exc:
            if "No available kernel" not in str(exc) and "No viable backend" not in str(exc):
                raise
            why = [str(w.message).strip() for w in caught if not issubclass(w.category, DeprecationWarning)]
            return {"status": "unavailable", "reason": "; ".join(why)[:600] or err_text(exc)}
    return close(got, want, 2e-2)


def probe_triton(dev: Device) -> dict[str, Any]:
    import importlib.util
    import shutil
    import tempfile
    import torch
    try:
        import triton
    except ImportError as exc:
        return {"status": "unavailable", "reason": "triton cannot be imported: %s" % err_text(exc)}
    folder = tempfile.mkdtemp(prefix="blackwell-triton-")
    try:
        path = os.path.join(folder, "blackwell_triton_probe.py")
        with open(path, "w") as handle:
            handle.write(TRITON_KERNEL)
        spec = importlib.util.spec_from_file_location("blackwell_triton_probe", path)
        kernel = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(kernel)
        x = torch.arange(1000, dtype=torch.float32, device=dev)
        y = torch.empty_like(x)
        kernel.axpb[(4,)](x, y, x.numel(), BLOCK=256)
        result = close(y, x * 2.0 + 1.0, 0.0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    result["version"] = triton.__version__
    return result


def probe_bf16(dev: Device) -> dict[str, Any]:
    import torch
    gen = torch.Generator().manual_seed(2)
    a, b = (torch.randn(128, 128, generator=gen).to(torch.bfloat16) for _draw in range(2))
    return close((a.to(dev) @ b.to(dev)).cpu(), a.float() @ b.float(), 2e-2)


def probe_fp8(dev: Device, capability: tuple[int, int]) -> dict[str, Any]:
    if tuple(capability) < (8, 9):
        return {"status": "skipped", "reason": "compute capability %d.%d < 8.9: no FP8 tensor cores" % tuple(capability)}
    import torch
    if not hasattr(torch, "float8_e4m3fn") or not hasattr(torch, "_scaled_mm"):
        return {"status": "skipped", "reason": "this torch has no float8_e4m3fn or _scaled_mm"}
    gen = torch.Generator().manual_seed(3)
    a, b = (torch.randn(64, 64, generator=gen).to(dev).to(torch.float8_e4m3fn) for _draw in range(2))
    one = torch.ones((), device=dev)
    got = torch._scaled_mm(a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    got = got[0] if isinstance(got, tuple) else got
    return close(got, a.float() @ b.float().t(), 2e-2)


def part_probes(index: int, capability: tuple[int, int], out: dict[str, Any]) -> dict[str, Any]:
    ops = out.get("ops") or {}
    if ops.get("status") != "ok":
        reason = "the basic op mix failed on this GPU: %s" % ops.get("error")
        return dict((name, {"status": "skipped", "reason": reason}) for name in PROBE_NAMES)
    import torch
    dev = torch.device("cuda", index)
    probes = {}
    for name, attr in SDPA_BACKENDS:
        probes[name] = timed(probe_sdpa, dev, attr)
    probes["triton"] = timed(probe_triton, dev)
    probes["bf16"] = timed(probe_bf16, dev)
    probes["fp8"] = timed(probe_fp8, dev, capability)
    return probes


def compile_body(dev: Device) -> dict[str, Any]:
    import torch
    func = torch.compile(lambda x: torch.sin(x) * 2.0 + x)
    x = torch.randn(4096, device=dev)
    return close(func(x), torch.sin(x) * 2.0 + x, 1e-5)


def part_compile(index: int, capability: tuple[int, int], out: dict[str, Any]) -> dict[str, Any]:
    import torch
    return timed(compile_body, torch.device("cuda", index))
