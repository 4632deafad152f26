from __future__ import annotations

import json

from ansible_collections.blackwell.pytorch.plugins.module_utils.results.fingerprint import SCHEMA
from ansible_collections.blackwell.pytorch.plugins.modules import stack_fingerprint


def venv(tmp_path):
    site = tmp_path / "venv/lib/python3.11/site-packages"
    (site / "torch-2.13.0+cpu.dist-info").mkdir(parents=True)
    (site / "torch").mkdir()
    (site / "torch/version.py").write_text("__version__ = '2.13.0+cpu'\ncuda = None\ngit_version = 'abc'\n")
    (tmp_path / "venv/bin").mkdir()
    (tmp_path / "venv/bin/python").write_text("#!/bin/sh\n")  # read by path only: the fingerprint runs nothing
    return str(tmp_path / "venv/bin/python")


def test_first_run_stores_nothing_then_an_unchanged_stack_is_reused(tmp_path, run_module):
    args = {"python": venv(tmp_path), "cuda_home": str(tmp_path / "no-cuda"), "collection_version": "0.2.0",
            "results": str(tmp_path / "verify.json")}
    status, first = run_module(stack_fingerprint, args)
    assert status == "exit" and first["changed"] is False and first["reuse"] is False and first["stored"] is None
    assert first["fingerprint"]["torch"] == {"version": "2.13.0+cpu", "cuda": None, "git_version": "abc"}
    (tmp_path / "verify.json").write_text(json.dumps(
        {"schema": SCHEMA, "passed": True, "fingerprint": first["fingerprint"], "written": "now"}))
    status, second = run_module(stack_fingerprint, args)
    assert second["reuse"] is True and second["changed_components"] == []
    status, forced = run_module(stack_fingerprint, dict(args, force=True))
    assert forced["reuse"] is False and forced["reason"] == "forced"


def test_also_decides_more_documents_against_the_same_fingerprint(tmp_path, run_module):
    check, verify = tmp_path / "cuda_check.json", tmp_path / "verify.json"
    args = {"python": venv(tmp_path), "cuda_home": str(tmp_path / "no-cuda"), "collection_version": "0.3.0",
            "results": str(check), "also": [str(verify), str(tmp_path / "absent.json")]}
    status, first = run_module(stack_fingerprint, args)
    assert [(a["results"], a["reuse"], a["stored"]) for a in first["also"]] == [
        (str(verify), False, None), (str(tmp_path / "absent.json"), False, None)]
    check.write_text(json.dumps({"schema": SCHEMA, "passed": True, "fingerprint": first["fingerprint"]}))
    verify.write_text(json.dumps({"schema": SCHEMA, "passed": False, "fingerprint": first["fingerprint"]}))
    status, second = run_module(stack_fingerprint, args)
    assert second["reuse"] is True
    assert second["also"][0]["reuse"] is False and second["also"][0]["stored"]["passed"] is False
    verify.write_text(json.dumps({"schema": SCHEMA, "passed": True, "fingerprint": first["fingerprint"]}))
    status, third = run_module(stack_fingerprint, args)
    assert third["also"][0]["reuse"] is True and third["also"][0]["changed_components"] == []
    assert third["also"][0]["reason"] == third["reason"]
    status, forced = run_module(stack_fingerprint, dict(args, force=True))
    assert [a["reuse"] for a in forced["also"]] == [False, False]


def test_code_and_settings_are_part_of_the_fingerprint(tmp_path, run_module):
    args = {"python": venv(tmp_path), "cuda_home": str(tmp_path / "no-cuda"), "collection_version": "0.3.0",
            "results": str(tmp_path / "verify.json"), "code": "a" * 64, "settings": {"profile": "quick"}}
    status, first = run_module(stack_fingerprint, args)
    assert first["fingerprint"]["code"] == "a" * 64 and first["fingerprint"]["settings"] == {"profile": "quick"}
    (tmp_path / "verify.json").write_text(json.dumps(
        {"schema": SCHEMA, "passed": True, "fingerprint": first["fingerprint"], "written": "now"}))
    status, same = run_module(stack_fingerprint, dict(args, collection_version="0.3.1"))
    assert same["reuse"] is True
    status, changed = run_module(stack_fingerprint, dict(args, code="b" * 64))
    assert changed["reuse"] is False and changed["reason"] == "fingerprint changed: code"


def test_an_output_dir_that_is_a_file_fails_before_anything_is_read(tmp_path, run_module):
    (tmp_path / "textfile").write_text("x")
    args = {"python": venv(tmp_path), "results": str(tmp_path / "verify.json"),
            "output_dirs": {"verify_results_dir": str(tmp_path / "results"),
                            "verify_prometheus_textfile_dir": str(tmp_path / "textfile")}}
    status, result = run_module(stack_fingerprint, args)
    assert status == "fail" and result["msg"] == (
        "verify_prometheus_textfile_dir: %s is a file, not a directory" % (tmp_path / "textfile"))
    assert "fingerprint" not in result and not (tmp_path / "results").exists()


def test_refusals_fail_first_before_the_output_dirs_or_anything_is_read(tmp_path, run_module):
    (tmp_path / "textfile").write_text("x")
    args = {"python": venv(tmp_path), "results": str(tmp_path / "verify.json"),
            "output_dirs": {"verify_prometheus_textfile_dir": str(tmp_path / "textfile")},
            "refusals": ["verify_results_dir must be an absolute path (got results)", "verify_gates: x"]}
    status, result = run_module(stack_fingerprint, args)
    assert status == "fail" and result["msg"] == "verify_results_dir must be an absolute path (got results); verify_gates: x"
    assert result["refusals"] == args["refusals"] and "fingerprint" not in result and "output_dir_problems" not in result
    status, result = run_module(stack_fingerprint, dict(args, refusals=[], output_dirs={}))
    assert status == "exit" and "fingerprint" in result


def test_a_missing_interpreter_is_refused_naming_verify_python_and_previewed_in_check_mode(tmp_path, run_module):
    """Before: the check ran on and torch_cuda_check failed later with "Python interpreter ... does not exist"."""
    python = str(tmp_path / "pytorch/current/bin/python")
    args = {"python": python, "results": str(tmp_path / "results/verify.json")}
    status, result = run_module(stack_fingerprint, args)
    assert status == "fail" and result["msg"] == (
        "the stack's interpreter %s (verify_python) is not there: give the interpreter of the stack to verify, e.g. "
        "-e verify_python=/opt/pytorch/current/bin/python (the pytorch stage of site.yml makes <pytorch_root>/current)"
        % python)
    status, result = run_module(stack_fingerprint, dict(args, _ansible_check_mode=True))
    assert status == "exit" and result["reuse"] is False and result["fingerprint"] == {}
    assert result["preview"].startswith("check mode: %s is not there yet (a run without --check makes the stack" % python)
    assert not (tmp_path / "results").exists() and not (tmp_path / "pytorch").exists()
