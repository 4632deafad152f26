from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from fleet_results import result, scaled
from verify_results import h100_result, hot_result

from ansible_collections.blackwell.pytorch.plugins.filter.verify import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import decision, fleet_html, fleet_report, plan, report
from shells import assert_each_argument_matters

F = FilterModule().filters()


def test_document_filters_are_shells():
    for name, function in (("verify_summary", report.summary), ("verify_prometheus", report.prometheus)):
        result = assert_each_argument_matters(F[name], {"document": h100_result()}, {"document": hot_result()})
        assert result == function(h100_result())
    assert F["verify_summary"](None) == ["no benchmark figure"]


def test_check_gpu_shell():
    gpu = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm": "sm_90", "kernel_image": {"verdict": "native"}, "x": 1}
    result = assert_each_argument_matters(F["verify_check_gpu"], {"gpu": gpu}, {"gpu": dict(gpu, index=1)})
    assert result == {"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm": "sm_90", "verdict": "native"}


def test_fleet_filters_are_shells():
    documents = {"ws-h100-01": h100_result(), "ws-pro6000-02": hot_result(), "gone": None}
    data = assert_each_argument_matters(F["fleet_report_data"], {"documents": documents},
                                        {"documents": {"ws-h100-01": h100_result()}})
    assert data == fleet_report.fleet(documents) and data["failed"] == ["gone", "ws-pro6000-02"]
    other = fleet_report.fleet({"ws-h100-01": h100_result()})
    # the history, the play's hosts and each threshold reach the function
    slow = scaled(result("ws-b", "NVIDIA L40S"), "memcpy", 0.8)
    now = {"ws-a": result("ws-a", "NVIDIA L40S"), "ws-b": slow, "ws-c": None}
    before = json.dumps(fleet_report.fleet({"ws-b": result("ws-b", "NVIDIA L40S", "2026-11-20T08:00:00Z"),
                                            "ws-c": result("ws-c", "NVIDIA L40S", "2026-11-20T08:00:00Z")}))
    base = {"documents": now, "previous": before, "play_hosts": ["ws-a", "ws-b"], "outlier_ratio": 0.9,
            "drop_ratio": 0.9, "expected_floor": 0.75, "peak_floor": 0.5}
    # peak_floor is deprecated: given, it is ignored with a note in the settings; unset, no note
    shelled = assert_each_argument_matters(F["fleet_report_data"], base, {
        "previous": None, "play_hosts": None, "outlier_ratio": 0.7, "drop_ratio": 0.7, "expected_floor": 0.9,
        "peak_floor": None})
    assert shelled == fleet_report.fleet(now, before, ["ws-a", "ws-b"], {"peak_floor": 0.5})
    assert shelled["settings"]["notes"][0].startswith("peak_floor is deprecated and ignored")
    assert shelled["stale"] == ["ws-c"] and F["fleet_report_data"](now, json.loads(before), ["ws-a"]) == \
        fleet_report.fleet(now, before, ["ws-a"])
    with pytest.raises(AnsibleFilterError, match="^fleet_report_data: play_hosts must be a list, got str"):
        F["fleet_report_data"](now, before, "ws-a")
    with pytest.raises(AnsibleFilterError, match="^fleet_report_data: previous must be the previous fleet.json"):
        F["fleet_report_data"](now, ["x"])
    with pytest.raises(AnsibleFilterError, match="^fleet_report_data: drop_ratio must be a number above 0 and at "
                                                 "most 1, got 2"):
        F["fleet_report_data"](now, drop_ratio=2)
    for name, function in (("fleet_report_markdown", fleet_report.markdown), ("fleet_report_html", fleet_html.html)):
        assert assert_each_argument_matters(F[name], {"report": data}, {"report": other}) == function(data)


@pytest.mark.parametrize("name,value,message", [
    ("verify_summary", ["x"], "verify_summary: document must be a mapping, got list"),
    ("verify_prometheus", "text", "verify_prometheus: document must be a mapping, got str"),
    ("verify_check_gpu", None, "verify_check_gpu: gpu must be a mapping, got NoneType"),
    ("fleet_report_data", [h100_result()], "fleet_report_data: documents must be a mapping, got list"),
    ("fleet_report_markdown", "report", "fleet_report_markdown: report must be a mapping, got str"),
    ("fleet_report_markdown", None, "fleet_report_markdown: not a fleet report document"),
    ("fleet_report_html", h100_result(), "fleet_report_html: not a fleet report document .no created, hosts, failed."),
])
def test_errors(name, value, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F[name](value)


def test_gate_errors_shell():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import gates
    bad = {"gemm_bf16": {"min_fraction_of_peak": 1.5}}
    result = assert_each_argument_matters(F["verify_gate_errors"], {"gates": bad, "device": "cuda"},
                                          {"gates": {"gemm_bf16": {"min_fraction_of_peak": 0.5}}, "device": "cpu"})
    assert result == gates.validate(bad, {}, "cuda") and "fraction from 0 to 1" in result[0]
    assert F["verify_gate_errors"]({"memcpy": {"min_fraction_of_peak": 0.6}}) == []
    assert "CPU mode has no peak" in " ".join(F["verify_gate_errors"]({"gemm_fp32": {"min_fraction_of_peak": 0.5}}, "cpu"))
    assert F["verify_gate_errors"]("gemm_bf16=0.5") == [
        "verify_gates must be a dict: test name -> {bound name: number}, got str"]


def _health_reading(**changes):
    import fake_nvml_health as fh
    from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health
    reading = nvml_health(fh.HealthNVML([dict(fh.H100_HEALTHY, pcie=(1, 5, 16, 16), pstate=8, **changes)]))
    reading["kernel_log"] = {"source": "journal", "complete": True, "error": None, "xids": []}
    return reading


def test_health_filters_are_shells():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates, health_metrics
    reading = _health_reading(ecc_errors={0: 1, 1: 3})
    telemetry = {"devices": [{"uuid": reading["gpus"][0]["uuid"],
                              "figures": {"h2d": {"telemetry": {"pcie_gen": {"max": 5}}}}}]}
    base = {"reading": reading, "options": {}, "host": "ws1", "benchmark": telemetry, "stored": "2026-11-20T08:00:00Z"}
    health = assert_each_argument_matters(F["verify_health"], base, {
        "reading": _health_reading(), "options": {"ecc_aggregate": True}, "host": "ws2", "benchmark": None,
        "stored": None})
    assert health == health_gates.evaluate(reading, {}, "ws1", telemetry, "2026-11-20T08:00:00Z")
    empty = {"gpus": [], "nvml_error": "nvidia-ml-py is not installed", "kernel_log": reading["kernel_log"]}
    assert_each_argument_matters(F["verify_health"], {"reading": empty, "device": "cuda"}, {"device": "cpu"})
    # -e gives text: booleans and Xid numbers as Ansible reads them
    assert F["verify_health"](reading, {"ecc_aggregate": "yes", "xid_ignore": ["13", 31]})["options"] == dict(
        health_gates.DEFAULTS, ecc_aggregate=True, xid_ignore=[13, 31])
    with pytest.raises(AnsibleFilterError, match="^verify_health: ecc_volatile must be a boolean"):
        F["verify_health"](reading, {"ecc_volatile": "maybe"})
    with pytest.raises(AnsibleFilterError, match="^verify_health: verify_health_xid_ignore must be a list of Xid"):
        F["verify_health"](reading, {"xid_ignore": ["x13"]})
    bad = F["verify_health"](_health_reading(remap=(0, 1, 1, 0)), host="ws1")
    joined = assert_each_argument_matters(F["verify_with_health"], {"document": h100_result(), "health": health},
                                          {"document": hot_result(), "health": bad})
    assert joined == health_gates.with_health(h100_result(), health) and F["verify_with_health"](h100_result()) == \
        h100_result()
    text = assert_each_argument_matters(F["verify_health_prometheus"], {"reading": reading, "health": health, "host": "a"},
                                        {"reading": _health_reading(remap=(0, 1, 1, 0)), "health": bad, "host": "b"})
    assert text == health_metrics.prometheus(reading, health, "a")
    with pytest.raises(AnsibleFilterError, match="^verify_health_prometheus: reading must be a mapping, got list"):
        F["verify_health_prometheus"]([])


def test_plan_and_decision_filters_are_shells():
    request = {"profile": "long", "python": "python3"}
    assert F["verify_plan"](request) == plan.plan(request)
    options = {"python": "/usr/bin/python3", "cuda_home": "/usr/local/cuda", "force": False}
    run = {"reuse": True, "stored": {"written": "x"}, "fingerprint": {"digest": "d"}, "gpus": []}
    expected = decision.decision(plan.plan({}), {}, run, {}, options)
    assert F["verify_decision"](plan.plan({}), {}, run, {}, options) == expected


def test_decision_options_are_read_as_ansible_reads_them():
    got = F["verify_decision"]({}, None, {"reuse": True}, None, {"force": "false"})
    assert (got["call"], got["reuse"]) == (True, True)
    with pytest.raises(AnsibleFilterError, match="^verify_decision: force must be a boolean"):
        F["verify_decision"]({}, None, None, None, {"force": "sometimes"})
    with pytest.raises(AnsibleFilterError, match="^verify_decision: memo must be a mapping, got list"):
        F["verify_decision"]({}, [], None, None, {})
