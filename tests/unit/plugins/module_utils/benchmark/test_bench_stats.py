from __future__ import annotations

import math

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import telemetry
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.stats import (
    median, rate, slowest_per_rep, summarize)


@pytest.mark.parametrize("values, expected, kind", [
    ([3.0], 3.0, float), ([7], 7, int), ([5, 1, 3], 3, int), ([1560, 1350, 1980], 1560, int),
    ([4, 1, 3, 2], 2.5, float),
    ([4, 1, 2, 3], 2.5, float), ((0.5, 0.25), 0.375, float), ([2, 2, 9], 2, int), (iter([10, 30, 20, 40]), 25.0, float),
    ([1.3895e-3, 1.3863e-3, 1.3901e-3], 1.3895e-3, float)])
def test_median_of_an_odd_count_is_its_middle_value_of_an_even_one_the_mean(values, expected, kind):
    got = median(values)
    assert got == expected and type(got) is kind


def test_the_benchmark_has_one_median():
    assert median is telemetry.median


def test_median_of_nothing_is_an_error():
    with pytest.raises(ValueError, match="^median of no values$"):
        median([])


def test_summarize_h100_bf16_gemm_times():
    # per-call seconds of ten repetitions of an 8192^3 bf16 matmul on an H100 (quick profile)
    times = [1.3895e-3, 1.3863e-3, 1.3901e-3, 1.3889e-3, 1.4088e-3, 1.3894e-3, 1.3878e-3, 1.3899e-3, 1.3892e-3,
             1.3870e-3]
    stats = summarize(times)
    assert stats["reps"] == 10
    assert stats["median"] == pytest.approx(1.3893e-3)
    assert (stats["min"], stats["max"]) == (1.3863e-3, 1.4088e-3)
    assert stats["spread"] == pytest.approx((1.4088e-3 - 1.3863e-3) / 1.3893e-3)


@pytest.mark.parametrize("bad", [[], [0.0, 1.0], [-1e-3], [float("nan")], [float("inf")]])
def test_summarize_refuses_unusable_timings(bad):
    with pytest.raises(ValueError):
        summarize(bad)


def test_rate_turns_times_into_tflops_with_min_from_the_slowest_call():
    work = 2.0 * 8192 ** 3
    result = rate(work, [1.4e-3, 1.39e-3, 1.41e-3], 1e12)
    assert result["value"] == pytest.approx(work / 1.4e-3 / 1e12)
    assert result["min"] == pytest.approx(work / 1.41e-3 / 1e12)
    assert result["max"] == pytest.approx(work / 1.39e-3 / 1e12)
    assert result["min"] < result["value"] < result["max"]
    assert result["seconds"] == {"median": 1.4e-3, "min": 1.39e-3, "max": 1.41e-3}
    assert math.isclose(result["value"], 785.4, rel_tol=1e-3)


def test_slowest_rank_per_repetition():
    assert slowest_per_rep([[1.0, 5.0, 2.0], [3.0, 1.0, 2.5]]) == [3.0, 5.0, 2.5]


def test_ranks_with_different_counts_are_an_error():
    with pytest.raises(ValueError, match="different repetition counts"):
        slowest_per_rep([[1.0, 2.0], [1.0]])
