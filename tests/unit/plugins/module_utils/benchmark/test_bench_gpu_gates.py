"""Each GPU judged as itself: per-GPU gates on mixed hosts, gates against expected figures and power."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gates import (
    evaluate, failure_message, gates_for, validate_gpu_gates)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product_line
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.plan import plan

RTX_4090 = {"name": "NVIDIA GeForce RTX 4090", "capability": [8, 9], "sm_count": 128, "max_sm_clock_mhz": 2520,
            "max_mem_clock_mhz": 10501, "memory_bus_width_bits": 384}
PRO_6000 = {"name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "capability": [12, 0], "sm_count": 188,
            "max_sm_clock_mhz": 2617, "max_mem_clock_mhz": 14001, "memory_bus_width_bits": 512}
RTX_5090 = {"name": "NVIDIA GeForce RTX 5090", "capability": [12, 0], "sm_count": 170, "max_sm_clock_mhz": 2407,
            "max_mem_clock_mhz": 14001, "memory_bus_width_bits": 512}
RTX_6000_ADA = {"name": "NVIDIA RTX 6000 Ada Generation", "capability": [8, 9], "sm_count": 142,
                "max_sm_clock_mhz": 2505, "max_mem_clock_mhz": 10001, "memory_bus_width_bits": 384}
OK = {"ok": True, "rel_error": 1e-3, "bound": 1e-2}
GEMM = {"m": 8192, "n": 8192, "k": 8192}


def device(index, gpu, tflops):
    """A benchmark device entry whose gemm_bf16 ran at `tflops`."""
    seconds = 2.0 * 8192 ** 3 / (tflops * 1e12)
    fig = figure("gemm_bf16", GEMM, {"times_s": [seconds] * 10, "check": OK}, peak_info("gemm_bf16", gpu))
    return {"index": index, "name": gpu["name"], "product_line": product_line(gpu["name"]),
            "figures": {"gemm_bf16": fig}}


def host(*devices):
    return {"devices": list(devices), "multi_gpu": None}


def sustained_device(index, gpu, fraction, ratio):
    """A device entry whose sustained figure settled at `fraction` of its peak, `ratio` of its first second."""
    fig = {"test": "sustained", "status": "ok", "value": 100.0, "unit": "TFLOP/s", "peak": 200.0,
           "peak_source": "derived", "fraction_of_peak": fraction, "error": None, "sustained": {"ratio": ratio},
           "telemetry": {"reasons": ["sw_power_cap"], "sm_clock_mhz": {"min": 2200, "median": 2300, "max": 2400}}}
    return {"index": index, "name": gpu["name"], "product_line": product_line(gpu["name"]),
            "figures": {"sustained": fig}}


def test_a_geforce_and_a_workstation_card_each_take_their_own_lines_defaults():
    """The GeForce line allows a sustained/first ratio of 0.6, the workstation line 0.7: the same 0.65 passes on
    the RTX 4090 and fails on the RTX PRO 6000 beside it, whichever GPU comes first."""
    for order in ((RTX_4090, PRO_6000), (PRO_6000, RTX_4090)):
        effective = plan({"profile": "standard", "gpu_names": [gpu["name"] for gpu in order]})
        doc = host(*[sustained_device(index, gpu, 0.5, 0.65) for index, gpu in enumerate(order)])
        failures = evaluate(effective["gates"], doc, "ws-mixed", effective["gpu_gates"])
        assert [(f["gpu_name"], f["gate"], f["bound"]) for f in failures] == [
            (PRO_6000["name"], "min_sustained_ratio", 0.7)]
    geforce = sustained_device(0, RTX_4090, 0.5, 0.65)
    assert gates_for(geforce, effective["gates"], effective["gpu_gates"])["sustained"]["min_sustained_ratio"] == 0.6


def test_a_blackwell_and_an_ada_card_are_judged_by_their_own_gpu_gates():
    gpu_gates = [{"model": RTX_5090["name"], "gates": {"gemm_bf16": {"min_tflops": 180}}},
                 {"model": RTX_6000_ADA["name"], "gates": {"gemm_bf16": {"min_tflops": 300}}}]
    doc = host(device(0, RTX_5090, 190.0), device(1, RTX_6000_ADA, 290.0))
    failures = evaluate({"gemm_bf16": {"min_tflops": 1000}}, doc, "ws-b", gpu_gates)
    assert [(f["gpu_index"], f["bound"], f["value"]) for f in failures] == [(1, 300, 290.0)]
    assert failure_message(failures, "ws-b").startswith(
        "1 benchmark gate(s) failed on ws-b: gemm_bf16 on GPU 1 (NVIDIA RTX 6000 Ada Generation): min_tflops 300: "
        "measured 290 < bound 300, 290.0 TFLOP/s")


def test_an_index_entry_names_one_gpu_and_the_rest_take_the_common_gates():
    doc = host(device(0, RTX_5090, 150.0), device(1, RTX_5090, 150.0))
    failures = evaluate({"gemm_bf16": {"min_tflops": 160}}, doc, "ws", [{"index": 1, "gates": {
        "gemm_bf16": {"min_tflops": 100}}}])
    assert [f["gpu_index"] for f in failures] == [0]


def test_a_line_entry_matches_the_devices_own_line_and_keys_must_all_agree():
    card = device(0, RTX_5090, 150.0)
    assert gates_for(card, {}, [{"line": "geforce", "gates": {"memcpy": {"min_gbps": 1}}}]) == {
        "memcpy": {"min_gbps": 1}}
    assert gates_for(card, {"x": {}}, [{"line": "geforce", "index": 1, "gates": {}}]) == {"x": {}}


def test_bad_gpu_gates_are_refused_with_their_position():
    assert validate_gpu_gates([{"model": "", "gates": {"gemm_bf16": {"min_tflops": 1}}},
                               {"index": 0, "line": "gaming", "gates": {"gemm_bf16": {"min_tflop": 1}}},
                               {"index": 0, "colour": "red", "gates": {"allreduce": {"min_gbps": 1}}},
                               "x"], {}, "cuda") == [
        "gpu_gates[0].model must be a GPU model name, got ''",
        "gpu_gates[1].line must be one of geforce, workstation, datacenter, got 'gaming'",
        "gpu_gates[1]: unknown gate 'min_tflop' for gemm_bf16; gates for gemm_bf16: min_fraction_of_peak, "
        "min_fraction_of_expected, min_tflops, forbid_clock_reasons",
        "gpu_gates[2] has unknown key(s) colour; keys: model, index, line, gates",
        "gpu_gates[2] gates allreduce, figures between GPUs: give them in the common gates",
        "gpu_gates[3] must be a dict with model, index or line, and gates"]
    assert validate_gpu_gates({"model": "x"}, {}, "cuda") == ["gpu_gates must be a list of {model | index | line, gates}"]
    assert validate_gpu_gates([{"index": 0, "gates": {}}], {}, "cpu") == ["gpu_gates apply to device cuda only"]


def fig_with(expected=None, power=None):
    """A sustained figure of 436 TFLOP/s on an H100 (what figures.figure() gives, with the fields gates read)."""
    return {"test": "sustained", "status": "ok", "value": 436.0, "unit": "TFLOP/s", "peak": 989.0,
            "peak_source": "table", "fraction_of_peak": 0.4408, "error": None, "sustained": {"ratio": 0.9},
            "expected": expected, "fraction_of_expected": 0.6412 if expected else None, "power": power}


def test_expected_and_power_gates_read_their_fields_and_say_why_when_missing():
    expected = {"value": 680.0, "fraction_of_peak": 0.69, "source": "measured on NVIDIA H100 80GB HBM3", "basis": "b"}
    power = {"median_w": 420.0, "max_w": 440.0, "limit_w": 700.0, "fraction_of_limit": 0.6}
    doc = {"devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "product_line": "datacenter",
                        "figures": {"sustained": fig_with(expected, power)}}], "multi_gpu": None}
    failures = evaluate({"sustained": {"min_fraction_of_expected": 0.75, "min_power_fraction": 0.9}}, doc, "h")
    assert [(f["gate"], f["measured"]) for f in failures] == [
        ("min_fraction_of_expected", 0.6412), ("min_power_fraction", 0.6)]
    assert "min_fraction_of_expected 0.75: measured 0.6412 < bound 0.75, 436.0 TFLOP/s" in failure_message(failures, "h")
    assert "expected 680.0 TFLOP/s (measured on NVIDIA H100 80GB HBM3)" in failure_message(failures, "h")
    doc["devices"][0]["figures"]["sustained"] = fig_with()
    missing = evaluate({"sustained": {"min_fraction_of_expected": 0.75, "min_power_fraction": 0.9}}, doc, "h")
    assert [f["reason"] for f in missing] == [
        "no expected figure for this model, size and backend (see docs/modules/torch_benchmark.md, Expected "
        "figures): gate it on min_fraction_of_peak instead",
        "no power reading against the enforced power limit (NVML)"]
