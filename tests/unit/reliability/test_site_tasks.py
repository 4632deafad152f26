# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tasks a host pays for in playbooks/site.yml: the stages between the preflight and verify are one include,
skipped on a host where none has work.

Every task costs each host a worker, skipped ones included, so a converged site.yml is as fast as its task
list is short. Four runs of site.yml on this machine with the pytorch and verify stages (the unit layer's CPU
torch venv adopted, verify on the CPU; the tools role left out by its tag: it would build a venv from an
index): the second is converged and its task list per host is pinned here; the third, in check mode, runs
the same list. Before them, a check run (`--check --diff`) on the fresh root previews the stages and makes
nothing. The first installs the stack: the stages' include runs, and inside it the driver and toolkit
stages, which are off, are each their role's include, one task, skipped. No driver is loaded here, so the
probe's GPU facts are final and the facts stage has no work either. The static list (`--list-tasks`) shows the
include and no stage role's task.
"""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from playbook import COLLECTIONS, PLAYBOOK_BIN, ROOT, outcome, results, run

SITE = os.path.join(ROOT, "playbooks", "site.yml")
TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
DRIVER = "blackwell.pytorch.nvidia_driver : "
TOOLKIT = "blackwell.pytorch.cuda_toolkit : "
PYTORCH = "blackwell.pytorch.pytorch : "
VERIFY = "blackwell.pytorch.verify : "
FLEET = "blackwell.pytorch.fleet_report : "
FLEET_CHECK = FLEET + ("Check that the fleet report's directory can take the report and its thresholds are fractions "
                       "(on the controller)")
# the stages' include_role tasks (playbooks/tasks/site_stages.yml): each role's one entrance
DRIVER_SITE = "NVIDIA driver (open kernel module, pinned branch, held)"
TOOLKIT_SITE = "CUDA toolkit"
PLAN = (PYTORCH + "Check the request, interpreter, files and toolkit; plan the stack from the index pip reads; "
        "is the host already as asked?")
STAGES = "The stages with work on this host (tools, GPU facts, driver, toolkit, containers, PyTorch)"
# The converged run of one host: (task, skipped).
CONVERGED = [
    ("Validate the stages and the inputs of the stages this play runs (each role's meta/argument_specs.yml)", False),
    (FLEET_CHECK, False),
    ("blackwell.pytorch.preflight : Probe the OS, GPUs, driver, Secure Boot, kernel headers, disk and connection "
     "(one read-only call)", False),
    ("blackwell.pytorch.preflight : Publish blackwell_preflight for the later roles (and the driver, toolkit and PyTorch "
     "stages' answers, when asked)", False),
    ("blackwell.pytorch.preflight : Refuse what cannot work here (OS, GPU, root for the stages, a driver build "
     "without headers, disk), or report the host", False),
    # the play publishes what the probe found for the stages (blackwell_pytorch, blackwell_cuda_check)
    ("Publish the facts of the stages the preflight probe found as asked", False),
    # the probe found every stage as asked (the PyTorch stage's question settled; driver and toolkit off; the tools
    # left out; no driver loaded, so its GPU facts are final): one skipped task for the stages
    (STAGES, True),
    # the published blackwell_cuda_check answers the fingerprint; the probe's health reading serves
    (VERIFY + "The steps - own fingerprint call when no published fact answers, check and benchmark when the stored "
     "result does not stand, verdict, container check", False),
    (VERIFY + "Publish the verdict for the play's summary and the fleet report", False),
    (VERIFY + "Verification verdict", False),
    ("Summary of this host (GPUs, driver, stages)", False),
    # once per play, on the controller (its check ran before any host's work)
    (FLEET + "Gather the hosts' results", False),
    (FLEET + "Render fleet.json, fleet.md and fleet.html (and keep those that differ from what the directory "
     "holds)", False),
    (FLEET + "Write the files that differ in one call (the same results give the same report)", True),
    (FLEET + "Point `latest` at this report (the next report's memory)", True),
    (FLEET + "Where the report is", False),
]


def _ran(stdout, host):
    """[(task, skipped)] of every task that reached `host`, in order."""
    return [(name, bool(by_host[host].get("skipped"))) for name, by_host in results(stdout) if host in by_host]


@pytest.fixture(scope="module")
def site_runs(tmp_path_factory):
    if not os.path.exists(TORCH_PYTHON):
        pytest.fail("the CPU torch venv of the unit layer is missing: %s (make test builds it)" % TORCH_PYTHON)
    tmp_path = tmp_path_factory.mktemp("site-tasks")
    host = {"blackwell_require_gpu": False, "blackwell_site_stages": ["pytorch", "verify"],
            "pytorch_adopt_path": os.path.dirname(os.path.dirname(TORCH_PYTHON)),
            "pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": "",
            "verify_device": "cpu", "verify_tests": ["gemm_fp32"], "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}},
            "verify_results_dir": str(tmp_path / "results"), "verify_cuda_home": str(tmp_path / "no-cuda"),
            "verify_health": False, "fleet_report_dir": str(tmp_path / "reports")}
    runs, made = [], {}
    for name in ("fresh_check", "first", "second", "check"):
        workdir = tmp_path / name
        workdir.mkdir()
        rc, stdout, stderr = run(workdir, [], {"ws": host}, check="check" in name, diff=name == "fresh_check",
                                 playbook=SITE, skip_tags=["tools"])
        assert "plays" in stdout, stderr[-2000:]
        assert rc == 0 and outcome(stdout, "ws")["failed_task"] is None, (outcome(stdout, "ws"), stderr[-2000:])
        runs.append(stdout)
        if name == "fresh_check":
            made = dict((where, (tmp_path / where).exists()) for where in ("pytorch", "results", "reports"))
    return runs[1:] + [runs[0], made]  # first, second, check, fresh_check, what fresh_check made


def test_a_check_run_on_a_fresh_host_previews_every_stage_and_makes_nothing(site_runs):
    """site.yml --check --diff before the stack exists: the pytorch stage plans it, verify says what a real run does
    (the stack behind its interpreter would change), and neither the root nor the results or report directories are
    made."""
    fresh, made = site_runs[3], site_runs[4]
    assert made == {"pytorch": False, "results": False, "reports": False}, made
    summary = str([by_host["ws"]["msg"] for name, by_host in results(fresh) if name.startswith("Summary of this host")])
    assert "'verify: PREVIEW, results in " in summary, summary
    verdict = [by_host["ws"]["msg"] for name, by_host in results(fresh) if name == VERIFY + "Verification verdict"]
    # the pytorch stage of this check run would adopt the CPU venv and point current at it: verify says so
    assert len(verdict) == 1 and re.match(
        r"ws: check mode: the pytorch stage of this run would change the stack behind /\S+/pytorch/current/bin/python "
        r"\(to torch-[0-9.]+-cpu\), so the new stack is neither checked nor benchmarked now; a run without --check checks "
        r"it with torch_cuda_check, benchmarks it and stores verify.json$", verdict[0]), verdict
    assert outcome(fresh, "ws")["changed_before"], "the check run says what it would change"


def test_a_converged_host_pays_one_skipped_task_for_its_stages(site_runs):
    ran = _ran(site_runs[1], "ws")
    assert ran == CONVERGED, ran
    assert len(ran) == 16


def test_the_first_run_enters_the_stages_where_a_roles_tag_selects_its_tasks(site_runs):
    ran = _ran(site_runs[0], "ws")
    assert (STAGES, False) in ran, ran
    # the stages that are off: their role's include, one task, skipped; the tools left out by their tag
    assert (DRIVER_SITE, True) in ran and (TOOLKIT_SITE, True) in ran, ran
    assert not [name for name, _skipped in ran if name.startswith("blackwell.pytorch.tools")], ran
    assert [name for name, skipped in ran if name.startswith(PYTORCH) and not skipped], ran


def test_a_check_run_of_a_converged_host_runs_the_same_tasks_and_skips_the_stages_that_are_off(site_runs):
    assert _ran(site_runs[2], "ws") == CONVERGED
    assert outcome(site_runs[2], "ws")["changed_before"] == []


def test_the_converged_run_changes_nothing_and_reuses_the_stored_results(site_runs):
    first, second = site_runs[:2]
    assert outcome(first, "ws")["changed_before"], "the first run installs the stack and stores the results"
    assert outcome(second, "ws")["changed_before"] == []
    summary = str([by_host["ws"]["msg"] for name, by_host in results(second) if name.startswith("Summary of this host")])
    assert "'driver: stage not run'" in summary and "'toolkit: stage not run'" in summary, summary
    assert ", torch_cuda_check stored result reused'" in summary, summary
    assert "'verify: PASSED (stored result of " in summary, summary


def _list_tasks(*args):
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith("ANSIBLE_"))
    env.update(ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_NOCOLOR="1")
    done = subprocess.run([PLAYBOOK_BIN, SITE, "-i", "localhost,", "--list-tasks"] + list(args), cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    lines = [line.strip().split("\t")[0] for line in done.stdout.splitlines() if line.strip()]
    return lines[lines.index("tasks:") + 1:]


def test_the_static_list_shows_the_stages_include_and_no_stage_roles_task():
    tasks = _list_tasks()
    assert STAGES in tasks, tasks
    for prefix in (DRIVER, TOOLKIT, PYTORCH, "blackwell.pytorch.tools : "):
        assert not any(name.startswith(prefix) for name in tasks), (prefix, tasks)
    for prefix in (VERIFY, FLEET):
        assert any(name.startswith(prefix) for name in tasks), (prefix, tasks)


def test_the_stages_include_is_listed_whatever_tags_select():
    assert _list_tasks("--tags", "nvidia_driver_preflight") == [
        "Validate the stages and the inputs of the stages this play runs (each role's meta/argument_specs.yml)",
        STAGES,
        "Summary of this host (GPUs, driver, stages)"]


def test_the_plan_call_itself_fails_with_the_keep_and_root_refusals(tmp_path):
    tasks = [{"name": "PyTorch stack", "ansible.builtin.include_role": {"name": "blackwell.pytorch.pytorch"}}]
    host = {"blackwell_preflight": {"user": {"uid": 1000, "name": "alice"}}, "pytorch_keep_stacks": 0,
            "pytorch_python": str(tmp_path / "no-python")}
    _rc, stdout, stderr = run(tmp_path, tasks, {"ws": host})
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert result["failed_task"] == PLAN, result
    assert result["msg"].startswith("pytorch_keep_stacks is 0: keep at least 1 (the stack `current` points to is "
                                    "never deleted; 2 also keeps the one a rollback returns to). ws: "), result
    assert not any(name.startswith(PYTORCH + "Decide") for name in result["tasks"]), result["tasks"]
