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


def test_summary_gives_the_fraction_of_the_expected_figure_before_the_fraction_of_peak():
    from fleet_lab_results import lab_result
    lines = verify_report.summary(lab_result("lab-01"))
    assert lines == ["GPU 0 NVIDIA H200: gemm_bf16 823.2 TFLOP/s (1.04 of expected, 0.83 of peak, SM 1755 MHz, "
                     "sw_power_cap), memcpy 4189 GB/s (0.98 of expected, 0.87 of peak, SM 1755 MHz), sustained 665.8 "
                     "TFLOP/s (0.99 of expected, 0.67 of peak, sustained/first 0.98, SM 1755 MHz, sw_power_cap)"]
    rows = verify_report.key_figures(lab_result("lab-01"))
    assert [(row["size"], row["expected"], row["fraction_of_expected"]) for row in rows] == [
        ("m=8192 n=8192 k=8192 bf16", 791.2, 1.0404), ("mib=1024", 4272.0, 0.9806),
        ("m=8192 n=8192 k=8192 seconds=25 bf16", 672.52, 0.99)]


def test_the_expected_figure_without_its_fraction_gives_one_and_a_bad_one_none():
    assert verify_report.expected_of({"value": 400.0, "expected": {"value": 500.0}}) == (500.0, 0.8)
    assert verify_report.expected_of({"value": 400.0, "expected": {"value": 0}}) == (None, None)
    assert verify_report.expected_of({"value": 400.0, "expected": None}) == (None, None)


def test_summary_of_a_busy_result():
    from fleet_lab_results import busy_result, measured_busy_result
    assert verify_report.summary(busy_result("lab-02")) == ["busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"]
    lines = verify_report.summary(measured_busy_result("lab-03"))
    assert lines[0].startswith("GPU 0 NVIDIA H200: gemm_bf16 260.5 TFLOP/s (0.33 of expected, 0.26 of peak, ")
    assert lines[1:] == ["measured while busy: GPU 0 pid 1099 (python3, user root, 874 MiB)"]
    # a busy result without its text is told from its processes
    assert verify_report.busy_text({"processes": [{"gpu": 1, "pid": 77, "user": "bob", "command": "python3",
                                                   "memory_mib": None}]}) == \
        "busy: GPU 1 pid 77 (python3, user bob, memory unknown)"


def test_prometheus_exports_the_fraction_of_the_expected_figure():
    from fleet_lab_results import lab_result
    metrics = parse(verify_report.prometheus(lab_result("lab-01")))
    ratios = dict((labels["test"], value) for labels, value in metrics[
        "blackwell_pytorch_benchmark_fraction_of_expected_ratio"])
    assert ratios["gemm_bf16"] == 1.0404 and ratios["softmax"] == 1.0131 and len(ratios) == 8
    assert "blackwell_pytorch_benchmark_fraction_of_expected_ratio" not in parse(verify_report.prometheus(h100_result()))
