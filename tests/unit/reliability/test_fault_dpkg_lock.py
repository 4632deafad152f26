# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault (docs/reliability.md): dpkg's lock held by another process when a role installs packages.

One real play over three hosts (this machine under other names): the driver's package installs
(nvidia_driver setup-Debian), the toolkits' (cuda_toolkit converge) and the pytorch role's venv
package (pytorch install). Each host's dpkg locks are files of its own directory (extra vars, as the
refresh-lock row gives apt lists of its own), held by a process with a real fcntl lock, as apt holds
them: the machine's dpkg is never touched. The wait is bounded by the role's variable, then the
message names the holder's pid and command; no package task ran, nothing was written.
"""
from __future__ import annotations

import os
import sys
import threading

import pytest

from ansible_collections.blackwell.pytorch.plugins.modules import dpkg_lock_wait
from conftest import hold_lock
from playbook import PREFLIGHT, facts, outcome, results, run
from recap import files_under

TIMEOUT = 3
WAIT_TASK = "Wait for dpkg's lock (another package manager run), then name its holder"
ROLES = {  # host: (role, tasks_from, the timeout variable, the package task that must not run)
    "driver_dpkg_locked": ("nvidia_driver", "setup-Debian", "nvidia_driver_apt_lock_timeout",
                           "Install the headers of the running kernel and DKMS"),
    "toolkit_dpkg_locked": ("cuda_toolkit", "converge", "cuda_toolkit_apt_lock_timeout",
                            "Install the toolkits (the download and the unpacking reported every interval)"),
    "pytorch_dpkg_locked": ("pytorch", "stack", "pytorch_apt_lock_timeout",
                            "Install the venv module of the OS Python (and a source build's compilers, cmake, ninja and git)"),
}


def _locks(rely_dir):
    return [os.path.join(rely_dir, "dpkg", "lock-frontend"), os.path.join(rely_dir, "dpkg", "lock")]


@pytest.fixture(scope="module")
def locked_play(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("dpkg")
    hosts, holders = {}, {}
    for name, (role, _tasks_from, variable, _task) in ROLES.items():
        rely_dir = str(tmp_path / "hosts" / name)
        os.makedirs(os.path.join(rely_dir, "dpkg"))
        for path in _locks(rely_dir):  # as dpkg leaves them: empty files, 0640
            with open(path, "w"):
                pass
            os.chmod(path, 0o640)
        hosts[name] = {"rely_role": role, "rely_dir": rely_dir, "blackwell_preflight": PREFLIGHT,
                       "rely_facts": facts(), variable: TIMEOUT, "nvidia_driver_repo_configure": False}
        if role == "cuda_toolkit":  # the change path starts from the state call's answer: one toolkit to install
            hosts[name]["cuda_toolkit_status"] = {"summary": "install CUDA 12.8", "changes": {
                "install": ["12.8"], "packages": ["cuda-toolkit-12-8"], "register": False, "select": False,
                "link": False, "profile": False}, "configure": {"alternatives": []}}
        holders[name] = hold_lock(_locks(rely_dir)[0])
    tasks = [{"name": "Install the packages of %s" % role, "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.%s" % role, "tasks_from": tasks_from},
        "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "inventory_hostname == '%s'" % name}
        for name, (role, tasks_from, _variable, _task) in ROLES.items()]
    locks = ["{{ rely_dir }}/dpkg/lock-frontend", "{{ rely_dir }}/dpkg/lock"]
    extra = {"_nvidia_driver_dpkg_locks": locks, "_cuda_toolkit_dpkg_locks": locks, "_pytorch_dpkg_locks": locks,
             "__pytorch_steps": {"packages": ["python3-venv"]}}
    try:
        rc, stdout, stderr = run(tmp_path, tasks, hosts, extra_vars=extra, check=False)
    finally:
        for holder in holders.values():
            holder.terminate()
            holder.wait()
    return {"rc": rc, "stdout": stdout, "stderr": stderr, "hosts": hosts, "holders": holders}


@pytest.mark.parametrize("host", sorted(ROLES))
def test_dpkg_lock_held_during_a_package_install_waits_then_names_the_holder(locked_play, host):
    role, _tasks_from, variable, package_task = ROLES[host]
    where = outcome(locked_play["stdout"], host)
    assert where["failed_task"] == "blackwell.pytorch.%s : %s" % (role, WAIT_TASK), where
    holder = locked_play["holders"][host]
    front = _locks(locked_play["hosts"][host]["rely_dir"])[0]
    assert where["msg"].startswith("dpkg's lock was not released within %d s: %s is held by process %d (%s -c import fcntl"
                                   % (TIMEOUT, front, holder.pid, sys.executable)), where["msg"]
    assert ("Another package manager run (unattended-upgrades runs after boot, or an apt or dpkg started by hand) "
            "holds it: let it finish or raise %s and run the play again. Do not remove the lock file." % variable
            ) in where["msg"]
    assert "blackwell.pytorch.%s : %s" % (role, package_task) not in where["tasks"] and where["changed_before"] == []
    assert files_under(locked_play["hosts"][host]["rely_dir"]) == sorted(_locks(locked_play["hosts"][host]["rely_dir"]))


def test_the_wait_is_bounded_by_the_variable(locked_play):
    waited = dict((host, result["waited"]) for name, by_host in results(locked_play["stdout"]) if name.endswith(WAIT_TASK)
                  for host, result in by_host.items())
    assert sorted(waited) == sorted(ROLES)
    assert all(TIMEOUT <= seconds < TIMEOUT + 3 for seconds in waited.values()), waited


def test_a_lock_released_within_the_timeout_lets_the_install_go_on(tmp_path, run_module):
    lock = str(tmp_path / "lock-frontend")
    holder = hold_lock(lock)
    timer = threading.Timer(1.0, holder.terminate)
    timer.start()
    try:
        status, result = run_module(dpkg_lock_wait, {"paths": [lock, str(tmp_path / "no-such-lock")], "timeout": 20})
    finally:
        timer.cancel()
        holder.terminate()
        holder.wait()
    assert status == "exit" and not result["changed"], result
    assert 0.5 <= result["waited"] < 10
    assert [(item["path"], item["pid"]) for item in result["holders"]] == [(lock, holder.pid)]
