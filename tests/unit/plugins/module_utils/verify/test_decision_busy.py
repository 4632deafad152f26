# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A verification deferred because other users' processes held the GPUs measured nothing: the next run verifies,
whether the answer comes from the blackwell_cuda_check fact or from the role's own stack_fingerprint call, and even
when the stored document claims to have passed. A result measured beside them (measured_busy) is a measurement and
stands like any other."""
from __future__ import annotations

import json
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import decision
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import plan as verify_plan

PYTHON = sys.executable
RESULTS = "/var/lib/blackwell-pytorch"
OPTIONS = {"python": PYTHON, "cuda_home": "/usr/local/cuda", "force": False}
TEXT = "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"
BUSY = {"state": "busy", "mode": "wait", "waited_s": 60.0, "text": TEXT,
        "processes": [{"gpu": 0, "gpu_name": "NVIDIA H200", "pid": 4242, "user": "alice", "command": "python3",
                       "memory_mib": 20582}]}
DEFERRED_REASON = "the stored result was deferred (%s), nothing was measured" % TEXT


def quick_plan():
    return verify_plan.plan({"profile": "quick", "device": "cpu", "python": PYTHON, "results_dir": RESULTS,
                             "textfile_dir": ""})


@pytest.fixture(scope="module")
def stack():
    """This interpreter's fingerprint without settings (the fact's) and with the quick plan's (verify.json's)."""
    bare = fingerprint.fingerprint(PYTHON, "/usr/local/cuda", "0.5.0", code="c0de", settings={})
    full = fingerprint.fingerprint(PYTHON, "/usr/local/cuda", "0.5.0", code="c0de", settings=quick_plan()["settings"])
    return bare, full


def deferred_document(print_, **changes):
    """verify.json as the verify role stores it when it deferred (benchmark.yml's deferred result)."""
    document = {"schema": fingerprint.SCHEMA, "host": "ws-h200-01", "status": "busy", "passed": False,
                "deferred": True, "message": TEXT, "written": "2026-11-26T10:00:00Z", "reused": False,
                "results": RESULTS + "/verify.json", "fingerprint": print_, "product_line": "datacenter",
                "gates": {}, "failed_gates": [], "summary": [TEXT], "busy": BUSY}
    document.update(changes)
    return document


def fact(stack, stored):
    return {"python": PYTHON, "pythons": [PYTHON], "cuda_home": "/usr/local/cuda", "force": False,
            "output_dirs": {"verify_results_dir": RESULTS, "verify_prometheus_textfile_dir": ""},
            "fingerprint": stack[0], "gpus": [{"pci_bus_id": "0000:00:06.0", "name": "NVIDIA H200"}],
            "reused": False, "verify": {"results": RESULTS + "/verify.json", "stored": stored}}


def test_a_deferred_result_is_not_reused_from_the_published_fact(stack):
    got = decision.decision(quick_plan(), fact(stack, deferred_document(stack[1])), {}, {}, OPTIONS)
    assert (got["call"], got["reuse"], got["reason"], got["changed_components"]) == (
        False, False, DEFERRED_REASON, [])


def test_a_deferred_result_that_claims_a_pass_is_still_not_reused(stack):
    got = decision.decision(quick_plan(), fact(stack, deferred_document(stack[1], passed=True)), {}, {}, OPTIONS)
    assert (got["reuse"], got["reason"]) == (False, DEFERRED_REASON)


def test_a_deferred_result_read_by_stack_fingerprint_makes_the_next_run_verify(stack, tmp_path):
    """The role's own call: the module loads verify.json (a deferred result is a valid document), decides it with
    fingerprint.decide, and the decision step turns its answer into the run path."""
    path = tmp_path / "verify.json"
    path.write_text(json.dumps(deferred_document(stack[1]), sort_keys=True, indent=2) + "\n")
    stored = fingerprint.load(str(path))
    assert stored is not None and stored["status"] == "busy"
    reuse, reason, changed = fingerprint.decide(stored, stack[1])
    run = {"reuse": reuse, "reason": reason, "changed_components": changed, "stored": stored,
           "fingerprint": stack[1], "gpus": []}
    got = decision.decision(quick_plan(), None, run, {}, OPTIONS)
    assert (got["call"], got["reuse"], got["reason"]) == (True, False, DEFERRED_REASON)


def test_a_changed_fingerprint_or_force_keeps_its_own_reason(stack):
    other = decision.decision(verify_plan.plan({"profile": "standard", "device": "cpu", "python": PYTHON,
                                                "results_dir": RESULTS, "textfile_dir": ""}),
                              fact(stack, deferred_document(stack[1])), {}, {}, OPTIONS)
    assert (other["reuse"], other["reason"]) == (False, "fingerprint changed: settings")
    forced = decision.decision(quick_plan(), dict(fact(stack, deferred_document(stack[1])), force=True), {}, {},
                               dict(OPTIONS, force=True))
    assert (forced["reuse"], forced["reason"]) == (False, "forced")


def test_a_result_measured_beside_other_processes_stands_when_it_passed(stack):
    measured = deferred_document(stack[1], passed=True, busy=dict(BUSY, state="measured_busy", mode="measure"),
                                 message="all gates passed; measured while " + TEXT)
    for key in ("status", "deferred"):
        measured.pop(key)
    got = decision.decision(quick_plan(), fact(stack, measured), {}, {}, OPTIONS)
    assert (got["reuse"], got["reason"]) == (
        True, "fingerprint unchanged since 2026-11-26T10:00:00Z and the stored result passed")
