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


def test_the_roles_own_fingerprint_call_comes_alone_and_the_rest_after_it():
    assert steps.files(True, True, True, SERVES_CHANGED, fingerprint=True) == ["fingerprint.yml"]
    pending = {"call": True, "reuse": True, "stored": {}}
    assert [step["file"] for step in steps.steps(pending, NOT_SERVING, {"health": True})] == ["fingerprint.yml"]
    answered = steps.steps(pending, NOT_SERVING, {"health": True, "fingerprinted": True})
    assert [step["file"] for step in answered] == ["health_read.yml", "verdict.yml"]
    fact = {"call": False, "reuse": False}
    assert [step["file"] for step in steps.steps(fact, None, {})] == ["benchmark.yml", "verdict.yml"]


def test_each_step_carries_the_decision_and_the_judged_health():
    decision = {"reuse": True, "stored": {"passed": True, "written": "2026-11-26T10:00:00Z"}, "call": False}
    got = steps.steps(decision, SERVES_CHANGED, {"health": True, "container": True})
    assert [step["file"] for step in got] == ["health_textfile.yml", "verdict.yml", "container.yml"]
    assert all(step["decision"] == decision and step["health"] == SERVES_CHANGED for step in got)
    assert [step["file"] for step in steps.steps({}, None, None)] == ["benchmark.yml", "verdict.yml"]
