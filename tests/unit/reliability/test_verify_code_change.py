# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A stored verification is reused only by the code that produced it (docs/reliability.md).

The verify role runs for real against this machine (CPU mode, the CPU torch venv of the unit
layer) from an installed copy of the collection: the first run checks and benchmarks, the second
reuses the stored result, and after one byte of a verification module_utils file changed in the
installed copy (the collection's version unchanged) the third run checks and benchmarks again.
"""
from __future__ import annotations

import json
import os

import pytest

from collection_copy import change_one_byte, installed_copy
from playbook import ROOT, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
CHANGED_FILE = os.path.join("plugins", "module_utils", "torch_cuda_check", "policy.py")


def install_copy(tmp_path):
    """The collection's files as an install puts them: <tmp>/collections/ansible_collections/blackwell/pytorch."""
    return installed_copy(tmp_path / "collections" / "ansible_collections" / "blackwell" / "pytorch")


def verify_once(tmp_path, collections, name):
    workdir = tmp_path / name
    workdir.mkdir()
    tasks = [{"name": "Run verify", "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify"}}]
    host = {"verify_python": TORCH_PYTHON, "verify_device": "cpu", "verify_tests": ["gemm_fp32"],
            "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}}, "verify_results_dir": str(tmp_path / "results"),
            "verify_cuda_home": str(tmp_path / "no-cuda")}
    rc, stdout, stderr = run(workdir, tasks, {"ws": host}, check=False, collections=str(collections))
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert rc == 0 and result["failed_task"] is None, (result, stderr[-2000:])
    fingerprint = [by_host["ws"] for task, by_host in results(stdout)
                   if "Fingerprint the stack" in task and "ws" in by_host][0]
    stored = json.loads((tmp_path / "results" / "verify.json").read_text())
    return result["tasks"], fingerprint, stored


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("code-change")
    copy = install_copy(tmp_path)
    first = verify_once(tmp_path, tmp_path / "collections", "first")
    second = verify_once(tmp_path, tmp_path / "collections", "second")
    change_one_byte(copy / CHANGED_FILE)
    third = verify_once(tmp_path, tmp_path / "collections", "third")
    return first, second, third


def _benchmarked(tasks):
    return any("Start torch_benchmark" in name for name in tasks)


def test_unchanged_collection_reuses_the_stored_verification(three_runs):
    first_tasks, first_stored = three_runs[0][0], three_runs[0][2]
    second_tasks, fingerprint, second_stored = three_runs[1]
    assert _benchmarked(first_tasks) and first_stored["passed"] and not first_stored["reused"]
    assert fingerprint["reuse"] is True and fingerprint["changed_components"] == [], fingerprint["reason"]
    assert not _benchmarked(second_tasks), second_tasks
    assert second_stored == first_stored  # nothing was written again


def test_one_byte_changed_in_verification_code_re_verifies(three_runs):
    first_stored = three_runs[0][2]
    third_tasks, fingerprint, third_stored = three_runs[2]
    assert fingerprint["reuse"] is False and fingerprint["reason"] == "fingerprint changed: code", fingerprint
    assert _benchmarked(third_tasks), third_tasks
    assert third_stored["fingerprint"]["code"] != first_stored["fingerprint"]["code"]
    # the version in the record is the same: the reuse decision did not use it
    assert third_stored["fingerprint"]["collection_version"] == first_stored["fingerprint"]["collection_version"]
    assert third_stored["written"] >= first_stored["written"] and third_stored["passed"]
