# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ansible-pull recipe (docs/ansible_pull.md): a workstation checks out the lab's repository and runs
examples/ansible-pull/local.yml, the collection's site playbook, against itself. Here the repository is a local git
repository and the run is a check run of the PyTorch and verify stages (the unit layer's CPU torch venv adopted, as
test_site_tasks.py runs site.yml), so nothing on this machine changes."""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from playbook import COLLECTIONS, ROOT

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=lab", "-c", "user.email=lab@example.invalid", *args], cwd=str(cwd),
                   check=True, capture_output=True, text=True)


def test_ansible_pull_runs_the_recipe_from_a_git_repository(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed for ansible-pull and is not installed")
    pull = os.path.join(ROOT, ".venv-test", "bin", "ansible-pull")
    repo, checkout = tmp_path / "workstations", tmp_path / "checkout"
    repo.mkdir()
    shutil.copy(os.path.join(ROOT, "examples", "ansible-pull", "local.yml"), str(repo / "local.yml"))
    _git(repo, "init", "-q")
    _git(repo, "add", "local.yml")
    _git(repo, "commit", "-q", "-m", "the workstations' playbook")
    extra = {"blackwell_require_gpu": False, "blackwell_site_stages": ["pytorch", "verify"],
             "pytorch_adopt_path": os.path.dirname(os.path.dirname(TORCH_PYTHON)),
             "pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": "", "verify_device": "cpu",
             "verify_tests": ["gemm_fp32"], "verify_results_dir": str(tmp_path / "results"),
             "verify_cuda_home": str(tmp_path / "no-cuda"), "verify_health": False,
             "fleet_report_dir": str(tmp_path / "reports"), "ansible_python_interpreter": os.path.join(
                 ROOT, ".venv-test", "bin", "python")}
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith("ANSIBLE_"))
    env.update(ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_HOME=str(tmp_path / "ansible-home"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"), ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0")
    done = subprocess.run([pull, "--url", "file://%s" % repo, "--directory", str(checkout), "--inventory", "localhost,",
                           "--connection", "local", "--check", "--extra-vars", json.dumps(extra), "local.yml"],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert (checkout / "local.yml").exists()  # the repository was checked out where the recipe says
    assert "TASK [blackwell.pytorch.preflight : Probe the OS" in output, output[-4000:]
    assert "TASK [Summary of this host (GPUs, driver, stages)]" in output, output[-4000:]
    recap = [line for line in output.splitlines() if line.startswith("localhost ")][-1]
    assert " failed=0 " in recap and " unreachable=0 " in recap, recap
    assert not (tmp_path / "pytorch").exists()  # a check run: nothing made
