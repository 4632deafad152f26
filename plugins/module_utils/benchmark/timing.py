# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: how a call is timed, how inputs are made and how results are checked.

Method (the device tool's METHOD.md): CUDA events around the region (perf_counter on the
CPU, where ops are synchronous); warm-up first (module load, autotuning, clocks); then
`reps` repetitions of `inner` calls each, all queued before one synchronisation so the
device never waits for the host; the caller takes the median. Inputs are random, never
zeros, and rotate among several sets when one set would fit in the cache.

Runs inside the child process (torch is passed in, never imported here), Python 3.9
compatible, no Ansible import.
"""
from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from torch import Tensor, device as Device, dtype as DType

CPU_CACHE_BYTES = 32 * 1024 * 1024  # assumed last-level cache in CPU mode
MAX_SETS = 64
MAX_INNER = 1000


class Timer:
    """Times calls on one device: CUDA events on its current stream, perf_counter on the CPU."""

    def __init__(self, torch, device):
        self.torch = torch
        self.device = device
        self.cuda = device.type == "cuda"

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize(self.device)

    def reps(self, call: Callable[[int], object], reps: int, inner: int, first_index: int = 0) -> list[float]:
        """Per-call seconds of `reps` repetitions of `inner` calls; call(i) gets a running index."""
        index = first_index
        if not self.cuda:
            times = []
            for dummy in range(reps):
                start = time.perf_counter()
                for dummy in range(inner):
                    call(index)
                    index += 1
                times.append((time.perf_counter() - start) / inner)
            return times
        with self.torch.cuda.device(self.device):
            events = [(self.torch.cuda.Event(enable_timing=True), self.torch.cuda.Event(enable_timing=True))
                      for dummy in range(reps)]
            for start, end in events:
                start.record()
                for dummy in range(inner):
                    call(index)
                    index += 1
                end.record()
            events[-1][1].synchronize()
            return [start.elapsed_time(end) / 1e3 / inner for start, end in events]


def measure(timer: Timer, call: Callable[[int], object], reps: int, warmup_s: float, min_rep_s: float,
            warmup_calls: int | None = None, inner: int | None = None) -> dict[str, Any]:
    """Warm up, then time `reps` repetitions. Returns {times_s, inner, warmup_calls}.

    By default the warm-up runs until `warmup_s` of device time has passed (at least two
    calls) and `inner` is chosen so one repetition lasts at least `min_rep_s`. Collectives
    pass fixed `warmup_calls` and `inner`, so that every rank makes the same calls.
    """
    timer.sync()
    done, spent, last = 0, 0.0, None
    while _warming(done, spent, warmup_s, warmup_calls):
        last = timer.reps(call, 1, 1, done)[0]
        spent += last
        done += 1
    if inner is None:
        inner = int(min(MAX_INNER, max(1, math.ceil(min_rep_s / max(last, 1e-9)))))
    times = timer.reps(call, reps, inner, done)
    return {"times_s": times, "inner": inner, "warmup_calls": done}


def _warming(done, spent, warmup_s, warmup_calls):
    if warmup_calls is not None:
        return done < warmup_calls
    return done < 2 or spent < warmup_s


def rotation_sets(set_bytes: int, cache_bytes: int) -> int:
    """How many input sets to cycle through: enough to span 4x the cache, else one."""
    if set_bytes <= 0 or set_bytes >= 4 * cache_bytes:
        return 1
    return int(min(MAX_SETS, math.ceil(4.0 * cache_bytes / set_bytes)))


def random_tensor(torch: ModuleType, shape: Sequence[int], dtype: DType, device: Device) -> Tensor:
    """Random normal values (uniform bytes for integer types): never zeros."""
    if dtype.is_floating_point:
        if dtype.itemsize == 1:  # float8: draw in bf16, then round
            return torch.randn(shape, dtype=torch.bfloat16, device=device).to(dtype)
        return torch.randn(shape, dtype=dtype, device=device)
    return torch.randint(0, 256, shape, dtype=dtype, device=device)


def tensor_bytes(*tensors: Tensor) -> int:
    return sum(tensor.numel() * tensor.element_size() for tensor in tensors)


def relative_error(torch: ModuleType, out: Tensor, ref: Tensor) -> float | None:
    """||out - ref|| / ||ref|| in float64; None when out holds NaN or inf."""
    out = out.to(torch.float64)
    ref = ref.to(torch.float64)
    error = float(torch.linalg.vector_norm(out - ref)) / max(float(torch.linalg.vector_norm(ref)), 1e-300)
    return error if math.isfinite(error) else None


def check_close(torch: ModuleType, out: Tensor, ref: Tensor, bound: float) -> dict[str, Any]:
    """{ok, rel_error, bound}: ok only when the error is a finite number within the bound."""
    error = relative_error(torch, out, ref)
    return {"ok": error is not None and error <= bound, "rel_error": error, "bound": bound}


def ends(tensor: Tensor, count: int = 1024 * 1024) -> tuple[Tensor, Tensor]:
    """The first and last `count` elements of a flat tensor: what a copy check samples."""
    return tensor[:count], tensor[-count:]


def check_equal(torch: ModuleType, out: Tensor, ref: Tensor) -> dict[str, Any]:
    """{ok, detail} for a copy: the sampled bytes equal the source."""
    equal = all(bool(torch.equal(got.cpu(), want.cpu())) for got, want in zip(ends(out), ends(ref)))
    return {"ok": equal,
            "detail": "first and last MiB of the copy %s the source" % ("equal" if equal else "differ from")}
