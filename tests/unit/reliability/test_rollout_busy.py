# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""playbooks/rollout.yml leaves a host whose GPUs run another user's job alone: skipped, not failed, nothing
changed, and the rollout goes on with the other hosts.

The playbook runs for real from an installed copy of the collection in which the roles it imports are small stand-ins
(the preflight does nothing, the tools role names an interpreter whose `pynvml` answers for the lab's two H200s,
the pytorch role points `current` at a new stack, the verify role publishes a pass with the verify_busy it saw, the
fleet report does nothing): what is under test is the playbook's own flow, with the real gpu_processes, gpu_facts
and the real rollout_summary filter. The foreign job is a real `sleep` process this test started; /proc is this
machine's.
"""
from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys

import pytest
import yaml

from collection_copy import installed_copy
from playbook import outcome, results, run

HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/unit: fake_nvml_processes
PYNVML = '''import json, os, sys
sys.path.insert(0, %r)
import fake_nvml_processes as fp
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "processes.json")) as handle:
    _gpu0 = json.load(handle)
_nvml = fp.ProcessNVML([dict(fp.H200, processes=_gpu0, utilization=100 if _gpu0 else 0), fp.H200_B])
for _name in dir(_nvml):
    if _name.startswith(("nvml", "NVML")):
        globals()[_name] = getattr(_nvml, _name)
'''
STUBS = {
    "preflight/tasks/main.yml": [],
    "tools/tasks/main.yml": [{"name": "The tools' interpreter (a stand-in answering NVML)",
                              "ansible.builtin.set_fact": {"blackwell_tools_python": "{{ stub_tools_python }}"}}],
    "pytorch/tasks/main.yml": [{"name": "Switch current to the new stack", "ansible.builtin.file": {
        "src": "venvs/torch-2.11.0-cu130", "dest": "{{ pytorch_root }}/current", "state": "link", "force": True,
        "follow": False}}],
    "pytorch/tasks/rollback.yml": [],
    "pytorch/tasks/wheelhouse.yml": [],
    "pytorch/tasks/wheelhouse_use.yml": [],
    "verify/tasks/main.yml": [{"name": "Publish a pass", "ansible.builtin.set_fact": {"blackwell_verify": {
        "passed": True, "message": "all gates passed", "written": "2026-11-26T10:00:00Z",
        "verify_busy": "{{ verify_busy | default('wait') }}"}}}],
    "fleet_report/tasks/main.yml": [],
    "fleet_report/tasks/preflight.yml": [],
}
USER = pwd.getpwuid(os.getuid()).pw_name


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """An installed copy whose roles are the stand-ins above (the plugins and playbooks are the checkout's)."""
    base = tmp_path_factory.mktemp("rollout-copy")
    target = base / "ansible_collections" / "blackwell" / "pytorch"
    target.mkdir(parents=True)
    installed_copy(target, names=("plugins", "meta", "playbooks"))
    for path, tasks in STUBS.items():
        (target / "roles" / path).parent.mkdir(parents=True, exist_ok=True)
        (target / "roles" / path).write_text(yaml.safe_dump(tasks, sort_keys=False) if tasks else "--- []\n")
    return str(base)


@pytest.fixture(scope="module")
def foreign():
    env = dict((key, value) for key, value in os.environ.items() if key != "BLACKWELL_PYTORCH_CHILD")
    job = subprocess.Popen(["sleep", "600"], env=env)
    yield job.pid
    job.kill()
    job.wait()


def host(tmp_path, name, processes):
    """A host whose GPU 0 lists `processes` [(pid, MiB)]; its `current` points at an old stack."""
    root = tmp_path / name / "pytorch"
    (root / "venvs").mkdir(parents=True)
    (root / "current").symlink_to("venvs/torch-2.9.1-cu128")
    nvml = tmp_path / name / "nvml"
    nvml.mkdir()
    (nvml / "pynvml.py").write_text(PYNVML % HELPERS)
    (nvml / "processes.json").write_text(json.dumps([list(entry) for entry in processes]))
    python = nvml / "python"
    python.write_text('#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' % (nvml, sys.executable))
    python.chmod(0o755)
    return {"pytorch_root": str(root), "stub_tools_python": str(python)}


def rollout(tmp_path, collection, hosts, extra=None):
    workdir = tmp_path / "run"
    workdir.mkdir()
    playbook = os.path.join(collection, "ansible_collections", "blackwell", "pytorch", "playbooks", "rollout.yml")
    extra_vars = dict({"rollout_wheel_cache": False, "rollout_serial": ["100%"]}, **(extra or {}))
    rc, stdout, stderr = run(workdir, [], hosts, extra_vars=extra_vars, check=False, collections=collection,
                             playbook=playbook)
    assert "plays" in stdout, stderr[-3000:]
    return rc, stdout


def recorded(stdout, name):
    """The host's rollout_result, from the task that set it."""
    found = [by_host[name]["ansible_facts"]["rollout_result"] for task, by_host in results(stdout)
             if task.startswith("Record the host's outcome") and name in by_host and not by_host[name].get("skipped")]
    return found[-1]


def summary(stdout):
    return [by_host for task, by_host in results(stdout) if task == "Where the rollout ended"][0]


def test_a_busy_host_is_skipped_and_the_rollout_goes_on(tmp_path, collection, foreign):
    hosts = {"ws-busy": host(tmp_path, "ws-busy", [(foreign, 20582)]), "ws-idle": host(tmp_path, "ws-idle", [])}
    rc, stdout = rollout(tmp_path, collection, hosts)
    assert rc == 0
    busy = recorded(stdout, "ws-busy")
    assert busy["message"] == "skipped: busy: GPU 0 pid %d (sleep, user %s, 20.1 GiB)" % (foreign, USER)
    assert (busy["passed"], busy["skipped"], busy["rolled_back"], busy["before"], busy["after"]) == (
        True, True, False, "venvs/torch-2.9.1-cu128", "venvs/torch-2.9.1-cu128")
    assert os.readlink(hosts["ws-busy"]["pytorch_root"] + "/current") == "venvs/torch-2.9.1-cu128"  # untouched
    ran = outcome(stdout, "ws-busy")["tasks"]
    assert not any(name.startswith("Switch current") or name.startswith("Publish a pass") for name in ran), ran
    idle = recorded(stdout, "ws-idle")
    assert (idle["passed"], idle["message"], idle["after"]) == (True, "", "venvs/torch-2.11.0-cu130")
    assert os.readlink(hosts["ws-idle"]["pytorch_root"] + "/current") == "venvs/torch-2.11.0-cu130"
    where = summary(stdout)
    lines = [line for by_host in where.values() for line in (by_host.get("msg") or [])]
    assert "skipped, GPUs busy (a later run takes them): ws-busy" in lines, where


def test_rollout_busy_measure_goes_on_and_the_verify_role_measures(tmp_path, collection, foreign):
    hosts = {"ws-busy": host(tmp_path, "ws-busy", [(foreign, 20582)])}
    rc, stdout = rollout(tmp_path, collection, hosts, {"rollout_busy": "measure"})
    assert rc == 0
    assert recorded(stdout, "ws-busy")["after"] == "venvs/torch-2.11.0-cu130"
    published = [by_host["ws-busy"]["ansible_facts"]["blackwell_verify"] for task, by_host in results(stdout)
                 if task.endswith("Publish a pass")][0]
    assert published["verify_busy"] == "measure"


def test_rollout_busy_ignore_does_not_look(tmp_path, collection, foreign):
    hosts = {"ws-busy": host(tmp_path, "ws-busy", [(foreign, 20582)])}
    rc, stdout = rollout(tmp_path, collection, hosts, {"rollout_busy": "ignore"})
    assert rc == 0
    looked = [by_host["ws-busy"] for task, by_host in results(stdout) if task.startswith("Look for other users")][0]
    assert looked.get("skipped") is True
    assert recorded(stdout, "ws-busy")["after"] == "venvs/torch-2.11.0-cu130"


def test_an_unknown_rollout_busy_is_refused(tmp_path, collection):
    hosts = {"ws-idle": host(tmp_path, "ws-idle", [])}
    rc, stdout = rollout(tmp_path, collection, hosts, {"rollout_busy": "wait"})
    assert rc != 0
    result = outcome(stdout, "ws-idle")
    assert result["msg"] == "rollout_busy must be one of skip, measure, ignore, got wait"
