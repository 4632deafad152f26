# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A busy GPU is not a slow one: the verify role run for real against this machine finds another user's process
on a GPU and defers instead of benchmarking beside it.

Only NVML is a stand-in (a `pynvml` module on the path of the interpreter the role runs gpu_processes with,
blackwell_tools_python), answering for the lab's two H200s: GPU 0 lists a real `sleep` process this test started
(the foreign job, 20582 MiB), a real process started with the collection's child marker in its environment, and
the test's own process (an ancestor of the module: the collection's own). /proc is this machine's.

- verify_busy wait (1 s here): no check, no benchmark; verify.json holds the deferred result (status busy, passed
  false, deferred true, the process named by /proc) and the verdict says so without failing the host.
- verify_busy_fail: the same deferral fails the host with the busy text.
- A second run does not reuse the deferred result: the run path looks at the GPUs again.
"""
from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys

import pytest
import yaml

from playbook import ROOT, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/unit: fake_nvml_processes
PYNVML = '''import json, os, sys
sys.path.insert(0, %r)
import fake_nvml_processes as fp
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "processes.json")) as handle:
    _gpu0, _gpu1 = json.load(handle)
_nvml = fp.ProcessNVML([dict(fp.H200, processes=_gpu0, utilization=100), dict(fp.H200_B, processes=_gpu1)])
for _name in dir(_nvml):
    if _name.startswith(("nvml", "NVML")):
        globals()[_name] = getattr(_nvml, _name)
'''
LOOK = "Look for other users' compute processes on the GPUs"
USER = pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture(scope="module")
def foreign():
    """A process that is not the collection's (no marker in its environment), and one that is."""
    env = dict((key, value) for key, value in os.environ.items() if key != "BLACKWELL_PYTORCH_CHILD")
    other = subprocess.Popen(["sleep", "600"], env=env)
    ours = subprocess.Popen(["sleep", "600"], env=dict(env, BLACKWELL_PYTORCH_CHILD=str(os.getpid())))
    yield other.pid, ours.pid
    for process in (other, ours):
        process.kill()
        process.wait()


def stand_in_python(directory, gpu0, gpu1):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pynvml.py").write_text(PYNVML % HELPERS)
    (directory / "processes.json").write_text(json.dumps([gpu0, gpu1]))
    python = directory / "python"
    python.write_text('#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' % (directory, sys.executable))
    python.chmod(0o755)
    return str(python)


def host_vars(tmp_path, name, foreign, **extra):
    other, ours = foreign
    gpu0 = [[other, 20582], [ours, 2310], [os.getpid(), 512]]  # the test's own process: an ancestor of the module
    values = {"verify_python": TORCH_PYTHON, "verify_device": "cuda", "verify_results_dir": str(tmp_path / name),
              "verify_cuda_home": str(tmp_path / "no-cuda"), "verify_busy_wait": 1, "verify_health": False, "verify_gpu_gates": [],
              "blackwell_tools_python": stand_in_python(tmp_path / name / "nvml", gpu0, [[ours, 1024]])}
    values.update(extra)
    return values


def play(workdir, hosts):
    workdir.mkdir()
    tasks = [{"name": "Run verify", "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify"}}]
    rc, stdout, stderr = run(workdir, tasks, hosts, check=False)
    assert "plays" in stdout, stderr
    return rc, stdout


def task_result(stdout, host, suffix):
    return [by_host[host] for task, by_host in results(stdout) if task.endswith(suffix) and host in by_host][0]


def looked_result(stdout, host):
    """The gpu_processes task's result for `host`."""
    return [by_host[host] for task, by_host in results(stdout) if LOOK in task and host in by_host][0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory, foreign):
    tmp_path = tmp_path_factory.mktemp("busy")
    hosts = {"busy": host_vars(tmp_path, "busy", foreign),
             "strict": host_vars(tmp_path, "strict", foreign, verify_busy="defer", verify_busy_fail=True)}
    first = play(tmp_path / "first", hosts)
    first_document = stored(tmp_path, "busy")
    second = play(tmp_path / "second", {"busy": dict(hosts["busy"], verify_busy="defer")})
    return tmp_path, first + (first_document,), second


def stored(tmp_path, host):
    return json.loads((tmp_path / host / "verify.json").read_text())


def expected_text(foreign):
    return "busy: GPU 0 pid %d (sleep, user %s, 20.1 GiB)" % (foreign[0], USER)


def test_a_busy_gpu_defers_the_verification_without_failing_the_host(runs, foreign):
    tmp_path, (rc, stdout, document), second = runs
    result = outcome(stdout, "busy")
    assert result["failed_task"] is None, result
    assert not [name for name in result["tasks"] if "Run torch_cuda_check" in name or "Start torch_benchmark" in name]
    looked = looked_result(stdout, "busy")
    assert (looked["busy"], looked["ours"], looked["source"]) == (True, 3, "nvml")
    # the wait (verify_busy_wait 1 s) ends on the first read after 1 s: later on a loaded machine, never sooner
    assert 1.0 <= looked["waited_s"] <= 3.0, looked["waited_s"]
    text = expected_text(foreign)
    assert (document["status"], document["passed"], document["deferred"], document["message"]) == (
        "busy", False, True, text)
    assert document["summary"] == [text] and document["failed_gates"] == [] and "benchmark" not in document
    assert document["busy"]["waited_s"] == looked["waited_s"]
    assert dict(document["busy"], waited_s=1.0) == {"state": "busy", "mode": "wait", "waited_s": 1.0, "text": text, "processes": [
        {"gpu": 0, "gpu_name": "NVIDIA H200", "pid": foreign[0], "user": USER, "command": "sleep",
         "memory_mib": 20582}]}
    verdict = task_result(stdout, "busy", "Verification verdict")
    assert verdict["msg"] == ("busy: verification deferred (%s/busy/verify.json): %s; the GPUs were not measured, "
                              "the next run verifies" % (tmp_path, text))


def test_verify_busy_fail_fails_the_deferred_host(runs, foreign):
    tmp_path, (rc, stdout, _document), second = runs
    assert rc != 0
    result = outcome(stdout, "strict")
    assert result["failed_task"].endswith("Verification verdict")
    assert result["msg"] == "strict: verification failed (%s/strict/verify.json): %s" % (tmp_path, expected_text(foreign))
    assert stored(tmp_path, "strict")["busy"]["mode"] == "defer"
    looked = looked_result(stdout, "strict")
    assert looked["waited_s"] == 0.0  # defer does not wait


def test_the_next_run_does_not_reuse_the_deferred_result(runs, foreign):
    tmp_path, first, (rc, stdout) = runs
    result = outcome(stdout, "busy")
    assert rc == 0 and result["failed_task"] is None
    assert any(LOOK in name for name in result["tasks"]), result["tasks"]  # the run path, not the stored
    document = stored(tmp_path, "busy")
    assert (document["status"], document["busy"]["mode"], document["busy"]["waited_s"]) == ("busy", "defer", 0.0)


def test_site_summary_says_deferred_and_busy(tmp_path):
    """site.yml's per-host summary, rendered by Ansible from the play's own task, for a deferred host."""
    with open(os.path.join(ROOT, "playbooks", "site.yml")) as handle:
        plays = yaml.safe_load(handle)
    summary = [task for play in plays for task in play.get("tasks") or []
               if task.get("name") == "Summary of this host (GPUs, driver, stages)"][0]
    text = "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"
    gpu = {"index": 0, "name": "NVIDIA H200", "compute_capability": "9.0", "sm": "sm_90", "arch_family": "Hopper",
           "memory_total_mib": 143771, "pcie_gen_current": 5, "pcie_gen_max": 5, "pcie_width_current": 16,
           "pcie_width_max": 16, "pci_bus_id": "0000:00:06.0", "source": "nvml"}
    driver = {"loaded": True, "version": "580.159.04", "branch": "580", "kernel_module_flavor": "open",
              "cuda_driver_version": "13.0", "source": "nvml", "nvml_error": None}
    task = {"name": "Summary", "ansible.builtin.debug": summary["ansible.builtin.debug"],
            "vars": dict(summary.get("vars") or {}, ansible_facts={"nvidia_gpus": [gpu], "nvidia_driver": driver},
                         blackwell_verify={"passed": False, "deferred": True, "status": "busy", "message": text,
                                           "results": "/var/lib/blackwell-pytorch/verify.json", "summary": [text]})}
    rc, stdout, stderr = run(tmp_path, [task], {"ws-h200-01": {}}, check=False)
    assert rc == 0, stderr
    lines = task_result(stdout, "ws-h200-01", "Summary")["msg"]  # the site_summary filter's list of lines
    assert lines[-2:] == ["verify: DEFERRED, results in /var/lib/blackwell-pytorch/verify.json", text]
