from __future__ import annotations

import json

import pytest
from ansible.errors import AnsibleFilterError

from fleet_results import result, scaled
from verify_results import h100_result, hot_result

from ansible_collections.blackwell.pytorch.plugins.filter.verify import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import (
    decision, fleet_html, fleet_report, plan, report, role_inputs)
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


def _health_reading(**changes):
    import fake_nvml_health as fh
    from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health
    reading = nvml_health(fh.HealthNVML([dict(fh.H100_HEALTHY, pcie=(1, 5, 16, 16), pstate=8, **changes)]))
    reading["kernel_log"] = {"source": "journal", "complete": True, "error": None, "xids": []}
    return reading


def test_with_health_filter_is_a_shell():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates
    health = health_gates.evaluate(_health_reading(), {}, "ws1")
    bad = health_gates.evaluate(_health_reading(remap=(0, 1, 1, 0)), {}, "ws1")
    assert (health["passed"], bad["passed"]) == (True, False)
    joined = assert_each_argument_matters(F["verify_with_health"], {"document": h100_result(), "health": health},
                                          {"document": hot_result(), "health": bad})
    assert joined == health_gates.with_health(h100_result(), health) and F["verify_with_health"](h100_result()) == \
        h100_result()
    with pytest.raises(AnsibleFilterError, match="^verify_with_health: health must be a mapping, got list"):
        F["verify_with_health"](h100_result(), [])


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
    with pytest.raises(AnsibleFilterError, match="^verify_decision: force must be true or false, got 'sometimes'$"):
        F["verify_decision"]({}, None, None, None, {"force": "sometimes"})
    with pytest.raises(AnsibleFilterError, match="^verify_decision: memo must be a mapping, got list"):
        F["verify_decision"]({}, [], None, None, {})


def test_inputs_filter_is_a_shell_over_a_mapping_or_the_values_of_names():
    values = {"verify_profile": "standard", "verify_health_xid": False, "inventory_hostname": "ws-a"}
    gpus = [{"name": "NVIDIA L40S"}]
    got = assert_each_argument_matters(F["verify_inputs"], {"values": values, "gpus": gpus},
                                       {"values": dict(values, verify_profile="full"), "gpus": None})
    assert got == role_inputs.inputs(values, gpus)
    names = ["verify_profile", "verify_health_xid", "inventory_hostname"]
    assert F["verify_inputs"](["standard", False, "ws-a"], names, gpus) == got
    with pytest.raises(AnsibleFilterError, match="^verify_inputs: 2 values for 3 names$"):
        F["verify_inputs"](["standard", False], names)
    with pytest.raises(AnsibleFilterError, match="^verify_inputs: values must be a mapping, got list"):
        F["verify_inputs"](["standard"])
    with pytest.raises(AnsibleFilterError, match="^verify_inputs: gpus must be a list, got str"):
        F["verify_inputs"](values, None, "NVIDIA L40S")
