from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.sustained import sustained_rates

WORK = 2.0 * 8192 ** 3  # one bf16 8192^3 product
H100 = {"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "sm_count": 132}


def chunks(burst_s, settled_s, seconds=25.0, chunk=0.05):
    """Per-chunk seconds of 36 products: burst rate in the first 2 s, settled rate after."""
    times, elapsed = [], 0.0
    while elapsed < seconds:
        times.append(burst_s if elapsed < 2.0 else settled_s)
        elapsed += times[-1]
    return times


def per_chunk(tflops, calls=36):
    return calls * WORK / (tflops * 1e12)


@pytest.mark.parametrize("burst, settled, ratio", [
    (795.0, 680.0, 0.855),  # H100 SXM at its 700 W cap: the normal case
    (795.0, 795.0, 1.0),    # no power limit reached
    (795.0, 300.0, 0.377),  # thermally slowed
])
def test_first_second_and_last_five_seconds_rates_and_ratio(burst, settled, ratio):
    got = sustained_rates(chunks(per_chunk(burst), per_chunk(settled)), 36, WORK, 1e12)
    assert got["first_rate"] == pytest.approx(burst, rel=1e-3)
    assert got["last_rate"] == pytest.approx(settled, rel=1e-3)
    assert got["ratio"] == pytest.approx(ratio, abs=1e-3)
    assert got["duration_s"] >= 25.0 and got["first_s"] == 1.0 and got["last_s"] == 5.0


def test_short_runs_use_at_least_one_chunk_per_window():
    got = sustained_rates([2.0, 4.0], 10, 1e12, 1e12)
    assert got["first_rate"] == 5.0 and got["last_rate"] == 2.5  # the second chunk starts 1 s in
    assert got["chunks"] == 2


def test_no_chunks_no_rates():
    assert sustained_rates([], 1, WORK, 1e12) is None


def test_sustained_figure_reports_the_last_window_against_the_peak():
    times = chunks(per_chunk(795.0), per_chunk(680.0))
    raw = {"times_s": [t / 36 for t in times], "chunks_s": times, "inner": 36, "sets": 1,
           "check": {"ok": True, "rel_error": 2e-3, "bound": 1e-2},
           "telemetry": {"samples": 250, "reasons": ["sw_power_cap"], "reasons_mask": 4,
                         "sm_clock_mhz": {"min": 1350, "median": 1365, "max": 1980}}}
    fig = figure("sustained", dict(m=8192, n=8192, k=8192, seconds=25), raw, peak_info("sustained", H100))
    assert fig["status"] == "ok" and fig["value"] == pytest.approx(680.0, rel=1e-3)
    assert fig["fraction_of_peak"] == pytest.approx(680.0 / fig["peak"], abs=1e-4)
    assert fig["sustained"]["ratio"] == pytest.approx(0.855, abs=1e-3)
    assert fig["telemetry"]["reasons"] == ["sw_power_cap"]
    assert fig["size"] == "m=8192 n=8192 k=8192 seconds=25 bf16"
