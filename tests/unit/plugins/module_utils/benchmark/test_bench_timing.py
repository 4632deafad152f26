"""The timing loop's logic with a fake timer (the real one needs torch: see the CPU-mode module test)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import (
    MAX_SETS, ends, measure, rotation_sets)

MIB = 1024 * 1024


class FakeTimer:
    """Each call takes `per_call` seconds; records the indices passed to call()."""

    def __init__(self, per_call):
        self.per_call = per_call
        self.syncs = 0

    def sync(self):
        self.syncs += 1

    def reps(self, call, reps, inner, first_index=0):
        index = first_index
        for dummy in range(reps):
            for dummy in range(inner):
                call(index)
                index += 1
        return [self.per_call] * reps


def test_warm_up_runs_until_the_time_is_spent_then_repetitions_last_min_rep_s():
    seen = []
    per_call = 1.0 / 4096  # exact in binary: no rounding in the sums
    result = measure(FakeTimer(per_call), seen.append, reps=10, warmup_s=100 * per_call, min_rep_s=1e-3)
    assert result["warmup_calls"] == 100
    assert result["inner"] == 5  # 5 x 0.244 ms >= 1 ms > 4 x 0.244 ms
    assert result["times_s"] == [per_call] * 10
    assert seen == list(range(100 + 50))  # one running index: rotation walks through every input set


def test_slow_calls_get_at_least_two_warm_ups_and_one_call_per_repetition():
    result = measure(FakeTimer(0.5), lambda index: None, reps=10, warmup_s=0.025, min_rep_s=1e-3)
    assert (result["warmup_calls"], result["inner"], len(result["times_s"])) == (2, 1, 10)


def test_collectives_use_fixed_counts():
    seen = []
    result = measure(FakeTimer(1e-5), seen.append, reps=12, warmup_s=0.0, min_rep_s=0.0, warmup_calls=5, inner=1)
    assert (result["warmup_calls"], result["inner"], len(seen)) == (5, 1, 17)


def test_rotation_spans_four_times_the_cache():
    l2 = 50 * MIB  # H100
    assert rotation_sets(256 * MIB, l2) == 1  # 8192^2 bf16 A and B: far larger than L2
    assert rotation_sets(128 * MIB, l2) == 2  # 4096^2 fp32 A and B
    assert rotation_sets(48 * MIB, l2) == 5
    assert rotation_sets(1024, l2) == MAX_SETS


def test_copy_checks_sample_both_ends():
    data = list(range(3 * MIB))
    head, tail = ends(data)
    assert (head[0], len(head), tail[-1], len(tail)) == (0, MIB, 3 * MIB - 1, MIB)
