# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_report role through real plays: the whole inventory, the `latest` link, history.

Three hosts of one inventory (this machine under other names): a first play over all of them
writes the first report; a play limited to one host, whose memcpy has dropped since, writes a
second report beside the first, shows the host outside the play from the first report (with its
age) and the host never verified as missing, and moves `latest`; the same play again changes
nothing. Bad thresholds are refused by the preflight task, before the report. A host whose
verification was deferred (another process on its GPU) is busy, neither passed nor failed, and the
deprecated fleet_report_peak_floor is accepted, ignored and noted.
"""
from __future__ import annotations

import json
import os

import pytest
import yaml

from fleet_results import result, scaled
from playbook import outcome, results, run

BEFORE, NOW = "2026-11-20T08:00:00Z", "2026-11-23T03:40:00Z"
H100 = "NVIDIA H100 80GB HBM3"
ROLE = [{"name": "Write the fleet report", "ansible.builtin.include_role": {"name": "blackwell.pytorch.fleet_report"}}]


def _playbook(tmp_path, pattern):
    path = tmp_path / ("play-%s.yml" % pattern)
    path.write_text(yaml.safe_dump([{"name": "report", "hosts": pattern, "gather_facts": False, "tasks": ROLE}],
                                   sort_keys=False))
    return str(path)


def _hosts(tmp_path, verified):
    """ws-a, ws-b and ws-c (never verified), `verified` {host: result} as their blackwell_verify."""
    common = {"fleet_report_dir": str(tmp_path / "reports")}
    return dict((name, dict(common, **({"blackwell_verify": verified[name]} if name in verified else {})))
                for name in ("ws-a", "ws-b", "ws-c"))


def _report_task(stdout):
    return [by_host for name, by_host in results(stdout) if name.endswith("Where the report is")][0]


def _changed(stdout):
    return [name for name, by_host in results(stdout) for result in by_host.values() if result.get("changed")]


@pytest.fixture(scope="module")
def plays(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("fleet")
    first = {"ws-a": result("ws-a", H100, BEFORE), "ws-b": result("ws-b", H100, BEFORE)}
    runs = {"first": run(tmp_path, [], _hosts(tmp_path, first), check=False, playbook=_playbook(tmp_path, "all"))}
    runs["first_listing"] = sorted(os.listdir(str(tmp_path / "reports")))
    runs["first_latest"] = os.readlink(str(tmp_path / "reports" / "latest"))
    dropped = {"ws-a": scaled(result("ws-a", H100, NOW), "memcpy", 0.8, ["hw_slowdown"], 1500)}
    for key in ("limited", "again"):
        runs[key] = run(tmp_path, [], _hosts(tmp_path, dropped), check=False, playbook=_playbook(tmp_path, "ws-a"))
    runs["root"] = tmp_path / "reports"
    return runs


def test_the_first_report_covers_the_inventory_and_is_where_latest_points(plays):
    rc, stdout, stderr = plays["first"]
    assert rc == 0, stdout + stderr
    assert plays["first_listing"] == ["20261120T080000Z", "latest"] and plays["first_latest"] == "20261120T080000Z"
    message = _report_task(stdout)["ws-a"]["msg"]
    assert message.endswith("(2 passed, 1 failed or missing: ws-c)"), message


def test_a_limited_play_compares_with_the_previous_report_and_shows_the_others_from_it(plays):
    rc, stdout, stderr = plays["limited"]
    assert rc == 0, stdout + stderr
    root = plays["root"]
    assert sorted(os.listdir(str(root))) == ["20261120T080000Z", "20261123T034000Z", "latest"]
    assert os.readlink(str(root / "latest")) == "20261123T034000Z"
    message = _report_task(stdout)["ws-a"]["msg"]
    assert message.endswith("(2 passed, 1 failed or missing: ws-c; flagged: ws-a; from stored results: ws-b)"), message
    report = json.loads((root / "latest" / "fleet.json").read_text())
    hosts = dict((host["host"], host) for host in report["hosts"])
    # below its own figure of the first report, and below its peer shown from that report
    assert [(f["test"], f["kind"], f.get("since")) for f in hosts["ws-a"]["flags"]] == [
        ("memcpy", "dropped", "2026-11-20"), ("memcpy", "peers", None)]
    assert hosts["ws-b"]["source"] == "stored" and hosts["ws-b"]["written"] == BEFORE
    assert hosts["ws-c"]["status"] == "missing" and report["previous"]["created"] == BEFORE
    assert "passed (stored result, 2 d old)" in (root / "latest" / "fleet.html").read_text()
    assert "memcpy dropped since 2026-11-20" in (root / "latest" / "fleet.md").read_text()


def test_the_same_play_again_changes_nothing(plays):
    rc, stdout, stderr = plays["again"]
    assert rc == 0, stdout + stderr
    assert _changed(stdout) == [] and _report_task(stdout)["ws-a"]["msg"] == _report_task(plays["limited"][1])["ws-a"]["msg"]


@pytest.mark.parametrize("name,value", [("fleet_report_drop_ratio", 1.5), ("fleet_report_outlier_ratio", 0),
                                        ("fleet_report_expected_floor", "1.5")])  # text, as -e gives it
def test_thresholds_that_are_not_fractions_are_refused_before_the_report(tmp_path, name, value):
    hosts = {"ws": {"fleet_report_dir": str(tmp_path / "reports"), name: value}}
    _rc, stdout, stderr = run(tmp_path, ROLE, hosts, check=False)
    result = outcome(stdout, "ws")
    assert "fleet report's directory" in (result["failed_task"] or ""), (result, stderr)
    assert result["msg"] == "%s must be a number above 0 and at most 1, got %s" % (name, value), result
    assert not (tmp_path / "reports").exists()


def test_a_busy_host_is_neither_passed_nor_failed_and_the_deprecated_peak_floor_is_noted(tmp_path):
    from fleet_lab_results import busy_result, lab_result
    verified = {"ws-a": lab_result("ws-a", written=NOW), "ws-b": busy_result("ws-b", NOW)}
    hosts = dict((name, dict(vars, fleet_report_peak_floor=0.5)) for name, vars in _hosts(tmp_path, verified).items())
    rc, stdout, stderr = run(tmp_path, [], hosts, check=False, playbook=_playbook(tmp_path, "all"))
    assert rc == 0, stdout + stderr
    message = _report_task(stdout)["ws-a"]["msg"]
    assert message.endswith("(1 passed, 1 failed or missing: ws-c; busy, not verified: ws-b) peak_floor is deprecated "
                            "and ignored: a figure is compared with the figure expected of its GPU model "
                            "(expected_floor) and with its peers, never with the theoretical peak"), message
    report = json.loads((tmp_path / "reports" / "latest" / "fleet.json").read_text())
    assert report["busy"] == ["ws-b"] and report["settings"]["expected_floor"] == 0.75
    busy = [host for host in report["hosts"] if host["host"] == "ws-b"][0]
    assert busy["status"] == "busy" and busy["message"] == "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"
    assert "| ws-b | - | busy: GPU 0 pid 4242 \\(python3, user alice, 20.1 GiB\\) |" in (
        tmp_path / "reports" / "latest" / "fleet.md").read_text()
