# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a rollout stands: batches in order with their wall time, outcomes, the hosts not reached."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.rollout import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import rollout
from shells import assert_each_argument_matters

OLD = "venvs/torch-2.8.0-cu128"
NEW = "venvs/torch-2.9.1-cu128"


def done(host, batch, started, finished, passed=True, before=OLD, after=NEW, rolled_back=False):
    return {"host": host, "batch": batch, "before": before, "after": after, "started": started,
            "finished": finished, "passed": passed, "rolled_back": rolled_back, "message": "" if passed else "x"}


def stopped_rollout():
    """ws1 canary upgraded, ws2 rolled back in batch 2, ws3 and ws4 not reached."""
    return {"ws1": done("ws1", ["ws1"], 100.0, 112.25),
            "ws2": done("ws2", ["ws2"], 113.0, 121.0, passed=False, after=OLD, rolled_back=True),
            "ws3": None}


def test_stopped_rollout():
    report = rollout.summary(["ws1", "ws2", "ws3", "ws4"], stopped_rollout())
    assert [(b["number"], b["hosts"], b["seconds"], b["outcomes"]) for b in report["batches"]] == [
        (1, ["ws1"], 12.2, {"ws1": "upgraded"}), (2, ["ws2"], 8.0, {"ws2": "rolled back"})]
    assert (report["passed"], report["rolled_back"], report["failed"], report["not_reached"]) == (
        ["ws1"], ["ws2"], [], ["ws3", "ws4"])
    assert report["seconds"] == 20.2
    assert report["lines"] == ["batch 1 (canary) ws1: 12.2 s; upgraded: ws1", "batch 2 ws2: 8.0 s; rolled back: ws2",
                               "rolled back: ws2", "not reached: ws3 ws4"]


def test_a_batch_of_several_hosts_spans_its_first_start_to_its_last_end():
    batch = ["ws2", "ws3", "ws4"]
    results = {"ws1": done("ws1", ["ws1"], 0, 5, before=NEW),
               "ws2": done("ws2", batch, 6, 10), "ws3": done("ws3", batch, 6.5, 14.5),
               "ws4": done("ws4", batch, 6, 9, passed=False, after=NEW)}
    report = rollout.summary(["ws1", "ws2", "ws3", "ws4"], results)
    assert report["lines"] == [
        "batch 1 (canary) ws1: 5.0 s; already as asked: ws1",
        "batch 2 ws2 ws3 ws4: 8.5 s; failed: ws4; upgraded: ws2 ws3",
        "rolled back: none", "failed, not rolled back: ws4", "not reached: none"]
    assert report["passed"] == ["ws1", "ws2", "ws3"] and report["failed"] == ["ws4"]


def test_a_host_skipped_because_its_gpus_were_busy_is_neither_passed_nor_already_as_asked():
    skipped = dict(done("ws2", ["ws2"], 6, 6.9, before=OLD, after=OLD), skipped=True,
                   message="skipped: busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)")
    report = rollout.summary(["ws1", "ws2"], {"ws1": done("ws1", ["ws1"], 0, 5), "ws2": skipped})
    assert report["passed"] == ["ws1"] and report["skipped"] == ["ws2"]
    assert report["lines"] == ["batch 1 (canary) ws1: 5.0 s; upgraded: ws1", "batch 2 ws2: 0.9 s; skipped (busy): ws2",
                               "rolled back: none", "skipped, GPUs busy (a later run takes them): ws2",
                               "not reached: none"]


def test_nothing_reached():
    report = rollout.summary(["ws1"], {"ws1": None})
    assert report["batches"] == [] and report["seconds"] == 0
    assert report["lines"] == ["rolled back: none", "not reached: ws1"]


def test_filter_is_a_shell():
    summary = FilterModule().filters()["rollout_summary"]
    hosts, results = ["ws1", "ws2", "ws3"], stopped_rollout()
    got = assert_each_argument_matters(summary, {"hosts": hosts, "results": results},
                                       {"hosts": ["ws1"], "results": {"ws1": results["ws1"]}})
    assert got == rollout.summary(hosts, results)
    with pytest.raises(AnsibleFilterError, match="rollout_summary"):
        summary(hosts, "not a mapping")
