# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles run alone on a host that has nothing yet, as a user meets them (docs/reliability.md): a check run of the
verify role before any stack is there previews instead of failing on the missing interpreter, and makes nothing;
the pytorch role alone in a check run still refuses a uv that no tools role of the play would install; the tools
role alone refuses a relative venv before it builds anything; `upgrade_pytorch.yml --check` on a host with no stack
previews the new stack instead of failing.

One play over three inventory hosts (this machine under three names, each including its role), in check mode for
the first two and for real for the third, as the user would run each; then the upgrade playbook in check mode.
"""
from __future__ import annotations

import os

import pytest

from playbook import PREFLIGHT, ROOT, facts, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
VERDICT = "blackwell.pytorch.verify : Verification verdict"


def hosts(tmp_path):
    return {
        "verify-fresh": {"role_under_test": "blackwell.pytorch.verify",
                         "verify_python": str(tmp_path / "pytorch" / "current" / "bin" / "python"),
                         "verify_device": "cpu", "verify_tests": ["gemm_fp32"], "verify_health": False,
                         "verify_results_dir": str(tmp_path / "results"), "verify_cuda_home": str(tmp_path / "no-cuda")},
        "pytorch-uv": {"role_under_test": "blackwell.pytorch.pytorch", "blackwell_preflight": PREFLIGHT,
                       "rely_facts": facts(gpus=()), "pytorch_python": TORCH_PYTHON,
                       "pytorch_root": str(tmp_path / "stacks"), "pytorch_installer": "uv",
                       "pytorch_uv": str(tmp_path / "tools" / "bin" / "uv"), "pytorch_profile_path": "",
                       "blackwell_tools_venv": str(tmp_path / "tools")},
        "tools-relative": {"role_under_test": "blackwell.pytorch.tools", "blackwell_tools_venv": "opt/blackwell/tools",
                           "blackwell_preflight": PREFLIGHT},
    }


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    tmp_path = tmp_path_factory.mktemp("check-mode-roles")
    tasks = [{"name": "The role under test", "ansible.builtin.include_role": {"name": "{{ role_under_test }}"},
              "vars": {"ansible_facts": "{{ rely_facts | default({}) }}"}}]
    checked = tmp_path / "checked"
    checked.mkdir()
    every = hosts(tmp_path)
    rc, stdout, stderr = run(checked, tasks, dict((name, every[name]) for name in ("verify-fresh", "pytorch-uv")),
                             check=True, diff=True)
    assert "plays" in stdout, stderr[-2000:]
    real = tmp_path / "real"
    real.mkdir()
    # ansible-playbook runs in `real`: where a relative venv would land
    rc_real, stdout_real, stderr_real = run(real, tasks, {"tools-relative": every["tools-relative"]}, check=False)
    assert "plays" in stdout_real, stderr_real[-2000:]
    return {"tmp": tmp_path, "check": stdout, "real": stdout_real, "rc": (rc, rc_real)}


def test_a_check_run_of_verify_before_the_stack_is_there_previews_and_makes_nothing(alone):
    result = outcome(alone["check"], "verify-fresh")
    assert result["failed_task"] is None, result
    verdict = [by_host["verify-fresh"]["msg"] for name, by_host in results(alone["check"]) if name == VERDICT]
    python = str(alone["tmp"] / "pytorch" / "current" / "bin" / "python")
    assert verdict == ["verify-fresh: check mode: %s is not there yet (a run without --check makes the stack in the "
                       "pytorch stage), so it is neither checked nor benchmarked now; a run without --check checks it "
                       "with torch_cuda_check, benchmarks it and stores verify.json" % python], verdict
    assert not [name for name in result["tasks"] if "Start torch_benchmark" in name or name.endswith("Run torch_cuda_check")
                or "Run torch_cuda_check with" in name], result
    assert not (alone["tmp"] / "results").exists()


def test_the_pytorch_role_alone_in_a_check_run_still_refuses_a_uv_no_tools_role_installs(alone):
    result = outcome(alone["check"], "pytorch-uv")
    uv = str(alone["tmp"] / "tools" / "bin" / "uv")
    assert result["failed_task"] is not None, result
    assert ("pytorch_installer is uv and pytorch_uv %s is not an executable file on pytorch-uv: run the "
            "blackwell.pytorch.tools role first" % uv) in result["msg"], result
    assert not (alone["tmp"] / "stacks").exists()


def test_the_tools_role_alone_refuses_a_relative_venv_before_building_anything(alone):
    result = outcome(alone["real"], "tools-relative")
    assert result["msg"] == (
        "tools-relative: blackwell_tools_venv must be an absolute path on the target, got 'opt/blackwell/tools' "
        "(relative to what? it would depend on the directory the module runs in): give the full path, e.g. "
        "-e blackwell_tools_venv=/opt/blackwell/tools."), result
    assert result["changed_before"] == [], result
    assert not (alone["tmp"] / "real" / "opt").exists()
    assert alone["rc"][1] == 2


@pytest.fixture(scope="module")
def upgrade_check(tmp_path_factory):
    """playbooks/upgrade_pytorch.yml --check --diff on a host with no stack under its root: the pytorch role adopts
    the unit layer's CPU torch venv (the stack it would make current), verify runs on the CPU."""
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    tmp_path = tmp_path_factory.mktemp("upgrade-check")
    host = {"blackwell_require_gpu": False, "pytorch_adopt_path": os.path.dirname(os.path.dirname(TORCH_PYTHON)),
            "pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": "", "verify_device": "cpu",
            "verify_tests": ["gemm_fp32"], "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}},
            "verify_results_dir": str(tmp_path / "results"), "verify_cuda_home": str(tmp_path / "no-cuda"),
            "verify_health": False, "fleet_report_dir": str(tmp_path / "reports")}
    work = tmp_path / "play"
    work.mkdir()
    rc, stdout, stderr = run(work, [], {"ws": host}, check=True, diff=True,
                             playbook=os.path.join(ROOT, "playbooks", "upgrade_pytorch.yml"))
    assert "plays" in stdout, stderr[-2000:]
    return {"tmp": tmp_path, "rc": rc, "stdout": stdout, "stderr": stderr}


def test_a_check_run_of_upgrade_pytorch_previews_the_new_stack_and_makes_nothing(upgrade_check):
    """Was: "Upgrade not kept: ... does not exist" (verify checked a stack the check run never made)."""
    result = outcome(upgrade_check["stdout"], "ws")
    assert upgrade_check["rc"] == 0 and result["failed_task"] is None, (result, upgrade_check["stderr"][-2000:])
    verdict = [by_host["ws"]["msg"] for name, by_host in results(upgrade_check["stdout"]) if name == VERDICT]
    python = str(upgrade_check["tmp"] / "pytorch" / "current" / "bin" / "python")
    assert len(verdict) == 1 and verdict[0].startswith(
        "ws: check mode: the pytorch stage of this run would change the stack behind %s (to torch-" % python), verdict
    assert verdict[0].endswith("), so the new stack is neither checked nor benchmarked now; a run without --check checks "
                               "it with torch_cuda_check, benchmarks it and stores verify.json"), verdict
    assert [where for where in ("pytorch", "results", "reports") if (upgrade_check["tmp"] / where).exists()] == []
