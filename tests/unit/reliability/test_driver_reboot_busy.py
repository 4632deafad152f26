# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver role does not reboot a host whose GPUs run another user's job: its two tasks before the reboot
(roles/nvidia_driver/tasks/verify.yml, taken from the file as they are) run for real against this machine with the
reboot path's variables set, the real gpu_processes module and a `pynvml` stand-in listing a real `sleep` process as
the foreign job on GPU 0 of the lab's H200 pair; /proc is this machine's."""
from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys

import pytest
import yaml

from playbook import ROOT, outcome, results, run

HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYNVML = '''import json, os, sys
sys.path.insert(0, %r)
import fake_nvml_processes as fp
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "processes.json")) as handle:
    _gpu0 = json.load(handle)
_nvml = fp.ProcessNVML([dict(fp.H200, processes=_gpu0, utilization=100), fp.H200_B])
for _name in dir(_nvml):
    if _name.startswith(("nvml", "NVML")):
        globals()[_name] = getattr(_nvml, _name)
'''
NAMES = ("Look for other users' compute processes before the reboot (nvidia_driver_reboot_busy)",
         "Refuse to reboot while other users' processes run on the GPUs")
REASON = "the loaded module is 575.57.08, the installed packages 580.95.05"
USER = pwd.getpwuid(os.getuid()).pw_name


def driver_tasks():
    """The two tasks as the role has them; the facts the role's earlier tasks read come from each host's
    `driver_facts` (ansible_facts cannot be an inventory variable)."""
    with open(os.path.join(ROOT, "roles", "nvidia_driver", "tasks", "verify.yml")) as handle:
        tasks = [task for task in yaml.safe_load(handle) if task.get("name") in NAMES]
    for task in tasks:
        task.setdefault("vars", {})["ansible_facts"] = "{{ driver_facts }}"
    return tasks


def stand_in(directory, processes):
    directory.mkdir(parents=True)
    (directory / "pynvml.py").write_text(PYNVML % HELPERS)
    (directory / "processes.json").write_text(json.dumps(processes))
    python = directory / "python"
    python.write_text('#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' % (directory, sys.executable))
    python.chmod(0o755)
    return str(python)


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("reboot")
    env = dict((key, value) for key, value in os.environ.items() if key != "BLACKWELL_PYTORCH_CHILD")
    job = subprocess.Popen(["sleep", "600"], env=env)
    reboot_path = {"nvidia_driver_reboot_required": True, "nvidia_driver_reboot_ok": True,
                   "__nvidia_driver_reboot_reason": REASON, "blackwell_preflight": {"connection": {"local": False}},
                   "driver_facts": {"nvidia_driver": {"loaded": True, "version": "575.57.08"}}}
    hosts = {}
    for name, processes, extra in (
            ("ws-busy", [[job.pid, 20582]], {}),
            ("ws-anyway", [[job.pid, 20582]], {"nvidia_driver_reboot_busy": True}),
            ("ws-free", [], {}),
            ("ws-no-driver", [[job.pid, 20582]], {"driver_facts": {"nvidia_driver": {"loaded": False}}})):
        hosts[name] = dict(reboot_path, nvidia_driver_reboot_busy=False,
                           blackwell_tools_python=stand_in(tmp_path / name, processes))
        hosts[name].update(extra)
    try:
        rc, stdout, stderr = run(tmp_path, driver_tasks(), hosts, check=False)
    finally:
        job.kill()
        job.wait()
    assert "plays" in stdout, stderr
    return job.pid, rc, stdout


def looked(stdout, host):
    return [by_host[host] for task, by_host in results(stdout) if task == NAMES[0]][0]


def test_the_reboot_is_refused_naming_the_foreign_process(play):
    pid, rc, stdout = play
    assert len(driver_tasks()) == 2 and rc != 0
    result = outcome(stdout, "ws-busy")
    assert result["failed_task"] == NAMES[1]
    assert result["msg"] == (
        "ws-busy needs a reboot to load the driver (%s), but other users' processes compute on its GPUs and would be "
        "killed: busy: GPU 0 pid %d (sleep, user %s, 20.1 GiB). The role did not reboot. Wait until they end and run "
        "the play again, or set nvidia_driver_reboot_busy: true to reboot anyway." % (REASON, pid, USER))


def test_free_gpus_no_driver_or_reboot_busy_go_on(play):
    pid, rc, stdout = play
    assert looked(stdout, "ws-free")["busy"] is False
    assert looked(stdout, "ws-anyway").get("skipped") is True  # nvidia_driver_reboot_busy: not even looked
    assert looked(stdout, "ws-no-driver").get("skipped") is True  # no driver loaded: nothing computes on a GPU
    for host in ("ws-free", "ws-anyway", "ws-no-driver"):
        assert outcome(stdout, host)["failed_task"] is None
