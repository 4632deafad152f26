"""Real-looking verification results (schema blackwell.pytorch.verify/1) for the report tests:
an H100 SXM at its 700 W power cap (healthy), and an RTX PRO 6000 slowed by heat (failed)."""
from __future__ import annotations

import copy


def _figure(test, value, unit, peak, reasons=(), sm=None, ratio=None, size="m=8192 n=8192 k=8192 bf16"):
    fig = {"test": test, "size": size, "unit": unit, "status": "ok", "value": value, "peak": peak,
           "peak_source": "table", "fraction_of_peak": round(value / peak, 4) if peak else None,
           "telemetry": {"samples": 12, "reasons": list(reasons), "reasons_mask": 0,
                         "sm_clock_mhz": {"min": sm, "median": sm, "max": sm} if sm else None,
                         "power_w": {"min": 640.0, "median": 699.5, "max": 701.2},
                         "temperature_c": {"min": 52, "median": 61, "max": 66}}}
    if ratio is not None:
        fig["sustained"] = {"first_rate": round(value / ratio, 1), "last_rate": value, "ratio": ratio}
    return fig


def h100_result(host="ws-h100-01"):
    return {
        "schema": "blackwell.pytorch.verify/1", "host": host, "passed": True, "message": "all gates passed",
        "written": "2026-11-23T03:40:00Z", "reused": False, "results": "/var/lib/blackwell-pytorch/verify.json",
        "fingerprint": {"driver_version": "580.159.04", "cuda_toolkit": "13.0.2",
                        "torch": {"version": "2.11.0+cu130", "cuda": "13.0", "git_version": "abc"},
                        "packages": ["numpy==2.3.4", "torch==2.11.0+cu130"], "gpu_uuids": ["GPU-0a"],
                        "collection_version": "0.2.0", "digest": "d" * 64},
        "failed_gates": [],
        "benchmark": {"devices": [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-0a", "figures": {
            "gemm_bf16": _figure("gemm_bf16", 795.2, "TFLOP/s", 989.0, ["sw_power_cap"], 1755),
            "memcpy": _figure("memcpy", 2905.0, "GB/s", 3352.0, [], 1980, size="mib=1024"),
            "sustained": _figure("sustained", 681.0, "TFLOP/s", 989.0, ["sw_power_cap"], 1365, ratio=0.856,
                                 size="m=8192 n=8192 k=8192 seconds=25 bf16")}}]},
    }


def hot_result(host="ws-pro6000-02"):
    result = copy.deepcopy(h100_result(host))
    device = result["benchmark"]["devices"][0]
    device.update(name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition", uuid="GPU-1b")
    device["figures"]["sustained"] = _figure("sustained", 150.0, "TFLOP/s", 503.8,
                                             ["sw_power_cap", "hw_thermal_slowdown"], 900, ratio=0.45)
    result.update(passed=False, message="1 benchmark gate(s) failed on %s: sustained on GPU 0 (...): "
                                        "forbid_clock_reasons hw_thermal_slowdown" % host,
                  failed_gates=[{"test": "sustained", "gate": "forbid_clock_reasons"}])
    return result


def cpu_result(host):
    """What a container in CPU benchmark mode reports (no peak, no telemetry)."""
    return {
        "schema": "blackwell.pytorch.verify/1", "host": host, "passed": True, "message": "all gates passed",
        "written": "2026-11-23T03:41:00Z", "results": "/var/lib/blackwell-pytorch/verify.json",
        "fingerprint": {"driver_version": None, "cuda_toolkit": None,
                        "torch": {"version": "2.13.0+cpu", "cuda": None, "git_version": "abc"}},
        "failed_gates": [],
        "benchmark": {"devices": [{"index": None, "name": "x86_64", "uuid": None, "figures": {
            "gemm_fp32": {"test": "gemm_fp32", "size": "m=256 n=256 k=256 fp32", "unit": "TFLOP/s", "status": "ok",
                          "value": 0.0421, "peak": None, "fraction_of_peak": None, "telemetry_error": "CPU mode"}}}]},
    }
