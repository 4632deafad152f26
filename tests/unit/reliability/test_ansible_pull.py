# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The ansible-pull recipe (docs/ansible_pull.md): a workstation checks out the lab's repository and runs
examples/ansible-pull/local.yml, the collection's site playbook, against itself, with the inventory (hosts.yml) and
the lab's settings (group_vars/all.yml beside it) from the repository. Here the repository is a local git repository,
ansible-pull gets the service's own arguments (examples/ansible-pull/blackwell-pull.service) and the run is a check
run of the PyTorch and verify stages (the unit layer's CPU torch venv adopted, as test_site_tasks.py runs site.yml),
so nothing on this machine changes. The service itself runs in the molecule scenario `site` (pull.yml)."""
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


RECIPE = os.path.join(ROOT, "examples", "ansible-pull")


def _service_args():
    """The arguments the service gives ansible-pull (its ExecStart, continuation lines joined), after the program."""
    with open(os.path.join(RECIPE, "blackwell-pull.service"), encoding="utf-8") as handle:
        text = handle.read().replace("\\\n", " ")
    line = [entry for entry in text.splitlines() if entry.startswith("ExecStart=")][0]
    program, *args = line[len("ExecStart="):].split()
    assert program == "/opt/blackwell-pull/venv/bin/ansible-pull"
    return args


def test_the_docs_show_the_service_command():
    with open(os.path.join(ROOT, "docs", "ansible_pull.md"), encoding="utf-8") as handle:
        docs = handle.read().replace("\\\n", " ")
    shown = [line.split()[1:] for line in docs.splitlines() if line.startswith("ansible-pull --url")]
    assert shown == [_service_args()]
    assert _service_args() == ["--url", "${BLACKWELL_PULL_URL}", "--directory", "/opt/blackwell-pull/checkout",
                               "--inventory", "hosts.yml", "--connection", "local", "local.yml"]


def test_ansible_pull_runs_the_recipe_from_a_git_repository(tmp_path):
    if shutil.which("git") is None:
        pytest.fail("git is needed for ansible-pull and is not installed")
    pull = os.path.join(ROOT, ".venv-test", "bin", "ansible-pull")
    repo, checkout = tmp_path / "workstations", tmp_path / "checkout"
    repo.mkdir()
    (repo / "group_vars").mkdir()
    for name in ("local.yml", "hosts.yml"):
        shutil.copy(os.path.join(RECIPE, name), str(repo / name))
    settings = {"blackwell_require_gpu": False, "blackwell_site_stages": ["pytorch", "verify"],
                "pytorch_adopt_path": os.path.dirname(os.path.dirname(TORCH_PYTHON)),
                "pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": "", "verify_device": "cpu",
                "verify_tests": ["gemm_fp32"], "verify_results_dir": str(tmp_path / "results"),
                "verify_cuda_home": str(tmp_path / "no-cuda"), "verify_health": False,
                "fleet_report_dir": str(tmp_path / "reports")}
    (repo / "group_vars" / "all.yml").write_text(json.dumps(settings, indent=2) + "\n", encoding="utf-8")  # YAML
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "the workstations' playbook, inventory and settings")
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith("ANSIBLE_"))
    env.update(ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_HOME=str(tmp_path / "ansible-home"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"), ANSIBLE_NOCOLOR="1", ANSIBLE_RETRY_FILES_ENABLED="0")
    args = _service_args()
    args[args.index("${BLACKWELL_PULL_URL}")] = "file://%s" % repo
    args[args.index("/opt/blackwell-pull/checkout")] = str(checkout)
    # the test venv's Python instead of the system's (hosts.yml): the modules need what it has
    interpreter = "ansible_python_interpreter=%s" % os.path.join(ROOT, ".venv-test", "bin", "python")
    done = subprocess.run([pull, *args[:-1], "--check", "--extra-vars", interpreter, args[-1]],
                          cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=600, check=False)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-4000:]
    assert (checkout / "local.yml").exists()  # the repository was checked out where the recipe says
    assert "TASK [blackwell.pytorch.preflight : Probe the OS" in output, output[-4000:]
    assert "TASK [Summary of this host (GPUs, driver, stages)]" in output, output[-4000:]
    recap = [line for line in output.splitlines() if line.startswith("localhost ")][-1]
    assert " failed=0 " in recap and " unreachable=0 " in recap, recap
    assert '"driver: stage not run"' in output, output[-4000:]  # the stages of group_vars/all.yml, not the default
    assert not (tmp_path / "pytorch").exists()  # a check run: nothing made
