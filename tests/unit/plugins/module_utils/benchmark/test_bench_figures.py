from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import (
    figure, p2p_figures, peak_info)

H100 = {"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "sm_count": 132, "max_sm_clock_mhz": 1980,
        "max_mem_clock_mhz": 2619, "memory_bus_width_bits": 5120, "pcie_gen_max": 5, "pcie_width_max": 16}
GEMM = {"m": 8192, "n": 8192, "k": 8192}
TIMES = [1.3893e-3] * 5 + [1.3863e-3, 1.4088e-3] + [1.3893e-3] * 3
CHECK_OK = {"ok": True, "rel_error": 1.6e-3, "bound": 1e-2}


def test_an_ok_gemm_figure_carries_rate_spread_peak_and_fraction():
    fig = figure("gemm_bf16", GEMM, {"times_s": TIMES, "inner": 1, "sets": 1, "check": CHECK_OK},
                 peak_info("gemm_bf16", H100))
    assert fig["status"] == "ok" and fig["error"] is None
    assert fig["value"] == pytest.approx(2 * 8192 ** 3 / 1.3893e-3 / 1e12, abs=1e-3)
    assert fig["min"] < fig["value"] < fig["max"]
    assert (fig["peak"], fig["peak_source"], fig["unit"]) == (989.0, "table", "TFLOP/s")
    assert fig["fraction_of_peak"] == pytest.approx(fig["value"] / 989.0, abs=1e-4)
    assert (fig["size"], fig["reps"], fig["inner"], fig["sets"]) == ("m=8192 n=8192 k=8192 bf16", 10, 1, 1)
    assert fig["seconds"] == {"median": 1.3893e-3, "min": 1.3863e-3, "max": 1.4088e-3}


def test_a_wrong_result_posts_no_value():
    check = {"ok": False, "rel_error": 0.93, "bound": 1e-2}
    fig = figure("gemm_bf16", GEMM, {"times_s": [1e-4] * 10, "check": check}, peak_info("gemm_bf16", H100))
    assert (fig["status"], fig["value"], fig["fraction_of_peak"]) == ("wrong_result", None, None)
    assert fig["error"].startswith("result check failed (relative error 0.93 > bound 0.01 against float64); "
                                   "its rate (1.1e+04 TFLOP/s) is not reported")


def test_a_non_finite_output_is_a_wrong_result():
    fig = figure("softmax", {"rows": 8, "cols": 8}, {"times_s": [1e-5] * 10,
                                                     "check": {"ok": False, "rel_error": None, "bound": 2e-2}},
                 peak_info("softmax", H100))
    assert fig["status"] == "wrong_result" and "relative error non-finite" in fig["error"]


@pytest.mark.parametrize("raw, status, error", [
    ({"error": "OutOfMemoryError: CUDA out of memory."}, "failed", "OutOfMemoryError: CUDA out of memory."),
    ({"skipped": "torchvision is not importable"}, "skipped", "torchvision is not importable"),
    (None, "not_run", "the benchmark child timeout before this test: timed out after 120 s"),
])
def test_figures_without_a_value(raw, status, error):
    fig = figure("memcpy", {"mib": 1024}, raw, peak_info("memcpy", H100),
                 "the benchmark child timeout before this test: timed out after 120 s")
    assert (fig["status"], fig["error"], fig["value"]) == (status, error, None)
    assert (fig["peak"], fig["peak_source"]) == (3350.0, "table")


def test_allreduce_bus_bandwidth_takes_the_slowest_rank_per_repetition():
    raw = {"world": 2, "backend": "nccl", "per_rank_times_s": [[2e-3] * 9 + [4e-3], [1e-3] * 9 + [5e-3]],
           "inner": 1, "sets": 1, "check": {"ok": True, "detail": "SUM ..."}}
    fig = figure("allreduce", {"mib": 256}, raw, peak_info("allreduce", {}))
    # world 2: bus bandwidth = bytes x 2(n-1)/n = bytes; median of [2, 2, ..., 5] ms = 2 ms
    assert fig["value"] == pytest.approx(256 * 1024 * 1024 / 2e-3 / 1e9, abs=1e-3)
    assert (fig["ranks"], fig["backend"], fig["peak"], fig["peak_note"]) == (
        2, "nccl", None, "no theoretical peak for this test")


def test_compile_speedup_is_eager_over_compiled():
    raw = {"times_s": [1e-3] * 10, "eager_times_s": [3e-3] * 10, "compile_s": 12.5, "check": CHECK_OK}
    fig = figure("compile_speedup", {"rows": 8192, "cols": 8192}, raw, peak_info("compile_speedup", H100))
    assert (fig["value"], fig["unit"]) == (3.0, "x")
    assert fig["seconds"] == {"eager_median": 3e-3, "compiled_median": 1e-3, "compile": 12.5}


def test_p2p_gives_one_figure_per_ordered_pair():
    pair = {"times_s": [5e-3] * 10, "check": {"ok": True, "detail": "equal"}, "peer_access": True}
    figures = p2p_figures({"mib": 256}, {"pairs": {"1->0": pair, "0->1": pair}})
    assert [(fig["src"], fig["dst"], fig["status"], fig["peer_access"]) for fig in figures] == [
        (0, 1, "ok", True), (1, 0, "ok", True)]
    (failed,) = p2p_figures({"mib": 256}, {"error": "RuntimeError: boom"})
    assert (failed["status"], failed["src"], failed["error"]) == ("failed", None, "RuntimeError: boom")


def test_cpu_mode_has_no_peak():
    assert peak_info("gemm_fp32", None) == {"peak": None, "peak_source": None, "peak_note": "CPU mode: no peak"}
