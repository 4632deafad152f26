"""A device figure against what a healthy GPU of its model reaches."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.expected import expectation, with_expectation
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, peak_info

H200 = {"name": "NVIDIA H200", "capability": [9, 0], "sm_count": 132, "max_sm_clock_mhz": 1980,
        "max_mem_clock_mhz": 3201, "memory_bus_width_bits": 6144}
SOFTMAX = {"rows": 16384, "cols": 8192}
CHECK = {"ok": True, "rel_error": 4e-3, "bound": 2e-2}


def softmax_figure(gbps, gpu=None):
    gpu = gpu or H200
    seconds = 2.0 * 2 * 16384 * 8192 / (gbps * 1e9)
    return figure("softmax", SOFTMAX, {"times_s": [seconds] * 10, "check": CHECK}, peak_info("softmax", gpu))


def test_a_healthy_h200_softmax_is_near_its_expected_figure_though_far_below_peak():
    fig = softmax_figure(1072.6)  # measured on an H200: 0.22 of its 4800 GB/s peak
    got = expectation(fig, "NVIDIA H200")
    assert fig["fraction_of_peak"] == 0.2235
    assert got["expected"]["value"] == 1056.0 and got["expected"]["fraction_of_peak"] == 0.22
    assert got["fraction_of_expected"] == 1.0157


def test_a_slow_figure_reads_as_a_fraction_of_its_expectation():
    assert expectation(softmax_figure(500.0), "NVIDIA H200")["fraction_of_expected"] == 0.4735


def test_no_expectation_without_a_row_or_a_value():
    other = dict(H200, name="NVIDIA H200 NVL")  # no row
    assert expectation(softmax_figure(1000.0, other), other["name"]) == {"expected": None, "fraction_of_expected": None}
    failed = figure("softmax", SOFTMAX, {"error": "OutOfMemoryError"}, peak_info("softmax", H200))
    assert expectation(failed, "NVIDIA H200")["fraction_of_expected"] is None


def test_sdpa_is_compared_only_through_the_backend_the_row_was_measured_with():
    size = {"batch": 8, "heads": 16, "seq": 2048, "head_dim": 128}
    seconds = 4.0 * 8 * 16 * 2048 ** 2 * 128 / 600e12
    fig = figure("sdpa", size, {"times_s": [seconds] * 10, "check": CHECK, "backend": "CUDNN_ATTENTION"},
                 peak_info("sdpa", H200))
    assert fig["backend"] == "CUDNN_ATTENTION"
    assert expectation(fig, "NVIDIA H200")["fraction_of_expected"] == 1.0643
    fig["backend"] = "FLASH_ATTENTION"
    assert expectation(fig, "NVIDIA H200")["expected"] is None


def test_with_expectation_adds_the_fields_to_every_figure():
    figures = with_expectation({"softmax": softmax_figure(1072.6)}, "NVIDIA H200")
    assert figures["softmax"]["fraction_of_expected"] == 1.0157
