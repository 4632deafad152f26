# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Statistics of repeated timings: median, min, max, spread, and rates derived from them. median() is
benchmark/telemetry.py's (the one median, where the benchmark child has it too), also the fleet report's (the
median of a GPU model's figures on the other hosts).

A rate is work over time, so the median rate comes from the median time, the highest rate
from the shortest time and the lowest rate from the longest. Pure functions, no Ansible
import.
"""
from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import median

__all__ = ["median", "rate", "slowest_per_rep", "summarize"]


def summarize(times_s: Iterable[float]) -> dict[str, Any]:
    """{median, min, max, spread, reps} of per-call times in seconds.

    spread is (max - min) / median: 0.02 means the slowest and fastest repetition were 2%
    of the median apart. Non-finite or non-positive times make the sample unusable.
    """
    times = [float(value) for value in times_s]
    if not times:
        raise ValueError("no timings")
    if any(not math.isfinite(value) or value <= 0 for value in times):
        raise ValueError("timings must be finite and positive: %r" % (times,))
    mid = median(times)
    return {"median": mid, "min": min(times), "max": max(times),
            "spread": (max(times) - min(times)) / mid, "reps": len(times)}


def rate(work: float, times_s: Iterable[float], scale: float) -> dict[str, Any]:
    """Work per second from per-call times, divided by `scale` (1e12 for TFLOP/s, 1e9 for GB/s).

    Returns {value (median rate), min, max, spread, reps, seconds (the time statistics)}.
    """
    stats = summarize(times_s)
    return {
        "value": work / stats["median"] / scale,
        "min": work / stats["max"] / scale,
        "max": work / stats["min"] / scale,
        "spread": stats["spread"],
        "reps": stats["reps"],
        "seconds": {"median": stats["median"], "min": stats["min"], "max": stats["max"]},
    }


def slowest_per_rep(per_rank_times: Sequence[Sequence[float]]) -> list[float]:
    """A collective finishes when its slowest rank does: per repetition, the max across ranks."""
    lengths = set(len(times) for times in per_rank_times)
    if len(lengths) != 1:
        raise ValueError("ranks reported different repetition counts: %s" % sorted(lengths))
    return [max(values) for values in zip(*per_rank_times)]
