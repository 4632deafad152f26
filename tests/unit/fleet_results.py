"""Verification results of a mixed fleet for the fleet report tests: RTX 5090, RTX PRO 6000, H100
and L40S workstations with the figures torch_benchmark writes (gemm_bf16, memcpy, h2d, d2h,
sustained), each near what that GPU measures, with a small per-host spread. The H100 and RTX PRO
6000 figures carry the figure expected of their model (`expected`, `fraction_of_expected`); the
RTX 5090 and L40S have no reference, as a model nobody measured, and are compared with their peers
only. The low-precision block of a GPU (`low_precision`: its libraries and each recipe's state) is
given to a few GPUs of the mixed fleet: the H200's (sm_90: FP8 runs, MXFP8 and NVFP4 refused) and an
RTX 5090's (sm_120: NVFP4 runs, FP8 row-wise refused by cuBLASLt)."""
from __future__ import annotations

import copy

# model -> (bf16 peak TFLOP/s, memory peak GB/s, PCIe peak GB/s)
MODELS = {
    "NVIDIA GeForce RTX 5090": (209.5, 1792.0, 63.0),
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": (503.8, 1792.0, 63.0),
    "NVIDIA H100 80GB HBM3": (989.0, 3352.0, 63.0),
    "NVIDIA L40S": (362.0, 864.0, 31.5),
}
# test -> (peak index, typical fraction of peak, unit)
TESTS = {"gemm_bf16": (0, 0.80, "TFLOP/s"), "memcpy": (1, 0.87, "GB/s"), "h2d": (2, 0.84, "GB/s"),
         "d2h": (2, 0.83, "GB/s"), "sustained": (0, 0.72, "TFLOP/s")}
# the models with a reference row: a healthy GPU of the model reaches the typical fraction
WITH_EXPECTED = ("NVIDIA H100 80GB HBM3", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition")
SOURCE = "measured on NVIDIA H100 80GB HBM3, driver 580.159.04, torch 2.11.0+cu130, 2026-11-28"
BASIS = "torch_benchmark's method: CUDA events, median of >= 10 repetitions, median over runs and cards"


LIBRARIES = {"torch": "2.11.0+cu130", "cuda": "13.0", "cublaslt": "13.1.0", "driver": "580.159.04"}
NOT_IN_QUICK = "not in profile quick (standard and full run it)"
SM90_REFUSED = "not supported on sm_90: %s needs compute capability 10.0+"
ROWWISE_REFUSED = ("cuBLASLt 13.1.0 has no row-wise scaled FP8 GEMM for sm_120 (CUBLAS_STATUS_NOT_SUPPORTED "
                   "from cublasLtMatmulAlgoGetHeuristic)")


def recipe(name, test, state, value=None, fraction=None, reason=None):
    """One recipe of a GPU's `low_precision` block, as the benchmark writes it."""
    return {"recipe": name, "test": test, "state": state, "value": value, "unit": "TFLOP/s",
            "fraction_of_peak": fraction, "reason": reason}


# an H200 (sm_90): the FP8 recipes run, the MXFP8 and NVFP4 ones are refused, grouped FP8 is not in the profile
H200_LOW_PRECISION = {"libraries": dict(LIBRARIES), "recipes": [
    recipe("FP8 per-tensor", "gemm_fp8", "runs", 1446.7, 0.7312),
    recipe("FP8 row-wise", "gemm_fp8_rowwise", "runs", 1398.2, 0.7067),
    recipe("MXFP8 (TN)", "gemm_mxfp8", "refused", reason=SM90_REFUSED % "MXFP8"),
    recipe("MXFP8 (NN)", "gemm_mxfp8_nn", "refused", reason=SM90_REFUSED % "MXFP8"),
    recipe("NVFP4", "gemm_nvfp4", "refused", reason=SM90_REFUSED % "NVFP4"),
    recipe("grouped FP8", "gemm_grouped_fp8", "not_measured", reason=NOT_IN_QUICK)]}
# an RTX 5090 (sm_120): NVFP4 and MXFP8 (TN) run, FP8 row-wise is refused by cuBLASLt, MXFP8 (NN) gave a wrong
# result
RTX5090_LOW_PRECISION = {"libraries": dict(LIBRARIES), "recipes": [
    recipe("FP8 per-tensor", "gemm_fp8", "runs", 331.2, 0.7905),
    recipe("FP8 row-wise", "gemm_fp8_rowwise", "refused", reason=ROWWISE_REFUSED),
    recipe("MXFP8 (TN)", "gemm_mxfp8", "runs", 318.4, 0.7599),
    recipe("MXFP8 (NN)", "gemm_mxfp8_nn", "wrong_result",
           reason="max abs error 0.32 above the tolerance 0.05 of the bf16 reference"),
    recipe("NVFP4", "gemm_nvfp4", "runs", 1184.3, 0.7066),
    recipe("grouped FP8", "gemm_grouped_fp8", "not_measured", reason=NOT_IN_QUICK)]}


def with_low_precision(document, low_precision, gpus=None):
    """A copy of the result whose GPUs (`gpus`: their indexes; None: every GPU) carry `low_precision`."""
    document = copy.deepcopy(document)
    for device in document["benchmark"]["devices"]:
        if gpus is None or device["index"] in gpus:
            device["low_precision"] = copy.deepcopy(low_precision)
    return document


def expected(fraction, peak):
    """The `expected` of a figure: `fraction` of its peak."""
    return {"value": float("%.5g" % (fraction * peak)), "fraction_of_peak": fraction, "source": SOURCE,
            "basis": BASIS}


def set_value(fig, value):
    """Give a figure a new value, its fraction of peak and of expected following."""
    fig["value"] = value
    fig["fraction_of_peak"] = round(value / fig["peak"], 4) if fig.get("peak") else None
    if fig.get("expected"):
        fig["fraction_of_expected"] = round(value / fig["expected"]["value"], 4)
    return fig


def figure(test, value, unit, peak, reasons=(), sm=1900.0, ratio=None, fraction=None, size="mib=1024"):
    """A figure as torch_benchmark writes it; `fraction`: the expected fraction of peak (None: no reference)."""
    fig = {"test": test, "size": size, "unit": unit, "status": "ok", "value": value, "peak": peak,
           "peak_source": "table", "expected": expected(fraction, peak) if fraction else None,
           "fraction_of_expected": None,
           "telemetry": {"samples": 12, "reasons": list(reasons), "reasons_mask": 0,
                         "sm_clock_mhz": {"min": sm, "median": sm, "max": sm}}}
    set_value(fig, value)
    if ratio is not None:
        fig["sustained"] = {"first_rate": round(value / ratio, 1), "last_rate": value, "ratio": ratio}
    return fig


def spread(host, test):
    """A stable spread of +-2 % per host and test (the same host gives the same figures)."""
    return 1.0 + ((sum(map(ord, host + test)) % 9) - 4) / 200.0


def result(host, model, written="2026-11-23T03:40:00Z", gpus=1, scale=None, reasons=None, sm=None):
    """A passed verification result; `scale` {test: factor} slows (or speeds) figures of every GPU,
    `reasons` {test: [clock event reasons]} and `sm` {test: SM clock} set their telemetry."""
    scale, reasons, sm = scale or {}, reasons or {}, sm or {}
    devices = []
    for index in range(gpus):
        figures = {}
        for test, (which, fraction, unit) in TESTS.items():
            peak = MODELS[model][which]
            value = round(peak * fraction * spread(host, test) * scale.get(test, 1.0), 2)
            seen = reasons.get(test, ["sw_power_cap"] if unit == "TFLOP/s" else [])
            figures[test] = figure(test, value, unit, peak, seen, sm.get(test, 1900.0),
                                   ratio=0.9 if test == "sustained" else None,
                                   fraction=fraction if model in WITH_EXPECTED else None)
        devices.append({"index": index, "name": model, "uuid": "GPU-%s-%d" % (host, index), "figures": figures})
    return {"schema": "blackwell.pytorch.verify/1", "host": host, "passed": True, "message": "all gates passed",
            "written": written, "results": "/var/lib/blackwell-pytorch/verify.json",
            "fingerprint": {"driver_version": "580.159.04", "cuda_toolkit": "13.0.2",
                            "torch": {"version": "2.11.0+cu130", "cuda": "13.0"}, "packages": ["torch==2.11.0+cu130"],
                            "collection_version": "0.4.0"},
            "failed_gates": [], "benchmark": {"devices": devices}}


def fleet_of(count, written="2026-11-23T03:40:00Z"):
    """{host: result} of `count` hosts, the four models in turn (ws-000 ... )."""
    names = sorted(MODELS)
    return dict(("ws-%03d" % number, result("ws-%03d" % number, names[number % len(names)], written))
                for number in range(count))


def model_of(document):
    return document["benchmark"]["devices"][0]["name"]


def scaled(document, test, factor, reasons=None, sm=None):
    """A copy of the result with `test` of every GPU times `factor` (and its reasons / SM clock)."""
    document = copy.deepcopy(document)
    for device in document["benchmark"]["devices"]:
        fig = set_value(device["figures"][test], round(device["figures"][test]["value"] * factor, 2))
        if reasons is not None:
            fig["telemetry"]["reasons"] = list(reasons)
        if sm is not None:
            fig["telemetry"]["sm_clock_mhz"] = {"min": sm, "median": sm, "max": sm}
    return document


def mixed_fleet(count, before="2026-11-20T08:00:00Z", now="2026-11-23T03:40:00Z"):
    """(documents, previous fleet.json document's inputs, play hosts) of `count` hosts with one silently slow
    GPU (ws-001, slow then and now), one that dropped since its last verification (ws-002), one not in this
    play (ws-003, shown from its stored result), one that failed (ws-004) and one never verified (ws-new);
    and two more: a pair of H200 over NVLink with its P2P and all-reduce figures (ws-nvl) and a host whose
    GPU another user's process held (ws-busy, deferred: neither passed nor failed). The first RTX 5090
    (ws-000) and the second H100 (ws-005, sm_90: the H200's block) carry the low-precision block; so did the
    stored ws-003 (sm_120 as the RTX 5090) in its earlier result."""
    from fleet_lab_results import busy_result, h200_pair_result, lab_result
    earlier = fleet_of(count, before)
    earlier["ws-001"] = scaled(earlier["ws-001"], "gemm_bf16", 0.75, ["sw_power_cap", "hw_thermal_slowdown"], 1400)
    earlier.update({"ws-nvl": h200_pair_result("ws-nvl", written=before),
                    "ws-busy": lab_result("ws-busy", written=before)})
    current = fleet_of(count, now)
    current["ws-001"] = scaled(current["ws-001"], "gemm_bf16", 0.75, ["sw_power_cap", "hw_thermal_slowdown"], 1400)
    earlier["ws-002"] = scaled(earlier["ws-002"], "memcpy", 1.15)  # among its peers now, but below its own past
    current["ws-002"] = scaled(current["ws-002"], "memcpy", 0.95, [], 1500)
    current["ws-004"] = dict(current["ws-004"], passed=False, failed_gates=[{"test": "sustained", "gate": "min_tflops"}],
                             message="1 benchmark gate(s) failed on ws-004: sustained on GPU 0: min_tflops")
    current.update({"ws-nvl": h200_pair_result("ws-nvl", written=now), "ws-busy": busy_result("ws-busy", now)})
    for documents in (earlier, current):  # an H100 is sm_90 as the H200
        for host, block in (("ws-000", RTX5090_LOW_PRECISION), ("ws-005", H200_LOW_PRECISION)):
            if isinstance(documents.get(host), dict):
                documents[host] = with_low_precision(documents[host], block)
    if "ws-003" in earlier:
        earlier["ws-003"] = with_low_precision(earlier["ws-003"], RTX5090_LOW_PRECISION)
    play = sorted(name for name in current if name != "ws-003")
    current["ws-003"] = None
    current["ws-new"] = None
    return current, earlier, play
