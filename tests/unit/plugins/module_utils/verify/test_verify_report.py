from __future__ import annotations

import pytest
from verify_results import cpu_result, h100_result, hot_result

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import report as verify_report


def test_summary_names_gpu_figures_fraction_ratio_clock_and_reasons():
    lines = verify_report.summary(h100_result())
    assert lines == ["GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 795.2 TFLOP/s (0.80 of peak, SM 1755 MHz, sw_power_cap), "
                     "memcpy 2905 GB/s (0.87 of peak, SM 1980 MHz), sustained 681 TFLOP/s (0.69 of peak, "
                     "sustained/first 0.86, SM 1365 MHz, sw_power_cap)"]


def test_cpu_summary_and_no_figures():
    assert verify_report.summary(cpu_result("c1")) == ["cpu: gemm_fp32 0.0421 TFLOP/s"]
    assert verify_report.summary({"benchmark": {"devices": []}}) == ["no benchmark figure"]


def test_check_gpu_keeps_the_verdict():
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm": "sm_90", "kernel_image": {"verdict": "native", "x": 1},
           "probes": {"matmul": "ok"}}
    assert verify_report.check_gpu(gpu) == {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm": "sm_90",
                                            "verdict": "native"}


def parse(text):
    """{metric: [(labels dict, value)]} of a textfile; every metric has HELP and TYPE before its samples."""
    metrics, declared = {}, set()
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            declared.add(line.split()[2])
            assert line.endswith(" gauge")
            continue
        if line.startswith("#"):
            continue
        name, rest = line.split("{", 1)
        labels_text, value = rest.rsplit("} ", 1)
        assert name in declared
        labels = dict(pair.split("=", 1) for pair in labels_text.split(","))
        metrics.setdefault(name, []).append((dict((k, v.strip('"')) for k, v in labels.items()), float(value)))
    return metrics


def test_prometheus_textfile_in_base_units_with_labels():
    text = verify_report.prometheus(h100_result())
    metrics = parse(text)
    assert metrics["blackwell_pytorch_verify_passed"] == [({"host": "ws-h100-01"}, 1.0)]
    assert metrics["blackwell_pytorch_verify_timestamp_seconds"][0][1] == 1795405200.0  # date -u -d 2026-11-23T03:40:00Z +%s
    flops = dict((labels["test"], (labels, value)) for labels, value in metrics["blackwell_pytorch_benchmark_flop_per_second"])
    labels, value = flops["gemm_bf16"]
    assert labels == {"host": "ws-h100-01", "gpu": "0", "uuid": "GPU-0a", "test": "gemm_bf16", "dtype": "bf16"}
    assert value == pytest.approx(795.2e12)
    memcpy = metrics["blackwell_pytorch_benchmark_bytes_per_second"][0]
    assert memcpy[0]["dtype"] == "" and memcpy[1] == pytest.approx(2905e9)
    assert metrics["blackwell_pytorch_benchmark_sustained_ratio"][0][1] == 0.856
    assert ({"host": "ws-h100-01", "gpu": "0", "uuid": "GPU-0a", "test": "sustained", "dtype": "bf16"},
            1365e6) in metrics["blackwell_pytorch_benchmark_sm_clock_hertz"]
    reasons = [labels["reason"] for labels, value in metrics["blackwell_pytorch_benchmark_clock_event_reason"]]
    assert reasons == ["sw_power_cap", "sw_power_cap"]
    assert text.count("# TYPE blackwell_pytorch_benchmark_flop_per_second gauge") == 1 and text.endswith("\n")


def test_failed_result_exports_zero_and_label_values_are_escaped():
    result = hot_result('ws "quoted"')
    text = verify_report.prometheus(result)
    assert 'blackwell_pytorch_verify_passed{host="ws \\"quoted\\""} 0' in text
