"""The power a sustained load reached against the enforced limit: an H200's 10 s bf16 GEMM (700 W limit)."""
from __future__ import annotations

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.power import power_limit, power_reached
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import read_power_limits

# The telemetry of the H200's 10 s sustained bf16 GEMM (105 samples), with the limits the child read beside it.
H200_SUSTAINED = {
    "samples": 105, "power_w": {"min": 81.2, "median": 692.2, "max": 700.5}, "reasons": ["sw_power_cap"],
    "reasons_mask": 4, "sm_clock_mhz": {"min": 1260, "median": 1485, "max": 1980},
    "tail": {"samples": 51, "seconds": 5.0, "power_w": {"min": 675.1, "median": 692.1, "max": 694.6},
             "sm_clock_mhz": {"min": 1440, "median": 1485, "max": 1515}},
    "enforced_power_limit_w": 700.0, "power_limit_w": 700.0,
}
H200 = {"name": "NVIDIA H200", "capability": [9, 0], "sm_count": 132}


def test_the_h200_drew_0_99_of_its_enforced_limit_in_the_last_5_seconds():
    assert power_reached(H200_SUSTAINED) == {"median_w": 692.1, "max_w": 694.6, "limit_w": 700.0,
                                             "limit": "enforced", "fraction_of_limit": 0.9887}


def test_a_card_held_below_its_limit():
    """A card capped at 400 W by another limit than the management one (the enforced limit says so)."""
    capped = dict(H200_SUSTAINED, enforced_power_limit_w=400.0,
                  tail=dict(H200_SUSTAINED["tail"], power_w={"min": 301.0, "median": 312.4, "max": 330.9}))
    assert power_reached(capped)["fraction_of_limit"] == 0.781


def test_the_management_limit_when_nvml_has_no_enforced_one():
    telemetry = dict(H200_SUSTAINED, enforced_power_limit_w=None)
    assert power_limit(telemetry) == (700.0, "management")
    assert power_limit({}, 575.0) == (575.0, "management")
    assert power_limit({}) == (None, None)
    assert power_reached(telemetry)["limit"] == "management"


def test_no_power_without_a_tail_or_a_limit():
    assert power_reached(None) is None
    assert power_reached(dict(H200_SUSTAINED, tail={"samples": 0, "power_w": None})) is None
    assert power_reached(dict(H200_SUSTAINED, enforced_power_limit_w=None, power_limit_w=None)) is None


def test_the_child_reads_both_limits_in_watts():
    assert read_power_limits(fake.FakeNVML([fake.H200_0]), fake.H200_0) == {
        "enforced_power_limit_w": 700.0, "power_limit_w": 700.0}
    assert read_power_limits(fake.FakeNVML([]), dict(fake.RTX_5090, enforced_mw=fake.NS)) == {
        "enforced_power_limit_w": None, "power_limit_w": 575.0}


def test_the_sustained_figure_carries_its_power():
    size = {"m": 8192, "n": 8192, "k": 8192, "seconds": 10}
    raw = {"times_s": [1.6221e-3] * 172, "chunks_s": [0.05839] * 172, "inner": 36, "sets": 1,
           "check": {"ok": True, "rel_error": 1.6e-3, "bound": 1e-2}, "telemetry": H200_SUSTAINED}
    fig = figure("sustained", size, raw, peak_info("sustained", H200))
    assert fig["status"] == "ok" and fig["power"]["fraction_of_limit"] == 0.9887
    skipped = figure("sustained", size, {"skipped": "not in tests"}, peak_info("sustained", H200))
    assert skipped["power"] is None
    assert "power" not in figure("gemm_bf16", {"m": 8192, "n": 8192, "k": 8192},
                                 {"times_s": [1.4e-3] * 10, "check": raw["check"]}, peak_info("gemm_bf16", H200))
