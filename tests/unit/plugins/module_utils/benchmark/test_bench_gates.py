from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import (
    figure, p2p_figures, peak_info)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gates import (
    evaluate, failure_message, validate)

H100 = {"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "sm_count": 132, "max_sm_clock_mhz": 1980,
        "max_mem_clock_mhz": 2619, "memory_bus_width_bits": 5120}
GEMM = {"m": 8192, "n": 8192, "k": 8192}
OK = {"ok": True, "rel_error": 1e-3, "bound": 1e-2}


def gemm_figure(seconds):
    return figure("gemm_bf16", GEMM, {"times_s": [seconds] * 10, "check": OK}, peak_info("gemm_bf16", H100))


def document(gemm_seconds=1.3893e-3, memcpy=None):
    """One H100 (792 TFLOP/s bf16 by default) and two GPUs' worth of P2P."""
    memcpy_raw = memcpy if memcpy is not None else {"times_s": [7.135e-4] * 10, "check": {"ok": True, "detail": ""}}
    pair = {"times_s": [1e-2] * 10, "check": {"ok": True, "detail": ""}}
    return {"devices": [{"index": 0, "name": H100["name"], "figures": {
        "gemm_bf16": gemm_figure(gemm_seconds),
        "memcpy": figure("memcpy", {"mib": 1024}, memcpy_raw, peak_info("memcpy", H100))}},
        {"index": 1, "name": H100["name"], "figures": {"gemm_bf16": gemm_figure(1.3893e-3)}}],
        "multi_gpu": {"gpus": [0, 1], "figures": {
            "p2p": p2p_figures({"mib": 256}, {"pairs": {"0->1": pair, "1->0": pair}})}}}


def test_valid_gates_pass_validation():
    gates = {"gemm_bf16": {"min_fraction_of_peak": 0.6, "min_tflops": 500}, "memcpy": {"min_gbps": 2500},
             "p2p": {"min_gbps": 20}}
    assert validate(gates, {}, "cuda") == []


@pytest.mark.parametrize("gates, error", [
    ({"gemm_bf17": {"min_tflops": 1}}, "gates name an unknown test 'gemm_bf17'; known tests: gemm_fp16"),
    ({"gemm_bf16": {"min_tflop": 1}},
     "unknown gate 'min_tflop' for gemm_bf16; gates for gemm_bf16: min_fraction_of_peak, min_fraction_of_expected, "
     "min_tflops, forbid_clock_reasons"),
    ({"memcpy": {"min_tflops": 1}}, "unknown gate 'min_tflops' for memcpy; gates for memcpy: min_fraction_of_peak, "
                                    "min_fraction_of_expected, min_gbps, forbid_clock_reasons"),
    ({"p2p": {"min_fraction_of_peak": 0.5}},
     "unknown gate 'min_fraction_of_peak' for p2p; gates for p2p: min_fraction_of_expected, min_gbps"),
    ({"gemm_fp8": {"min_tflops": 1}}, "gate on gemm_fp8, a test that does not run: needs compute capability >= 8.9"),
    ({"gemm_bf16": {"min_tflops": -1}}, "gate gemm_bf16.min_tflops must be a non-negative number, got -1"),
    ({"gemm_bf16": {"min_tflops": "fast"}}, "gate gemm_bf16.min_tflops must be a non-negative number, got 'fast'"),
    ({"gemm_bf16": {"min_tflops": True}}, "gate gemm_bf16.min_tflops must be a non-negative number, got True"),
    ({"gemm_bf16": {}}, "gates.gemm_bf16 must be a non-empty dict of bounds (min_fraction_of_peak, "
                        "min_fraction_of_expected, min_tflops, forbid_clock_reasons)"),
])
def test_gates_that_cannot_be_evaluated_are_refused(gates, error):
    errors = validate(gates, {"gemm_fp8": "needs compute capability >= 8.9"}, "cuda")
    assert len(errors) == 1 and errors[0].startswith(error)


def test_no_fraction_of_peak_in_cpu_mode():
    assert validate({"gemm_fp32": {"min_fraction_of_peak": 0.1}}, {}, "cpu") == [
        "gate gemm_fp32.min_fraction_of_peak cannot be evaluated with device cpu: CPU mode has no peak"]


def test_gates_must_be_a_dict():
    assert validate(["gemm_bf16"], {}, "cuda") == ["gates must be a dict: test name -> {bound name: number}"]


def test_pass():
    gates = {"gemm_bf16": {"min_fraction_of_peak": 0.6}, "memcpy": {"min_gbps": 2500}, "p2p": {"min_gbps": 20}}
    assert evaluate(gates, document(), "gpu-host-1") == []


def test_fail_names_host_gpu_value_bound_and_peak():
    slow = 2.0 * 8192 ** 3 / 500e12  # 500 TFLOP/s on GPU 0 only
    failures = evaluate({"gemm_bf16": {"min_fraction_of_peak": 0.6}}, document(gemm_seconds=slow), "gpu-host-1")
    assert failures == [{
        "host": "gpu-host-1", "test": "gemm_bf16", "gpu_index": 0, "gpu_name": "NVIDIA H100 80GB HBM3",
        "gate": "min_fraction_of_peak", "bound": 0.6, "measured": 0.5056, "value": 500.0, "unit": "TFLOP/s",
        "peak": 989.0, "peak_source": "table", "expected": None, "reason": "measured 0.5056 < bound 0.6"}]
    assert failure_message(failures, "gpu-host-1") == (
        "1 benchmark gate(s) failed on gpu-host-1: gemm_bf16 on GPU 0 (NVIDIA H100 80GB HBM3): "
        "min_fraction_of_peak 0.6: measured 0.5056 < bound 0.6, 500.0 TFLOP/s, peak 989.0 TFLOP/s (table)")


def test_every_gpu_pair_is_gated():
    failures = evaluate({"p2p": {"min_gbps": 100}}, document(), "h")
    assert [(f["gpu_index"], f["gpu_name"]) for f in failures] == [
        ("0->1", "NVIDIA H100 80GB HBM3 -> NVIDIA H100 80GB HBM3"),
        ("1->0", "NVIDIA H100 80GB HBM3 -> NVIDIA H100 80GB HBM3")]
    assert failures[0]["value"] == 26.8435


def test_a_missing_figure_fails_its_gate():
    doc = document(memcpy={"error": "OutOfMemoryError: CUDA out of memory."})
    (failure,) = evaluate({"memcpy": {"min_gbps": 2500}}, doc, "h")
    assert (failure["measured"], failure["gpu_index"]) == (None, 0)
    assert failure["reason"] == "no figure: failed (OutOfMemoryError: CUDA out of memory.)"
    assert "memcpy on GPU 0 (NVIDIA H100 80GB HBM3): min_gbps 2500: no figure: failed" in failure_message(
        [failure], "h")


def test_a_fraction_gate_without_a_peak_fails():
    doc = document()
    doc["devices"][0]["figures"]["gemm_bf16"].update(
        peak=None, peak_source=None, fraction_of_peak=None,
        peak_note="no max SM clock (NVML) known to derive a bf16 peak")
    (failure,) = evaluate({"gemm_bf16": {"min_fraction_of_peak": 0.5}}, doc, "h")
    assert failure["reason"] == "no peak known: no max SM clock (NVML) known to derive a bf16 peak"
    assert failure["value"] == pytest.approx(791.4, abs=0.1)


def sustained_doc(reasons, ratio_settled=680.0, telemetry=True):
    per = 36 * 2.0 * 8192 ** 3
    times = [per / 795e12] * 30 + [per / (ratio_settled * 1e12)] * 400
    raw = {"times_s": [t / 36 for t in times], "chunks_s": times, "inner": 36, "check": OK}
    if telemetry:
        raw["telemetry"] = {"samples": 250, "reasons": reasons, "reasons_mask": 0,
                            "sm_clock_mhz": {"min": 1350, "median": 1365, "max": 1980}}
    else:
        raw["telemetry_error"] = "nvidia-ml-py is not installed"
    fig = figure("sustained", dict(GEMM, seconds=25), raw, peak_info("sustained", H100))
    return {"devices": [{"index": 0, "name": H100["name"], "figures": {"sustained": fig}}], "multi_gpu": None}


DEFAULT_SUSTAINED = {"min_fraction_of_peak": 0.5, "min_sustained_ratio": 0.7,
                     "forbid_clock_reasons": ["hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown"]}


def test_power_capped_card_passes_default_sustained_gates():
    assert validate({"sustained": DEFAULT_SUSTAINED}, {}, "cuda") == []
    assert evaluate({"sustained": DEFAULT_SUSTAINED}, sustained_doc(["sw_power_cap"]), "gpu1") == []


def test_thermally_slowed_card_fails_naming_host_gpu_reason_clock_and_figure():
    failures = evaluate({"sustained": DEFAULT_SUSTAINED},
                        sustained_doc(["sw_power_cap", "hw_thermal_slowdown"], ratio_settled=420.0), "gpu1")
    assert sorted(f["gate"] for f in failures) == ["forbid_clock_reasons", "min_fraction_of_peak",
                                                   "min_sustained_ratio"]
    message = failure_message(failures, "gpu1")
    assert "on gpu1" in message and "GPU 0 (NVIDIA H100 80GB HBM3)" in message
    assert "hw_thermal_slowdown seen" in message and "SM clock 1350-1980 MHz (median 1365)" in message
    assert "sustained 420" in message and "TFLOP/s" in message
    ratio = [f for f in failures if f["gate"] == "min_sustained_ratio"][0]
    assert ratio["measured"] == pytest.approx(420 / 795.0, abs=1e-3)


def test_forbidding_sw_power_cap_fails_a_power_capped_card():
    failures = evaluate({"sustained": {"forbid_clock_reasons": ["sw_power_cap"]}}, sustained_doc(["sw_power_cap"]),
                        "h100")
    assert len(failures) == 1 and failures[0]["measured"] == ["sw_power_cap"]
    assert "sw_power_cap seen, SM clock 1350-1980 MHz" in failure_message(failures, "h100")


def test_forbidden_reasons_without_telemetry_fail():
    failures = evaluate({"sustained": {"forbid_clock_reasons": ["hw_slowdown"]}}, sustained_doc([], telemetry=False),
                        "h100")
    assert len(failures) == 1 and "no GPU telemetry: nvidia-ml-py is not installed" in failures[0]["reason"]


@pytest.mark.parametrize("gates, device, error", [
    ({"sustained": {"forbid_clock_reasons": ["too_hot"]}}, "cuda", "names unknown reason(s) too_hot"),
    ({"sustained": {"forbid_clock_reasons": []}}, "cuda", "must be a non-empty list of reason names"),
    ({"sustained": {"forbid_clock_reasons": "hw_slowdown"}}, "cuda", "must be a non-empty list of reason names"),
    ({"gemm_bf16": {"forbid_clock_reasons": ["hw_slowdown"]}}, "cpu", "CPU mode has no GPU telemetry"),
    ({"gemm_bf16": {"min_sustained_ratio": 0.7}}, "cuda", "unknown gate 'min_sustained_ratio' for gemm_bf16"),
    ({"sustained": {"min_sustained_ratio": -0.1}}, "cuda", "must be a non-negative number"),
])
def test_reason_and_ratio_gates_that_cannot_be_evaluated_are_refused(gates, device, error):
    errors = validate(gates, {}, device)
    assert len(errors) == 1 and error in errors[0]
