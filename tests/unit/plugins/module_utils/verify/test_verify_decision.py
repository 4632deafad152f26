# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the verify role's answer comes from (module_utils/verify/decision.py): the blackwell_cuda_check fact the
_common role publishes, when it was taken for this run, else the role's own stack_fingerprint call; and the steps.

The memo's fingerprint is a real one of this machine's interpreter, taken as the _common role takes it (without
the verify settings); verify.json is decided against it with the plan's settings added, as stack_fingerprint
decides it with those settings."""
from __future__ import annotations

import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import decision
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import plan as verify_plan
PYTHON = sys.executable
RESULTS = "/var/lib/blackwell-pytorch"
OPTIONS = {"python": PYTHON, "cuda_home": "/usr/local/cuda", "force": False}


def plan(**changes):
    request = {"profile": "quick", "device": "cpu", "python": PYTHON, "results_dir": RESULTS, "textfile_dir": ""}
    request.update(changes)
    return verify_plan.plan(request)


@pytest.fixture(scope="module")
def stack():
    """This interpreter's fingerprint without settings (the memo's) and with the quick plan's (verify.json's)."""
    bare = fingerprint.fingerprint(PYTHON, "/usr/local/cuda", "0.5.0", code="c0de", settings={})
    with_settings = fingerprint.fingerprint(PYTHON, "/usr/local/cuda", "0.5.0", code="c0de", settings=plan()["settings"])
    return bare, with_settings


def memo(stack, stored, **changes):
    base = {"python": PYTHON, "pythons": [PYTHON, "/opt/pytorch/current/bin/python"], "cuda_home": "/usr/local/cuda",
            "force": False, "output_dirs": {"verify_results_dir": RESULTS, "verify_prometheus_textfile_dir": ""},
            "fingerprint": stack[0], "gpus": [{"pci_bus_id": "0000:18:00.0", "name": "NVIDIA H100 80GB HBM3"}],
            "reused": False, "verify": {"results": RESULTS + "/verify.json", "stored": stored}}
    base.update(changes)
    return base


def document(print_, passed=True, written="2026-11-26T10:00:00Z"):
    return {"schema": fingerprint.SCHEMA, "passed": passed, "written": written, "fingerprint": print_}


def test_the_memo_answers_as_stack_fingerprint_would(stack):
    stored = document(stack[1])
    got = decision.decision(plan(), memo(stack, stored), {}, {}, OPTIONS)
    assert (got["call"], got["source"], got["reuse"]) == (False, "blackwell_cuda_check", True)
    assert got["fingerprint"]["digest"] == stack[1]["digest"]  # the plan's settings added, the digest taken again
    assert got["reason"] == "fingerprint unchanged since 2026-11-26T10:00:00Z and the stored result passed"
    assert got["gpus"][0]["name"] == "NVIDIA H100 80GB HBM3"


def test_other_settings_in_the_stored_result_make_the_run_path(stack):
    got = decision.decision(plan(profile="standard"), memo(stack, document(stack[1])), {}, {}, OPTIONS)
    assert (got["call"], got["reuse"], got["changed_components"]) == (False, False, ["settings"])
    failed = decision.decision(plan(), memo(stack, document(stack[1], passed=False)), {}, {}, OPTIONS)
    assert (failed["reuse"], failed["reason"]) == (False, "the stored result failed")
    forced = decision.decision(plan(), memo(stack, document(stack[1]), force=True), {}, {},
                               dict(OPTIONS, force=True))
    assert (forced["call"], forced["reuse"], forced["reason"]) == (False, False, "forced")
    nothing = decision.decision(plan(), memo(stack, None), {}, {}, OPTIONS)
    assert (nothing["call"], nothing["reuse"]) == (False, False)


@pytest.mark.parametrize("why,memo_changes,plan_changes,options", [
    ("another interpreter", {"pythons": ["/opt/other/bin/python"]}, {}, {}),
    ("another toolkit", {"cuda_home": "/usr/local/cuda-12.8"}, {}, {}),
    ("force differs", {}, {}, {"force": True}),
    ("verify.json elsewhere", {}, {"results_dir": "/srv/results"}, {}),
    ("a textfile directory the memo's call did not check", {}, {"textfile_dir": "/var/lib/node_exporter"}, {}),
    ("a refused request", {}, {"profile": "long"}, {}),
    ("no verify.json answer", {"verify": None}, {}, {}),
])
def test_the_role_fingerprints_itself_when_the_memo_was_taken_for_something_else(stack, why, memo_changes,
                                                                                 plan_changes, options):
    run = {"reuse": True, "stored": document(stack[1]), "fingerprint": stack[1], "gpus": [], "reason": "r",
           "changed_components": []}
    got = decision.decision(plan(**plan_changes), memo(stack, document(stack[1]), **memo_changes), {}, {},
                            dict(OPTIONS, **options))
    assert (got["call"], got["source"], got["reuse"], got["fingerprint"]) == (True, "stack_fingerprint", False, {}), why
    answered = decision.decision(plan(**plan_changes), memo(stack, document(stack[1]), **memo_changes), run, {},
                                 dict(OPTIONS, **options))
    assert (answered["reuse"], answered["fingerprint"]) == (True, stack[1]), why


def test_a_verification_published_since_the_memo_was_taken_outdates_it(stack):
    stored = document(stack[1], written="2026-11-26T10:00:00Z")
    same = decision.decision(plan(), memo(stack, stored), {}, {"written": "2026-11-26T10:00:00Z"}, OPTIONS)
    assert same["call"] is False  # the published verdict is the stored result the memo read
    newer = decision.decision(plan(), memo(stack, stored), {}, {"written": "2026-11-26T11:00:00Z"}, OPTIONS)
    assert newer["call"] is True
    none_then = decision.decision(plan(), memo(stack, None), {}, {"written": "2026-11-26T11:00:00Z"}, OPTIONS)
    assert none_then["call"] is True


def test_a_skipped_fingerprint_call_is_no_answer():
    got = decision.decision(plan(), {}, {"skipped": True, "changed": False}, {}, OPTIONS)
    assert (got["call"], got["reuse"], got["stored"]) == (True, False, None)


def test_a_check_run_without_the_stack_yet_is_a_preview_that_measures_nothing():
    """site.yml --check on a fresh host: stack_fingerprint answers `preview`; the role includes the verdict alone."""
    text = fingerprint.preview_text("/opt/pytorch/current/bin/python")
    assert text == ("check mode: /opt/pytorch/current/bin/python is not there yet (a run without --check makes the "
                    "stack in the pytorch stage), so it is neither checked nor benchmarked now; a run without --check "
                    "checks it with torch_cuda_check, benchmarks it and stores verify.json")
    run = {"changed": False, "preview": text, "fingerprint": {}, "stored": None, "reuse": False,
           "reason": "check mode: the stack is not there yet", "changed_components": [], "gpus": [], "textfile": {}}
    got = decision.decision(plan(), {}, run, {}, OPTIONS)
    assert (got["call"], got["reuse"], got["preview"]) == (True, False, text)
    assert decision.decision(plan(), {}, dict(run, preview=None), {}, OPTIONS)["preview"] == ""


def test_a_check_run_whose_pytorch_stage_would_change_the_stack_previews_without_a_call():
    """The pytorch stage in this check run would move current (adopt, a new stack, an upgrade): verify says so."""
    python = "/opt/pytorch/current/bin/python"
    stage = {"stack": "torch-2.9.1-cu128", "python": python, "converged": False}
    options = dict(OPTIONS, python=python, check_mode=True, pytorch=stage)
    got = decision.decision(plan(), {}, {}, {}, options)
    assert (got["call"], got["reuse"], got["source"]) == (False, False, "check mode")
    assert got["preview"] == (
        "check mode: the pytorch stage of this run would change the stack behind /opt/pytorch/current/bin/python (to "
        "torch-2.9.1-cu128), so the new stack is neither checked nor benchmarked now; a run without --check checks it "
        "with torch_cuda_check, benchmarks it and stores verify.json")
    for other in (dict(options, check_mode=False), dict(options, pytorch=dict(stage, converged=True)),
                  dict(options, pytorch=dict(stage, python="/opt/other/bin/python")), dict(options, pytorch={})):
        assert decision.decision(plan(), {}, {}, {}, other)["preview"] == "", other
    refused = decision.decision(dict(plan(), refusals=["verify_gates: gate on sustained can never fire"]), {}, {}, {},
                                options)
    assert refused["call"] is True and refused["preview"] == ""
