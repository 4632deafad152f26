# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's task files: the run path reads the health in benchmark.yml; when the stored result stands the
health step is one file at most (a gpu_health call, or the probe's textfile when its content changed, or none)."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import steps

SERVES_UNCHANGED = {"use": True, "textfile": {"path": "/p/blackwell_pytorch_health.prom", "content": "x", "write": False}}
SERVES_CHANGED = {"use": True, "textfile": {"path": "/p/blackwell_pytorch_health.prom", "content": "x", "write": True}}
NO_TEXTFILE = {"use": True, "textfile": {"path": "", "content": "", "write": False}}
NOT_SERVING = {"use": False, "reason": "the preflight probe read no health", "textfile": {"write": False}}


@pytest.mark.parametrize("reuse, health, container, judged, files", [
    (False, True, False, NOT_SERVING, ["benchmark.yml", "verdict.yml"]),
    (False, True, True, SERVES_CHANGED, ["benchmark.yml", "verdict.yml", "container.yml"]),
    (False, False, True, None, ["benchmark.yml", "verdict.yml", "container.yml"]),
    (True, True, True, NOT_SERVING, ["health_read.yml", "verdict.yml", "container.yml"]),
    (True, True, False, None, ["health_read.yml", "verdict.yml"]),
    (True, True, False, SERVES_CHANGED, ["health_textfile.yml", "verdict.yml"]),
    (True, True, False, SERVES_UNCHANGED, ["verdict.yml"]),
    (True, True, False, NO_TEXTFILE, ["verdict.yml"]),
    (True, False, False, SERVES_CHANGED, ["verdict.yml"]),
    (True, False, True, NOT_SERVING, ["verdict.yml", "container.yml"]),
], ids=["run-path", "run-path-probe-ignored", "run-path-no-health", "stands-gpu-health", "stands-no-judgement",
        "stands-probe-textfile-changed", "stands-probe-textfile-unchanged", "stands-probe-no-textfile-dir",
        "stands-health-off", "stands-health-off-container"])
def test_files(reuse, health, container, judged, files):
    assert steps.files(reuse, health, container, judged) == files
    assert len([name for name in files if name.startswith("health_")]) <= 1


class Judge(object):
    """The judging steps() is given: answers `answer` and counts its calls."""

    def __init__(self, answer):
        self.answer = answer
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.answer


def test_the_roles_own_fingerprint_call_comes_alone_and_the_rest_after_it():
    assert steps.files(True, True, True, SERVES_CHANGED, fingerprint=True) == ["fingerprint.yml"]
    pending = {"call": True, "reuse": True, "stored": {}}
    judge = Judge(NOT_SERVING)
    first = steps.steps(pending, judge, {"health": True})
    assert [step["file"] for step in first] == ["fingerprint.yml"] and judge.calls == 0
    assert first[0]["health"]["use"] is False and "stack_fingerprint" in first[0]["health"]["reason"]
    answered = steps.steps(pending, judge, {"health": True, "fingerprinted": True})
    assert [step["file"] for step in answered] == ["health_read.yml", "verdict.yml"] and judge.calls == 1
    fact = {"call": False, "reuse": False}
    assert [step["file"] for step in steps.steps(fact, Judge(None), {})] == ["benchmark.yml", "verdict.yml"]


@pytest.mark.parametrize("decision, options, pending, calls", [
    ({"call": True, "reuse": True}, {"health": True}, True, 0),
    ({"call": True, "reuse": True}, {"health": False}, True, 0),
    ({"call": True, "reuse": True}, {"health": True, "fingerprinted": True}, False, 1),
    ({"call": True, "reuse": True}, {"health": False, "fingerprinted": True}, False, 0),
    ({"call": False, "reuse": True}, {"health": True}, False, 1),
    ({"call": False, "reuse": False}, {"health": True}, False, 1),
    ({"call": False, "reuse": True}, {"health": False, "container": True}, False, 0),
    ({}, None, False, 0),
], ids=["pending", "pending-health-off", "answered", "answered-health-off", "stands", "run-path", "health-off",
        "nothing-given"])
def test_the_judging_is_called_only_when_the_health_is_read_after_the_fingerprint(decision, options, pending, calls):
    judge = Judge(SERVES_CHANGED)
    got = steps.steps(decision, judge, options)
    assert judge.calls == calls and steps.pending(decision, options) is pending
    assert [step["file"] == "fingerprint.yml" for step in got] == ([True] if pending else [False] * len(got))
    if calls:
        assert all(step["health"] == SERVES_CHANGED for step in got)
    else:
        assert all(step["health"]["use"] is False and step["health"]["reason"] for step in got)


def test_the_health_not_judged_says_why():
    off = steps.health({"call": False}, Judge(SERVES_CHANGED), {"health": False})
    assert off["use"] is False and off["reason"] == "verify_health is off" and off["textfile"]["write"] is False
    first = steps.health({"call": True}, Judge(SERVES_CHANGED), {"health": True})
    assert first["use"] is False and first["reason"] == "the role's stack_fingerprint call comes first"
    assert steps.health({"call": False}, Judge(None), {"health": True}) == {}


def test_each_step_carries_the_decision_and_the_judged_health():
    decision = {"reuse": True, "stored": {"passed": True, "written": "2026-11-26T10:00:00Z"}, "call": False}
    got = steps.steps(decision, Judge(SERVES_CHANGED), {"health": True, "container": True})
    assert [step["file"] for step in got] == ["health_textfile.yml", "verdict.yml", "container.yml"]
    assert all(step["decision"] == decision and step["health"] == SERVES_CHANGED for step in got)
    assert [step["file"] for step in steps.steps({}, Judge(None), None)] == ["benchmark.yml", "verdict.yml"]


def test_a_check_run_preview_includes_the_verdict_alone():
    """No stack yet in a check run (the decision's `preview`): no check, benchmark, health read or container check."""
    assert steps.files(False, True, True, NOT_SERVING, preview=True) == ["verdict.yml"]
    preview = {"call": True, "reuse": False, "preview": "check mode: /opt/pytorch/current/bin/python is not there yet"}
    got = steps.steps(preview, Judge(NOT_SERVING), {"health": True, "container": True, "fingerprinted": True})
    assert [step["file"] for step in got] == ["verdict.yml"]
    assert got[0]["decision"]["preview"] == "check mode: /opt/pytorch/current/bin/python is not there yet"
