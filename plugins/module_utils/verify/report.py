# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A verification result in a few words, and as a Prometheus textfile for node_exporter.

The result document (schema blackwell.pytorch.verify/1) holds host, passed, message,
written, fingerprint, cuda_check and the torch_benchmark document. key_figures() picks
the figures a person looks at first; summary() puts them in one line per GPU (and a line per GPU on
the low-precision recipes that run there, benchmark/capability.py);
prometheus() renders every figure with `gpu`, `uuid`, `test` and `dtype` labels in
Prometheus base units. Pure functions, no Ansible import.
"""
from __future__ import annotations

import calendar
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.capability import line as low_precision_line

KEY_TESTS = ("gemm_bf16", "memcpy", "sustained")
CPU_KEY_TESTS = ("gemm_fp32", "memcpy", "sustained")
# unit -> (metric name, factor to the base unit)
UNIT_METRICS = {"TFLOP/s": ("flop_per_second", 1e12), "GB/s": ("bytes_per_second", 1e9),
                "tokens/s": ("tokens_per_second", 1.0), "images/s": ("images_per_second", 1.0),
                "x": ("speedup_ratio", 1.0)}
PREFIX = "blackwell_pytorch_"
HELP = {
    "verify_passed": "1 when the last verification of this host passed, else 0.",
    "verify_timestamp_seconds": "When the last verification result was written (Unix time).",
    "benchmark_fraction_of_peak_ratio": "Measured value / theoretical peak of a benchmark figure.",
    "benchmark_fraction_of_expected_ratio": "Measured value / the figure expected of this GPU model for the test and "
                                            "size (a per-SKU measurement).",
    "benchmark_sustained_ratio": "Rate of the last 5 s / rate of the first second of the sustained test.",
    "benchmark_sm_clock_hertz": "Median SM clock while the test ran.",
    "benchmark_power_watts": "Median board power while the test ran.",
    "benchmark_temperature_celsius": "Highest GPU temperature while the test ran.",
    "benchmark_clock_event_reason": "1 for each NVML clock-event reason seen while the test ran.",
}


def device_figures(document: Mapping[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(device entry, figures) per benchmarked device of a verification result."""
    benchmark = (document or {}).get("benchmark") or {}
    for device in benchmark.get("devices") or []:
        yield device, device.get("figures") or {}


def expected_of(fig: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """(expected value, fraction of expected) of a figure: its `expected.value` and `fraction_of_expected` (computed
    from the two when only the expectation is there); (None, None) without an expectation."""
    expected = (fig or {}).get("expected")
    value = expected.get("value") if isinstance(expected, dict) else None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        return None, None
    fraction = fig.get("fraction_of_expected")
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
        measured = fig.get("value")
        fraction = round(measured / value, 4) if isinstance(measured, (int, float)) else None
    return value, fraction


def key_figures(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{gpu, name, uuid, test, size, value, unit, peak, fraction_of_peak, expected, fraction_of_expected, status,
    reasons, sm_clock_mhz, ratio}] of the key tests (expected: the expected figure's value, or None)."""
    rows = []
    for device, figures in device_figures(document):
        keys = CPU_KEY_TESTS if device.get("index") is None else KEY_TESTS
        for test in keys:
            fig = figures.get(test)
            if not fig:
                continue
            telemetry = fig.get("telemetry") or {}
            expected, fraction = expected_of(fig)
            rows.append({"gpu": device.get("index"), "name": device.get("name"), "uuid": device.get("uuid"),
                         "test": test, "size": fig.get("size"), "value": fig.get("value"), "unit": fig.get("unit"),
                         "peak": fig.get("peak"), "fraction_of_peak": fig.get("fraction_of_peak"),
                         "expected": expected, "fraction_of_expected": fraction, "status": fig.get("status"),
                         "reasons": telemetry.get("reasons") or [],
                         "sm_clock_mhz": (telemetry.get("sm_clock_mhz") or {}).get("median"),
                         "ratio": (fig.get("sustained") or {}).get("ratio")})
    return rows


def figure_text(row: Mapping[str, Any]) -> str:
    """"gemm_bf16 795 TFLOP/s (0.98 of expected, 0.80 of peak)", with ratio, reasons and clock where known."""
    if row["value"] is None:
        return "%s %s" % (row["test"], row["status"])
    text = "%s %.4g %s" % (row["test"], row["value"], row["unit"])
    extra = []
    if row.get("fraction_of_expected") is not None:
        extra.append("%.2f of expected" % row["fraction_of_expected"])
    if row["fraction_of_peak"] is not None:
        extra.append("%.2f of peak" % row["fraction_of_peak"])
    if row["ratio"] is not None:
        extra.append("sustained/first %.2f" % row["ratio"])
    if row["sm_clock_mhz"] is not None:
        extra.append("SM %.0f MHz" % row["sm_clock_mhz"])
    if row["reasons"]:
        extra.append(",".join(row["reasons"]))
    return text + (" (%s)" % ", ".join(extra) if extra else "")


def gpu_text(gpu: int | None, name: str) -> str:
    """"GPU 0 NVIDIA H100 80GB HBM3", or "cpu" for a CPU-mode device."""
    return "cpu" if gpu is None else "GPU %s %s" % (gpu, name)


def figures_line(rows: Sequence[Mapping[str, Any]]) -> str:
    """"GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 795 TFLOP/s (0.98 of expected, 0.80 of peak), ..." of one device's
    key figure rows (the device of the first row)."""
    return "%s: %s" % (gpu_text(rows[0]["gpu"], rows[0]["name"]), ", ".join(figure_text(row) for row in rows))


def _memory(mib):
    if isinstance(mib, bool) or not isinstance(mib, (int, float)):
        return "memory unknown"
    return "%.1f GiB" % (mib / 1024.0) if mib >= 1024 else "%d MiB" % mib


def busy_text(busy: Mapping[str, Any]) -> str:
    """A result's `busy` as text: its own ("busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"), else made from
    its processes the same way."""
    if isinstance(busy.get("text"), str) and busy["text"]:
        return busy["text"]
    parts = ["GPU %s pid %s (%s, user %s, %s)" % (proc.get("gpu"), proc.get("pid"), proc.get("command") or "?",
                                                  proc.get("user") or "?", _memory(proc.get("memory_mib")))
             for proc in busy.get("processes") or [] if isinstance(proc, dict)]
    return "busy: " + ("; ".join(parts) if parts else "another process on the GPU")


def busy_note(document: Mapping[str, Any]) -> str | None:
    """"measured while busy: GPU 0 pid 1099 (python3, user root, 874 MiB)" of a result measured beside another
    process (`busy.state` measured_busy), else None."""
    busy = (document or {}).get("busy")
    if not isinstance(busy, dict) or busy.get("state") != "measured_busy":
        return None
    text = busy_text(busy)
    return "measured while busy: " + (text[len("busy: "):] if text.startswith("busy: ") else text)


def summary(document: Mapping[str, Any]) -> list[str]:
    """One line per device: "GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 795 TFLOP/s (0.98 of expected, 0.80 of peak),
    ...", then one per GPU on its low-precision recipes; a deferred busy result: its busy text; a result measured
    while busy: that note last."""
    document = document or {}
    if document.get("status") == "busy" and isinstance(document.get("busy"), dict):
        return [busy_text(document["busy"])]
    by_device = {}
    for row in key_figures(document):
        by_device.setdefault((row["gpu"], row["name"]), []).append(row)
    lines = [figures_line(rows) for rows in by_device.values()] or ["no benchmark figure"]
    for device, _figures in device_figures(document):  # which low-precision recipes run there (capability.py)
        text = low_precision_line(gpu_text(device.get("index"), device.get("name")), device.get("low_precision"))
        lines += [text] if text else []
    return lines + ([busy_note(document)] if busy_note(document) else [])


def check_gpu(gpu: Mapping[str, Any]) -> dict[str, Any]:
    """The few facts of a torch_cuda_check GPU entry the result keeps."""
    return {"index": gpu.get("index"), "name": gpu.get("name"), "sm": gpu.get("sm"),
            "verdict": (gpu.get("kernel_image") or {}).get("verdict")}


def _label(value):
    return str("" if value is None else value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _labels(pairs):
    return "{%s}" % ",".join('%s="%s"' % (key, _label(value)) for key, value in pairs)


def _dtype(fig):
    """The dtype that ends a figure's size text ("m=8192 n=8192 k=8192 bf16"), or ""."""
    last = (fig.get("size") or "").split(" ")[-1]
    return "" if "=" in last else last


def _timestamp(text):
    try:
        return calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def _samples(document):
    """(metric, labels, value) of every metric of a verification result."""
    host = [("host", document.get("host"))]
    yield "verify_passed", host, 1 if document.get("passed") else 0
    stamp = _timestamp(document.get("written"))
    if stamp is not None:
        yield "verify_timestamp_seconds", host, stamp
    for device, figures in device_figures(document):
        gpu = "cpu" if device.get("index") is None else device.get("index")
        for test, fig in sorted(figures.items()):
            if fig.get("value") is None:
                continue
            labels = host + [("gpu", gpu), ("uuid", device.get("uuid") or ""), ("test", test), ("dtype", _dtype(fig))]
            name, factor = UNIT_METRICS.get(fig.get("unit"), ("value", 1.0))
            yield "benchmark_" + name, labels, fig["value"] * factor
            if fig.get("fraction_of_peak") is not None:
                yield "benchmark_fraction_of_peak_ratio", labels, fig["fraction_of_peak"]
            if expected_of(fig)[1] is not None:
                yield "benchmark_fraction_of_expected_ratio", labels, expected_of(fig)[1]
            if (fig.get("sustained") or {}).get("ratio") is not None:
                yield "benchmark_sustained_ratio", labels, fig["sustained"]["ratio"]
            telemetry = fig.get("telemetry") or {}
            for key, metric, stat, factor in (("sm_clock_mhz", "sm_clock_hertz", "median", 1e6),
                                              ("power_w", "power_watts", "median", 1.0),
                                              ("temperature_c", "temperature_celsius", "max", 1.0)):
                if telemetry.get(key):
                    yield "benchmark_" + metric, labels, telemetry[key][stat] * factor
            for reason in telemetry.get("reasons") or []:
                yield "benchmark_clock_event_reason", labels + [("reason", reason)], 1


def textfile(samples: Iterable[tuple[str, Sequence[tuple[str, Any]], float]], help_text: Callable[[str], str],
             metric_type: Callable[[str], str] | None = None) -> str:
    """node_exporter's textfile format of (name, labels, value) samples: HELP and TYPE once per metric (in the
    order metrics first appear), then its samples. `help_text(name)` gives the help, `metric_type(name)` the
    type (default gauge)."""
    by_metric = {}
    for metric, labels, value in samples:
        by_metric.setdefault(metric, []).append((labels, value))
    lines = []
    for name, metric_samples in by_metric.items():
        lines.append("# HELP %s %s" % (name, help_text(name)))
        lines.append("# TYPE %s %s" % (name, metric_type(name) if metric_type else "gauge"))
        for labels, value in metric_samples:
            lines.append("%s%s %s" % (name, _labels(labels), repr(float(value)) if isinstance(value, float) else value))
    return "\n".join(lines) + "\n"


def prometheus(document: Mapping[str, Any]) -> str:
    """The textfile: HELP and TYPE once per metric, then its samples (all gauges)."""
    def help_text(name):
        metric = name[len(PREFIX):]
        return HELP.get(metric, "Benchmark figure in base units (%s)." % metric)
    return textfile(((PREFIX + metric, labels, value) for metric, labels, value in _samples(document)), help_text)
