# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A converged pytorch stage hands the verify role its fingerprint: no second fingerprint call.

The pytorch role adopts the CPU torch venv of the unit layer and its gate runs the real torch_cuda_check; the
verify role then benchmarks in CPU mode (taking the gate's fact). In a second play over the same host nothing changed:
pytorch_plan finds the stage as asked and returns the blackwell_cuda_check fact, and the verify role decides
its stored verify.json from that fact, so its own stack_fingerprint call is skipped and the stored result
stands. The fact equals what the verify role's own call would have answered (the third play removes the fact
and runs the call).
"""
from __future__ import annotations

import json
import os

import pytest

from playbook import PREFLIGHT, ROOT, facts, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
FINGERPRINT = "Fingerprint the stack against the stored verification"


def play_once(tmp_path, name, host, forget_fact=False):
    workdir = tmp_path / name
    workdir.mkdir()
    tasks = [{"name": "PyTorch stack", "ansible.builtin.include_role": {"name": "blackwell.pytorch.pytorch"},
              "vars": {"ansible_facts": "{{ rely_facts }}"}}]
    if forget_fact:
        tasks.append({"name": "Forget the pytorch stage's fact", "ansible.builtin.set_fact": {"blackwell_cuda_check": None}})
    tasks.append({"name": "Verify", "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify"},
                  "vars": {"ansible_facts": "{{ rely_facts }}"}})
    tasks.append({"name": "Show the verdict", "ansible.builtin.debug": {"var": "blackwell_verify"}})
    rc, stdout, stderr = run(workdir, tasks, {"ws": host}, check=False)
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert rc == 0 and result["failed_task"] is None, (result, stderr[-2000:])
    fingerprint = [by_host["ws"] for task, by_host in results(stdout) if FINGERPRINT in task and "ws" in by_host]
    verdict = [by_host["ws"]["blackwell_verify"] for task, by_host in results(stdout)
               if task == "Show the verdict" and "ws" in by_host][0]
    return result["tasks"], fingerprint[0] if fingerprint else None, verdict


@pytest.fixture(scope="module")
def three_plays(tmp_path_factory):
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    tmp_path = tmp_path_factory.mktemp("converged-verify")
    host = {"blackwell_preflight": PREFLIGHT, "rely_facts": facts(gpus=()),
            "pytorch_adopt_path": os.path.dirname(os.path.dirname(TORCH_PYTHON)),
            "pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": "",
            "verify_device": "cpu", "verify_tests": ["gemm_fp32"], "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}},
            "verify_results_dir": str(tmp_path / "results"), "verify_cuda_home": str(tmp_path / "no-cuda"),
            "verify_health": False}
    return [play_once(tmp_path, name, host, forget_fact=(name == "third")) for name in ("first", "second", "third")], tmp_path


def test_the_first_play_checks_benchmarks_and_stores(three_plays):
    (tasks, fingerprint, verdict), _second, _third = three_plays[0]
    assert any("Start torch_benchmark" in name for name in tasks), tasks
    # the gate's cuda_check published the fact: the verify role takes it there too, and the check runs once
    assert fingerprint is None or fingerprint.get("skipped"), fingerprint
    assert len([name for name in tasks if name.endswith(": Run torch_cuda_check")]) == 1, tasks
    assert verdict["passed"] and not verdict.get("reused")


def test_a_converged_stage_hands_verify_its_fingerprint_and_the_stored_result_stands(three_plays):
    _first, (tasks, fingerprint, verdict), _third = three_plays[0]
    assert fingerprint is None or fingerprint.get("skipped"), fingerprint  # no stack_fingerprint call
    assert not any("Start torch_benchmark" in name or name.endswith(": Run torch_cuda_check") for name in tasks), tasks
    assert verdict["passed"] and verdict["reused"]
    stored = json.loads((three_plays[1] / "results" / "verify.json").read_text())
    assert verdict["written"] == stored["written"]


def test_the_fact_answers_as_the_verify_roles_own_call(three_plays):
    _first, (_tasks, _none, second), (tasks, fingerprint, third) = three_plays[0]
    assert fingerprint is not None and not fingerprint.get("skipped") and fingerprint["reuse"] is True, fingerprint
    assert not any("Start torch_benchmark" in name for name in tasks), tasks
    assert third["reused"] and third["written"] == second["written"] and third["passed"] == second["passed"]
