# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One meaning per variable: `pytorch_python` is the pytorch role's interpreter that creates the venvs, and
playbooks/verify.yml verifies the stack's interpreter, `verify_python` (default <pytorch_root>/current/bin/python).

playbooks/verify.yml runs for real against this machine (CPU mode, the CPU torch venv of the unit layer as the
stack) over an inventory whose group_vars set `pytorch_python: /usr/bin/python3`, as docs/airgap.md has labs do
for the pytorch role:
- lab: its stack under pytorch_root (`current` links the CPU torch venv); verify.yml verifies
  <pytorch_root>/current/bin/python (it used to verify /usr/bin/python3: "torch is not installed in /usr/bin/python3"),
  and the play says once that pytorch_python does not choose the interpreter verified, naming verify_python;
- given: `verify_python` in its host vars, which verify.yml now takes (the play's own vars used to override it).
"""
from __future__ import annotations

import json
import os

import pytest

from playbook import ROOT, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
WARN = "Warn that pytorch_python does not choose the interpreter verify.yml verifies"


def host_vars(tmp_path, name, **extra):
    values = {"verify_device": "cpu", "verify_tests": ["gemm_fp32"], "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}},
              "verify_results_dir": str(tmp_path / name / "results"), "verify_cuda_home": str(tmp_path / "no-cuda"),
              "fleet_report_dir": str(tmp_path / "reports")}
    values.update(extra)
    return values


@pytest.fixture(scope="module")
def verify_play(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("verify-python")
    root = tmp_path / "lab" / "pytorch"
    root.mkdir(parents=True)
    os.symlink(os.path.dirname(os.path.dirname(TORCH_PYTHON)), str(root / "current"))  # the stack's venv
    (tmp_path / "group_vars").mkdir()  # beside the inventory: the lab's group_vars
    (tmp_path / "group_vars" / "all.yml").write_text("pytorch_python: /usr/bin/python3\n")
    hosts = {"lab": host_vars(tmp_path, "lab", pytorch_root=str(root)),
             "given": host_vars(tmp_path, "given", pytorch_root=str(tmp_path / "given" / "none"),
                                verify_python=TORCH_PYTHON)}
    rc, stdout, stderr = run(tmp_path, [], hosts, check=False, playbook=os.path.join(ROOT, "playbooks", "verify.yml"))
    assert "plays" in stdout, stderr
    return {"rc": rc, "stdout": stdout, "stderr": stderr, "root": str(root), "tmp": tmp_path}


def stored(play, host):
    with open(str(play["tmp"] / host / "results" / "verify.json")) as handle:
        return json.load(handle)


def test_group_vars_pytorch_python_does_not_change_what_verify_yml_verifies(verify_play):
    result = outcome(verify_play["stdout"], "lab")
    assert result["failed_task"] is None and verify_play["rc"] == 0, (result, verify_play["stderr"][-2000:])
    document = stored(verify_play, "lab")
    stack_python = os.path.join(verify_play["root"], "current", "bin", "python")
    assert document["passed"] and document["benchmark"]["python"] == stack_python


def test_verify_python_in_host_vars_is_the_interpreter_verify_yml_verifies(verify_play):
    result = outcome(verify_play["stdout"], "given")
    assert result["failed_task"] is None, (result, verify_play["stderr"][-2000:])
    document = stored(verify_play, "given")
    assert document["passed"] and document["benchmark"]["python"] == TORCH_PYTHON


def test_the_play_says_once_that_pytorch_python_is_the_venv_creating_interpreter(verify_play):
    said = [result for task, by_host in results(verify_play["stdout"]) if task == WARN
            for result in by_host.values() if not result.get("skipped")]
    assert len(said) == 1, said  # once for the play (its first host), not once per host
    message = said[0]["msg"]
    assert message == (
        "pytorch_python (/usr/bin/python3 on lab) is the pytorch role's interpreter that creates the venvs; "
        "verify.yml does not verify it: it verifies the stack's interpreter, verify_python, by default "
        "<pytorch_root>/current/bin/python (%s/current/bin/python on lab). To verify another interpreter, give it as "
        "verify_python: ansible-playbook blackwell.pytorch.verify -e verify_python=<the stack's bin/python>"
        % verify_play["root"])
