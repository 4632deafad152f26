from __future__ import annotations

import json

from fleet_results import fleet_of, result, scaled

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_history, fleet_html, fleet_report

H100, L40S = "NVIDIA H100 80GB HBM3", "NVIDIA L40S"
BEFORE, NOW = "2026-11-20T08:00:00Z", "2026-11-23T03:40:00Z"


def stored_json(report):
    """What the next run reads back from <fleet_report_dir>/latest/fleet.json."""
    return json.dumps(report, sort_keys=True, indent=4) + "\n"


def kinds(host):
    return [(f["gpu"], f["test"], f["kind"]) for f in host["flags"]]


def by_host(report):
    return dict((host["host"], host) for host in report["hosts"])


def test_a_figure_below_its_previous_verification_is_flagged_dropped_since_its_date():
    first = fleet_report.fleet({"ws-a": result("ws-a", L40S, BEFORE)})
    dropped = scaled(result("ws-a", L40S, NOW), "memcpy", 0.8, ["hw_slowdown"], 1100)
    report = fleet_report.fleet({"ws-a": dropped}, previous=stored_json(first))
    host = report["hosts"][0]
    assert kinds(host) == [(0, "memcpy", "dropped")] and report["flagged"] == ["ws-a"]
    item = host["flags"][0]
    assert item["since"] == "2026-11-20" and "memcpy dropped since 2026-11-20: " in item["text"]
    assert 0.79 < item["ratio"] < 0.81 and item["reasons"] == ["hw_slowdown"]
    assert host["previous"]["written"] == BEFORE and report["previous"] == {"created": BEFORE, "problem": None}
    # the drop ratio decides
    assert fleet_report.fleet({"ws-a": dropped}, previous=stored_json(first), settings={"drop_ratio": 0.7})[
        "flagged"] == []


def test_the_same_results_reported_again_keep_their_previous_and_give_the_same_report():
    first = fleet_report.fleet({"ws-a": result("ws-a", H100, BEFORE)})
    dropped = scaled(result("ws-a", H100, NOW), "gemm_bf16", 0.8)
    second = fleet_report.fleet({"ws-a": dropped}, previous=stored_json(first))
    # `latest` now points at the second report: the same results again compare with what it remembers
    again = fleet_report.fleet({"ws-a": dropped}, previous=stored_json(second))
    assert json.loads(stored_json(again)) == json.loads(stored_json(second))
    assert kinds(again["hosts"][0]) == [(0, "gemm_bf16", "dropped")]


def test_a_newer_result_compares_with_the_one_before_not_the_first():
    first = fleet_report.fleet({"ws-a": result("ws-a", H100, "2026-11-01T00:00:00Z")})
    second = fleet_report.fleet({"ws-a": scaled(result("ws-a", H100, BEFORE), "memcpy", 0.8)},
                                previous=stored_json(first))
    third = fleet_report.fleet({"ws-a": scaled(result("ws-a", H100, NOW), "memcpy", 0.8)}, previous=stored_json(second))
    assert kinds(second["hosts"][0]) == [(0, "memcpy", "dropped")]
    assert kinds(third["hosts"][0]) == [] and third["hosts"][0]["previous"]["written"] == BEFORE


def test_a_host_not_in_this_play_is_shown_from_its_stored_result_with_its_age():
    first = fleet_report.fleet({"ws-a": result("ws-a", H100, BEFORE), "ws-b": result("ws-b", H100, BEFORE)})
    report = fleet_report.fleet({"ws-a": result("ws-a", H100, NOW), "ws-b": None, "ws-new": None},
                                previous=stored_json(first), play_hosts=["ws-a"])
    hosts = by_host(report)
    assert hosts["ws-b"]["source"] == "stored" and hosts["ws-b"]["status"] == "passed"
    assert hosts["ws-b"]["written"] == BEFORE and hosts["ws-b"]["age_seconds"] == 2 * 86400 + 19 * 3600 + 40 * 60
    assert fleet_report.verdict_text(hosts["ws-b"]) == "passed (stored result, 2 d old)"
    assert hosts["ws-b"]["message"] == "not in this play: its stored result of %s" % BEFORE
    assert hosts["ws-new"]["status"] == "missing" and hosts["ws-new"]["message"] == "not in this play and never verified"
    assert report["stale"] == ["ws-b"] and report["missing"] == ["ws-new"] and report["created"] == NOW
    assert report["passed"] == ["ws-a", "ws-b"] and report["failed"] == ["ws-new"]
    # a stored result still counts among the peers, and is still compared with them
    slow_stored = fleet_report.fleet({"ws-b": scaled(result("ws-b", H100, BEFORE), "memcpy", 0.7)})
    again = fleet_report.fleet({"ws-a": result("ws-a", H100, NOW), "ws-c": result("ws-c", H100, NOW), "ws-b": None},
                               previous=stored_json(slow_stored), play_hosts=["ws-a", "ws-c"])
    # (an H100's memcpy at 0.7 of the figure expected of its model is below that too)
    assert kinds(by_host(again)["ws-b"]) == [(0, "memcpy", "expected"), (0, "memcpy", "peers")]
    assert again["flagged"] == ["ws-b"]


def test_a_host_of_this_play_without_a_result_is_missing_but_keeps_its_last_result():
    first = fleet_report.fleet({"ws-a": result("ws-a", H100, BEFORE)})
    failed = fleet_report.fleet({"ws-a": None}, previous=stored_json(first), play_hosts=["ws-a"])
    host = failed["hosts"][0]
    assert host["status"] == "missing" and failed["failed"] == ["ws-a"] and failed["created"] == ""
    assert host["message"] == "no verification result in this run (last result %s)" % BEFORE
    assert host["last_result"]["written"] == BEFORE
    # the next run still remembers it: out of the play it is shown from it, back in the play it is compared with it
    out = fleet_report.fleet({"ws-a": None}, previous=stored_json(failed), play_hosts=[])
    assert out["stale"] == ["ws-a"] and out["hosts"][0]["written"] == BEFORE
    back = fleet_report.fleet({"ws-a": scaled(result("ws-a", H100, NOW), "memcpy", 0.5)}, previous=stored_json(failed))
    assert ("dropped", "memcpy") in [(f["kind"], f["test"]) for f in back["hosts"][0]["flags"]]


def test_a_report_of_the_first_schema_still_serves_as_memory():
    first = fleet_report.fleet({"ws-a": result("ws-a", H100, BEFORE)})
    for host in first["hosts"]:  # what a report written before `measured` holds: the key figures only
        del host["measured"], host["source"], host["flags"]
    report = fleet_report.fleet({"ws-a": scaled(result("ws-a", H100, NOW), "gemm_bf16", 0.8)},
                                previous=stored_json(first))
    assert kinds(report["hosts"][0]) == [(0, "gemm_bf16", "dropped")]


def test_an_unreadable_previous_report_is_ignored_with_its_reason():
    for previous, problem in (("{not json", "the previous fleet.json is not JSON"),
                              ('{"hosts": "x"}', "the previous fleet.json is not a fleet report (no hosts list)"),
                              ('{"hosts": [1, {"host": "ws-a", "written": 5}]}', None)):
        report = fleet_report.fleet({"ws-a": result("ws-a", H100, NOW)}, previous=previous, play_hosts=["ws-a"])
        assert report["hosts"][0]["previous"] is None and report["flagged"] == []
        assert (report["previous"]["problem"] or "").startswith(problem or "") and bool(problem) == bool(
            report["previous"]["problem"])
    assert fleet_report.fleet({}, previous="")["previous"] == {"created": None, "problem": None}


def test_64_hosts_with_a_slow_one_a_dropped_one_and_one_absent_from_the_play():
    before = fleet_of(64, BEFORE)
    before["ws-021"] = scaled(before["ws-021"], "memcpy", 1.15)  # measured high last time
    # silently slow, then and now: against its peers, not against its own past
    before["ws-013"] = scaled(before["ws-013"], "sustained", 0.75, ["hw_thermal_slowdown"], 1100)
    previous = stored_json(fleet_report.fleet(before))
    now = fleet_of(64, NOW)
    now["ws-013"] = scaled(now["ws-013"], "sustained", 0.75, ["hw_thermal_slowdown"], 1100)
    now["ws-021"] = scaled(now["ws-021"], "memcpy", 0.95)  # within its peers, but 0.83 of its own last figure
    absent = now.pop("ws-042")
    play = sorted(now)
    now.update({"ws-042": None, "ws-999": None})
    report = fleet_report.fleet(now, previous=previous, play_hosts=play)
    hosts = by_host(report)
    assert report["flagged"] == ["ws-013", "ws-021"]
    assert kinds(hosts["ws-013"]) == [(0, "sustained", "peers")]
    assert kinds(hosts["ws-021"]) == [(0, "memcpy", "dropped")]
    assert hosts["ws-042"]["source"] == "stored" and hosts["ws-042"]["written"] == BEFORE
    assert report["stale"] == ["ws-042"] and report["missing"] == ["ws-999"] and len(report["passed"]) == 64
    assert hosts["ws-042"]["measured"][0]["name"] == absent["benchmark"]["devices"][0]["name"]


def test_age_text():
    assert [fleet_history.age_text(value) for value in (None, 59, 2400, 7200, 86400 * 3)] == [
        "age unknown", "0 min", "40 min", "2 h", "3 d"]
    assert fleet_history.age(NOW, BEFORE) == 243600 and fleet_history.age(NOW, "yesterday") is None


def test_a_thin_or_hand_edited_stored_entry_is_still_drawn():
    previous = json.dumps({"created": BEFORE, "hosts": [
        {"host": "ws-a", "written": BEFORE,
         "measured": [{"gpu": 0, "name": H100, "test": "h2d", "value": 50.0}, {"gpu": 0, "name": H100, "value": 1.0}],
         "figures": [{"test": "memcpy"}, "x"], "stack": "?", "slow_reasons": [3], "passed": "yes"}]})
    report = fleet_report.fleet({"ws-a": None, "ws-b": result("ws-b", H100, NOW)}, previous=previous,
                                play_hosts=["ws-b"])
    host = by_host(report)["ws-a"]
    assert host["source"] == "stored" and host["status"] == "failed" and host["passed"] is False
    assert host["figures"] == [] and host["stack"] == {} and host["slow_reasons"] == []
    assert "ws-a" in fleet_report.markdown(report) and "ws-a" in fleet_html.html(report)
