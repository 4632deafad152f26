# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Is the pytorch stage already as asked: the pure decisions, then read_and_decide on real files."""
from __future__ import annotations

import json
import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged as cv
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_steps
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import decision
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint as vf

ROOT_DIR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", ".."))
PLAN = {"stack": "torch-2.9.1-cu128", "method": "wheel", "channel": "cu128",
        "pins": ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"],
        "expected": {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}}
PROFILE = "export PYTORCH_STACK=/opt/pytorch/current\n"


def test_role_refusals_name_the_keep_count_and_become():
    assert cv.role_refusals(2, {"uid": 0, "name": "root"}, "ws-1") == []
    assert cv.role_refusals(1, {}, "ws-1") == []
    assert cv.role_refusals(0, {"uid": 1000, "name": "alice"}, "ws-1") == [
        "pytorch_keep_stacks is 0: keep at least 1 (the stack `current` points to is never deleted; 2 also keeps "
        "the one a rollback returns to).",
        "ws-1: the pytorch role changes the host and needs root; this play runs as uid 1000 (alice). Set become: "
        "true on the play (or -b / --become on the command line, with -K when sudo asks for a password)."]


def test_stack_record_is_what_the_role_writes_in_the_marker():
    with open(os.path.join(ROOT_DIR, "roles", "pytorch", "tasks", "stack.yml")) as handle:
        assert 'record: "{{ __pytorch_steps.record }}"' in handle.read()
    steps = role_steps.stack_steps(PLAN, {"root": "/opt/pytorch", "python": "/usr/bin/python3"})
    record = cv.stack_record(PLAN, "/usr/bin/python3")
    assert steps["record"] == record
    assert sorted(record) == ["channel", "managed_by", "method", "pins", "python", "stack"]
    assert record["managed_by"] == "blackwell.pytorch.pytorch" and record["python"] == "/usr/bin/python3"
    assert lifecycle.marker_text(record) == json.dumps(record, indent=4, sort_keys=True) + "\n"


def _fp(**changes):
    current = {"driver_version": "580.95.05", "cuda_toolkit": "12.8", "torch": {"version": "2.9.1+cu128"},
               "packages": ["torch==2.9.1+cu128"], "gpu_uuids": ["GPU-1"], "code": "c0de", "settings": {}}
    current.update(changes)
    return current


def _stored(passed=True, **changes):
    return {"schema": vf.SCHEMA, "passed": passed, "written": "2026-01-01T00:00:00Z",
            "fingerprint": _fp(settings={"profile": "quick"}, **changes), "result": {"build": {}}}


def test_a_stored_check_stands_whatever_the_verify_settings():
    stands, reason = cv.check_stands(_stored(), _fp())
    assert stands and reason.startswith("fingerprint unchanged since 2026-01-01T00:00:00Z")


@pytest.mark.parametrize("stored, current, force, reason", [
    (None, _fp(), False, "no stored result (missing or unreadable)"),
    (_stored(), _fp(packages=["torch==2.9.1+cu128", "numpy==2.0.0"]), False, "fingerprint changed: packages"),
    (_stored(), _fp(code="other"), False, "fingerprint changed: code"),
    (_stored(passed=False), _fp(), False, "the stored result failed"),
    (_stored(), _fp(), True, "forced"),
], ids=["none", "packages", "code", "failed", "forced"])
def test_a_stored_check_does_not_stand(stored, current, force, reason):
    assert cv.check_stands(stored, current, force) == (False, reason)


@pytest.mark.parametrize("found, problem", [
    (None, ""),
    ({"exists": True, "text": PROFILE, "mode": 0o644, "uid": 0, "gid": 0}, ""),
    ({"exists": False}, "the login-shell profile is not there"),
    ({"exists": True, "text": "old\n", "mode": 0o644, "uid": 0, "gid": 0}, "the login-shell profile differs"),
    ({"exists": True, "text": PROFILE, "mode": 0o666, "uid": 0, "gid": 0},
     "the login-shell profile's owner or mode differs"),
    ({"exists": True, "text": PROFILE, "mode": 0o644, "uid": 1000, "gid": 0},
     "the login-shell profile's owner or mode differs"),
], ids=["none-asked", "as-wanted", "missing", "text", "mode", "owner"])
def test_profile_problem(found, problem):
    assert cv.profile_problem(found, PROFILE) == problem


def test_stack_problems():
    links = {"current": "venvs/torch-2.9.1-cu128", "previous": None}
    record = cv.stack_record(PLAN, "/usr/bin/python3")
    marker = lifecycle.marker_text(record)
    versions = {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}
    assert cv.stack_problems("torch-2.9.1-cu128", links, marker, record, PLAN["expected"], versions) == []
    assert cv.stack_problems(None, links, marker, record, {}, {}) == ["no stack to compare"]
    assert cv.stack_problems("torch-2.9.1-cu128", {"current": None}, marker, record, {}, {}) == [
        "current is not there, not venvs/torch-2.9.1-cu128"]
    assert cv.stack_problems("torch-2.9.1-cu128", links, None, record, PLAN["expected"], dict(versions, torchvision="0.24.0")) == [
        "torch-2.9.1-cu128's marker does not record this plan",
        "torch-2.9.1-cu128 has torchvision 0.24.0 (want 0.24.1+cu128)"]
    assert cv.stack_problems("torch-2.9.1-cu128", links, None, None, {}, {}) == []  # adopted: no marker


def test_decide_lists_everything_in_the_way_or_says_nothing_changes():
    ok = cv.decide([], (True, "fingerprint unchanged since T and the stored result passed"), "", [])
    assert ok["converged"] and ok["problems"] == [] and ok["standing"].startswith("already as asked (current stack "
                                                                                  "checked, fingerprint unchanged")
    not_ok = cv.decide([], (False, "fingerprint changed: torch"), "the login-shell profile differs",
                       ["torch-2.8.0-cu128"])
    assert not not_ok["converged"] and not_ok["problems"] == [
        "torch_cuda_check: fingerprint changed: torch", "the login-shell profile differs",
        "1 stack(s) beyond the keep count (torch-2.8.0-cu128)"]
    assert not_ok["standing"].startswith("to change: torch_cuda_check: fingerprint changed: torch; ")
    # a stack that is not current: its check is not asked about
    assert cv.decide(["current is not there, not venvs/x"], (False, ""), "", [])["problems"] == [
        "current is not there, not venvs/x"]


def _venv(root, stack, versions):
    site = root / "venvs" / stack / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (root / "venvs" / stack / "bin").mkdir()
    for name, version in versions.items():
        (site / ("%s-%s.dist-info" % (name, version))).mkdir()
    return str(root / "venvs" / stack / "bin" / "python")


@pytest.fixture
def host(tmp_path):
    """A root with the planned stack current, its marker, a passed cuda_check.json and the profile."""
    root = tmp_path / "pytorch"
    python = _venv(root, PLAN["stack"], PLAN["expected"])
    record = cv.stack_record(PLAN, "/usr/bin/python3")
    (root / "venvs" / PLAN["stack"] / cv.lifecycle.MARKER).write_text(lifecycle.marker_text(record))
    os.symlink("venvs/%s" % PLAN["stack"], str(root / "current"))
    cuda = tmp_path / "cuda"
    cuda.mkdir()
    current = vf.fingerprint(python, str(cuda), "", code="c0de")
    results = tmp_path / "cuda_check.json"
    results.write_text(json.dumps({"schema": vf.SCHEMA, "passed": True, "written": "T",
                                   "fingerprint": dict(current, settings={"profile": "quick"}),
                                   "result": {"build": {"torch_version": "2.9.1+cu128"}}}))
    profile = tmp_path / "pytorch.sh"
    profile.write_text(PROFILE)
    profile.chmod(0o644)
    candidate = {"stack": PLAN["stack"], "python": python, "record": record, "expected": PLAN["expected"]}
    check = {"results": str(results), "code": "c0de", "cuda_home": str(cuda), "force": False}
    return {"root": root, "candidate": candidate, "check": check, "profile": profile, "tmp": tmp_path}


def _decide(host, keep=2, profile=None, candidates=None):
    return cv.read_and_decide(str(host["root"]), keep, candidates or [host["candidate"]], host["check"],
                              str(host["profile"]) if profile is None else profile, PROFILE)


def test_a_converged_host_reads_as_converged(host):
    decided = _decide(host, profile="")  # the profile's owner is this user: no profile asked for here
    assert decided["converged"], decided["problems"]
    assert decided["stack"] == PLAN["stack"] and decided["check"] == {"build": {"torch_version": "2.9.1+cu128"}}


def test_the_profile_is_compared(host):
    host["profile"].write_text("old\n")
    assert "the login-shell profile differs" in _decide(host)["problems"]
    host["profile"].unlink()
    assert "the login-shell profile is not there" in _decide(host)["problems"]


def test_a_changed_stack_an_old_check_or_a_stack_to_prune_is_not_converged(host):
    site = host["root"] / "venvs" / PLAN["stack"] / "lib" / "python3.12" / "site-packages"
    (site / "numpy-2.0.0.dist-info").mkdir()
    decided = _decide(host, profile="")
    assert not decided["converged"] and decided["check"] is None
    assert decided["problems"] == ["torch_cuda_check: fingerprint changed: packages"]
    _venv(host["root"], "torch-2.8.0-cu128", {"torch": "2.8.0+cu128"})
    _venv(host["root"], "torch-2.7.1-cu128", {"torch": "2.7.1+cu128"})
    assert _decide(host, keep=2, profile="")["problems"][-1].startswith("1 stack(s) beyond the keep count")


def test_the_fallback_stack_stands_when_current(host):
    other = dict(host["candidate"], stack="torch-2.9.1-src", python="/nowhere/bin/python")
    decided = _decide(host, profile="", candidates=[other, host["candidate"]])
    assert decided["converged"] and decided["stack"] == PLAN["stack"]


def test_nothing_there_is_not_converged(tmp_path):
    decided = cv.read_and_decide(str(tmp_path / "none"), 2, [{"stack": PLAN["stack"], "python": "/x/bin/python",
                                                              "record": {}, "expected": {}}], {}, "", "")
    assert not decided["converged"] and decided["problems"] == ["current is not there, not venvs/torch-2.9.1-cu128"]


def _with_memo_options(host, **changes):
    results_dir = host["tmp"] / "results"
    results_dir.mkdir(exist_ok=True)
    os.replace(host["check"]["results"], str(results_dir / "cuda_check.json"))
    host["check"].update(results=str(results_dir / "cuda_check.json"), alias=str(host["root"] / "current" / "bin" / "python"),
                         collection_version="1.2.3", output_dirs={"verify_results_dir": str(results_dir),
                                                                  "verify_prometheus_textfile_dir": ""})
    host["check"].update(changes)
    return results_dir


def test_a_converged_host_gives_the_fact_the_cuda_check_entry_point_would_publish(host):
    results_dir = _with_memo_options(host)
    decided = _decide(host, profile="")
    fact = decided["cuda_check"]
    assert decided["converged"] and fact is not None
    assert fact["result"] == {"build": {"torch_version": "2.9.1+cu128"}, "reused": True} and fact["reused"]
    assert fact["python"] == host["candidate"]["python"]
    assert fact["pythons"] == [host["candidate"]["python"], str(host["root"] / "current" / "bin" / "python")]
    assert fact["results"] == str(results_dir / "cuda_check.json") and fact["force"] is False
    assert fact["output_dirs"] == host["check"]["output_dirs"] and fact["gpus"] == vf.gpu_models()
    current = vf.fingerprint(host["candidate"]["python"], host["check"]["cuda_home"], "1.2.3", code="c0de")
    assert fact["fingerprint"] == current
    assert fact["verify"] == {"results": str(results_dir / "verify.json"), "stored": None, "reuse": False,
                              "reason": "no stored result (missing or unreadable)",
                              "changed_components": list(vf.COMPONENTS)}


def test_the_fact_answers_the_verify_role_as_its_own_fingerprint_call_would(host):
    results_dir = _with_memo_options(host)
    settings = {"profile": "quick", "tests": ["gemm"]}
    current = vf.fingerprint(host["candidate"]["python"], host["check"]["cuda_home"], "1.2.3", code="c0de",
                             settings=settings)
    stored = {"schema": vf.SCHEMA, "passed": True, "written": "2026-11-01T00:00:00Z", "fingerprint": current}
    (results_dir / "verify.json").write_text(json.dumps(stored))
    fact = _decide(host, profile="")["cuda_check"]
    plan = {"refusals": [], "settings": settings, "output_dirs": host["check"]["output_dirs"]}
    options = {"python": str(host["root"] / "current" / "bin" / "python"), "cuda_home": host["check"]["cuda_home"],
               "force": False}
    assert decision.memo_usable(fact, plan, options)
    answer = decision.from_memo(fact, plan, False)
    assert answer["reuse"] and answer["stored"] == stored and answer["fingerprint"]["digest"] == current["digest"]
    # other verify settings than the stored result's: the answer is to run again, as the call would say
    plan["settings"] = {"profile": "full"}
    assert decision.from_memo(fact, plan, False)["reason"] == "fingerprint changed: settings"


def test_no_fact_when_an_output_directory_cannot_take_results_or_the_host_is_not_converged(host):
    (host["tmp"] / "a-file").write_text("x")
    _with_memo_options(host, output_dirs={"verify_results_dir": str(host["tmp"] / "a-file")})
    decided = _decide(host, profile="")
    assert decided["converged"] and decided["cuda_check"] is None
    host["profile"].write_text("old\n")
    decided = _decide(host)
    assert not decided["converged"] and decided["cuda_check"] is None
