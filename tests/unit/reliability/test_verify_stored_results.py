# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's stored result, as a user meets it (docs/reliability.md): a textfile directory set after the
result was stored (or the textfile deleted) gets the textfile from the stored result, once; a damaged verify.json is
not reused but verified again, saying why; a verify.json that is a directory is refused before the benchmark; and the
stored result is reused only by the code that produced it: after one byte of a verification module_utils file changed
in the installed copy (the collection's version unchanged), the next run checks and benchmarks again.

The verify role runs for real against this machine (CPU mode, the CPU torch venv of the unit layer), one run after
the other on the same results directory, from an installed copy of the collection taken once (the digest of the
verification code is part of the fingerprint: the runs must see the same code until the one byte changes).
"""
from __future__ import annotations

import json
import os

import pytest

from collection_copy import change_one_byte, installed_copy
from playbook import ROOT, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
REWRITE = "blackwell.pytorch.verify : Write the Prometheus textfile again from the stored result (missing or different)"
FINGERPRINT = ("blackwell.pytorch.verify : Refuse gates torch_benchmark could never evaluate and a request that cannot "
               "run; Fingerprint the stack against the stored verification")
TEXTFILE = "blackwell_pytorch_verify.prom"
CHANGED_FILE = os.path.join("plugins", "module_utils", "torch_cuda_check", "policy.py")


def collections(tmp_path):
    """The collection's files as an install puts them, copied once under `tmp_path`; the collections path."""
    target = tmp_path / "collections" / "ansible_collections" / "blackwell" / "pytorch"
    if not target.exists():
        installed_copy(target)
    return str(tmp_path / "collections")


def verify_once(tmp_path, name, **extra):
    workdir = tmp_path / name
    workdir.mkdir()
    tasks = [{"name": "Run verify", "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify"}}]
    host = dict({"verify_python": TORCH_PYTHON, "verify_device": "cpu", "verify_tests": ["gemm_fp32"],
                 "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}}, "verify_results_dir": str(tmp_path / "results"),
                 "verify_cuda_home": str(tmp_path / "no-cuda"), "verify_health": False}, **extra)
    rc, stdout, stderr = run(workdir, tasks, {"ws": host}, check=False, collections=collections(tmp_path))
    assert "plays" in stdout, stderr
    return rc, stdout


def _benchmarked(stdout):
    return any("Start torch_benchmark" in name for name in outcome(stdout, "ws")["tasks"])


def _result(stdout, task):
    found = [by_host["ws"] for name, by_host in results(stdout) if name == task and "ws" in by_host]
    return found[0] if found else None


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    tmp_path = tmp_path_factory.mktemp("stored-results")
    textfile_dir = tmp_path / "node_exporter"
    done = {"tmp": tmp_path, "textfile": textfile_dir / TEXTFILE}
    done["first"] = verify_once(tmp_path, "first")  # no textfile directory yet
    done["stored"] = json.loads((tmp_path / "results" / "verify.json").read_text())
    done["textfile_set"] = verify_once(tmp_path, "textfile_set", verify_prometheus_textfile_dir=str(textfile_dir))
    done["first_again"] = (tmp_path / "results" / "verify.json").read_text()
    done["text"] = done["textfile"].read_text() if done["textfile"].exists() else None
    done["again"] = verify_once(tmp_path, "again", verify_prometheus_textfile_dir=str(textfile_dir))
    done["textfile"].unlink()
    done["deleted"] = verify_once(tmp_path, "deleted", verify_prometheus_textfile_dir=str(textfile_dir))
    done["text_after_delete"] = done["textfile"].read_text() if done["textfile"].exists() else None
    damaged = dict(json.loads((tmp_path / "results" / "verify.json").read_text()), benchmark="x")  # fingerprint intact
    (tmp_path / "results" / "verify.json").write_text(json.dumps(damaged))
    done["damaged"] = verify_once(tmp_path, "damaged")
    done["repaired"] = json.loads((tmp_path / "results" / "verify.json").read_text())
    change_one_byte(tmp_path / "collections" / "ansible_collections" / "blackwell" / "pytorch" / CHANGED_FILE)
    done["code_changed"] = verify_once(tmp_path, "code_changed")
    done["after_code_change"] = json.loads((tmp_path / "results" / "verify.json").read_text())
    return done


def test_unchanged_collection_reuses_the_stored_verification(runs):
    # the run after the first, the collection unchanged (a textfile directory newly set, which the stored result serves)
    rc, stdout = runs["textfile_set"]
    fingerprint = _result(stdout, FINGERPRINT)
    assert _benchmarked(runs["first"][1]) and runs["stored"]["passed"] and not runs["stored"]["reused"]
    assert rc == 0 and fingerprint["reuse"] is True and fingerprint["changed_components"] == [], fingerprint["reason"]
    assert not _benchmarked(stdout), outcome(stdout, "ws")["tasks"]
    assert json.loads(runs["first_again"]) == runs["stored"]  # nothing was written again


def test_one_byte_changed_in_verification_code_re_verifies(runs):
    rc, stdout = runs["code_changed"]
    fingerprint, stored, before = _result(stdout, FINGERPRINT), runs["after_code_change"], runs["repaired"]
    assert rc == 0 and fingerprint["reuse"] is False and fingerprint["reason"] == "fingerprint changed: code", fingerprint
    assert _benchmarked(stdout), outcome(stdout, "ws")["tasks"]
    assert stored["fingerprint"]["code"] != before["fingerprint"]["code"] == runs["stored"]["fingerprint"]["code"]
    # the version in the record is the same: the reuse decision did not use it
    assert stored["fingerprint"]["collection_version"] == before["fingerprint"]["collection_version"]
    assert stored["written"] >= before["written"] and stored["passed"]


def test_a_textfile_directory_set_after_the_result_was_stored_gets_the_textfile(runs):
    # was: blackwell_pytorch_verify.prom written only when the benchmark ran; the run reported success without it
    rc, stdout = runs["textfile_set"]
    assert rc == 0 and not _benchmarked(stdout), outcome(stdout, "ws")
    assert _result(stdout, REWRITE)["changed"] is True
    assert runs["text"] is not None and 'blackwell_pytorch_verify_passed{host="ws"} 1' in runs["text"], runs["text"]
    assert 'test="gemm_fp32"' in runs["text"], runs["text"]


def test_the_textfile_as_it_should_be_is_left_alone(runs):
    rc, stdout = runs["again"]
    assert rc == 0 and not _benchmarked(stdout) and _result(stdout, REWRITE) is None, outcome(stdout, "ws")
    assert outcome(stdout, "ws")["changed_before"] == []


def test_a_deleted_textfile_is_written_again_from_the_stored_result(runs):
    rc, stdout = runs["deleted"]
    assert rc == 0 and not _benchmarked(stdout) and _result(stdout, REWRITE)["changed"] is True, outcome(stdout, "ws")
    assert runs["text_after_delete"] == runs["text"]


def test_a_damaged_verify_json_is_verified_again_saying_why(runs):
    # was: "benchmark": "x" with the fingerprint intact counted as passed, and the fleet report crashed on it
    rc, stdout = runs["damaged"]
    path = runs["tmp"] / "results" / "verify.json"
    assert rc == 0 and _benchmarked(stdout), outcome(stdout, "ws")
    fingerprint = _result(stdout, FINGERPRINT)
    why = "%s is damaged: benchmark is the text 'x', not a mapping" % path
    assert fingerprint["reuse"] is False and fingerprint["reason"] == "the stored result is not used: " + why, fingerprint
    assert "%s: not used, checked and verified again" % why in fingerprint["warnings"], fingerprint
    assert isinstance(runs["repaired"]["benchmark"], dict) and runs["repaired"]["passed"] is True


def test_a_verify_json_that_is_a_directory_is_refused_before_the_benchmark(tmp_path):
    # was: "[Errno 21] Is a directory" only after the check and the whole benchmark
    (tmp_path / "results" / "verify.json").mkdir(parents=True)
    rc, stdout = verify_once(tmp_path, "directory")
    result = outcome(stdout, "ws")
    assert rc != 0 and result["failed_task"] == FINGERPRINT, result
    assert result["msg"] == ("verify_results_dir: %s is a directory, not a file: remove it (the results are written "
                             "there), or set verify_results_dir to another directory" % (tmp_path / "results" / "verify.json"))
    assert not _benchmarked(stdout) and not any("torch_cuda_check" in name for name in result["tasks"]), result["tasks"]
