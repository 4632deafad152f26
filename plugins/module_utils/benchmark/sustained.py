# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The `sustained` test: a GEMM kept busy for `seconds`, and the math of its first and last rates.

The child queues the GEMM in chunks of about CHUNK_S, each between two CUDA events, and
waits for chunk i-1 only after chunk i is queued, so the GPU never idles while power and
clocks settle. sustained_rates() (pure, used by the parent) turns the chunk times into the
rate of the first second, the rate of the last five seconds and their ratio: a card at its
power limit keeps most of its burst rate; a card slowed by heat or a hardware slowdown
loses much more. Python 3.9, no Ansible import.
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import check_close

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.ops import Bench

CHUNK_S = 0.05
FIRST_S = 1.0
LAST_S = 5.0
_SLICE = 64


def sustained_rates(chunk_seconds: Sequence[float], calls_per_chunk: int, work: float, scale: float,
                    first_s: float = FIRST_S, last_s: float = LAST_S) -> dict[str, Any] | None:
    """{first_rate, last_rate, ratio, duration_s, chunks, first_s, last_s} from per-chunk device seconds.

    The first window holds the chunks that end within first_s (at least one), the last window
    the chunks that start within the last last_s (at least one). Rates are work units per
    second divided by scale; ratio = last_rate / first_rate (None without a first rate)."""
    if not chunk_seconds:
        return None
    total = sum(chunk_seconds)
    ends, elapsed = [], 0.0
    for seconds in chunk_seconds:
        elapsed += seconds
        ends.append(elapsed)
    first = [s for s, end in zip(chunk_seconds, ends) if end <= first_s] or chunk_seconds[:1]
    last = [s for s, end in zip(chunk_seconds, ends) if end - s >= total - last_s] or chunk_seconds[-1:]

    def window_rate(window):
        return calls_per_chunk * work * len(window) / sum(window) / scale

    first_rate, last_rate = window_rate(first), window_rate(last)
    return {"first_rate": float("%.6g" % first_rate), "last_rate": float("%.6g" % last_rate),
            "ratio": round(last_rate / first_rate, 4) if first_rate > 0 else None,
            "duration_s": round(total, 3), "chunks": len(chunk_seconds), "first_s": first_s, "last_s": last_s}


def _chunk_times(bench, call, calls, seconds):
    torch, timer = bench.torch, bench.timer
    times, index, pending = [], 0, None
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        if not timer.cuda:
            began = time.perf_counter()
            for dummy in range(calls):
                call(index)
                index += 1
            times.append(time.perf_counter() - began)
            continue
        began, ended = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        began.record()
        for dummy in range(calls):
            call(index)
            index += 1
        ended.record()
        if pending is not None:
            pending[1].synchronize()
            times.append(pending[0].elapsed_time(pending[1]) / 1e3)
        pending = (began, ended)
    if pending is not None:
        pending[1].synchronize()
        times.append(pending[0].elapsed_time(pending[1]) / 1e3)
    return times


def sustained(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    """Child op: {times_s (per call, one per chunk), chunks_s, inner (calls per chunk), sets, check}."""
    torch = bench.torch
    m, n, k = size["m"], size["n"], size["k"]
    dtype = bench.dtype(dtype_name)
    sets = bench.input_sets(lambda: (bench.random((m, k), dtype), bench.random((k, n), dtype)))
    out = torch.empty((m, n), dtype=dtype, device=bench.device)

    def call(index):
        a, b = sets[index % len(sets)]
        torch.matmul(a, b, out=out)

    bench.timer.reps(call, 1, 2)  # load and autotune
    per_call = min(bench.timer.reps(call, 3, 1))
    calls = int(max(1, min(1000, CHUNK_S / max(per_call, 1e-9))))
    chunks = _chunk_times(bench, call, calls, size["seconds"])
    a, b = sets[0]
    torch.matmul(a, b, out=out)
    ref = a[:_SLICE].double() @ b[:, :_SLICE].double()
    bound = 2e-3 if dtype_name == "fp16" else 1e-2
    return {"times_s": [seconds / calls for seconds in chunks], "chunks_s": chunks, "inner": calls,
            "sets": len(sets), "check": check_close(torch, out[:_SLICE, :_SLICE], ref, bound)}


OPS = {"sustained": sustained}
