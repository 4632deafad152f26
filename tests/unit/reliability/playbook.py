# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run a play of the collection's roles against localhost (local connection) and read its results.

One run serves many matrix rows: every inventory host is this machine under another name with
its own variables, so each host fails (or passes) at its own task. The JSON callback gives each
task's result per host; `outcome()` says where a host stopped and whether anything before that
changed (in check mode: would have changed).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
COLLECTIONS = os.path.join(ROOT, ".build", "unit")  # conftest links the checkout there
PLAYBOOK_BIN = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")

# What preflight publishes, for a Debian 12 host over a local connection (the roles read only this).
PREFLIGHT = {
    "os": {"label": "Debian 12", "distribution": "Debian", "version": "12", "family": "Debian", "supported": True},
    "gpus": {"count": 1, "required": True, "pci": [], "names": [], "sm": []},
    "driver": {"loaded": False, "version": None, "kernel_module_flavor": None},
    "secure_boot": {"state": "disabled", "method": "efivars", "detail": ""},
    "kernel": {"release": "6.1.0-28-amd64", "headers_installed": True, "headers_package": "",
               "headers_installable": True},
    "disk": {}, "nouveau_loaded": False, "connection": {"type": "local", "local": True},
}
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
NO_DRIVER = {"loaded": False}


def facts(gpus=(RTX5090,), driver=None):
    """The ansible_facts the roles read, as the collection's modules would set them."""
    return {"nvidia_gpus": list(gpus), "nvidia_driver": driver or NO_DRIVER, "architecture": "x86_64",
            "os_family": "Debian", "distribution": "Debian", "distribution_version": "12"}


def run(tmp_path, tasks, hosts, extra_vars=None, check=True, diff=False, verbose=False, callback="json",
        collections=COLLECTIONS, playbook=None, tags=None, skip_tags=None):
    """ansible-playbook over `hosts` ({name: vars}) with `tasks` -> (rc, stdout, stderr).

    Every host is localhost over a local connection; `tasks` is the play's task list; the play
    does not gather facts (tasks pass ansible_facts through include_role vars). `collections`: where
    blackwell.pytorch is loaded from (the checkout by default; an installed copy for tests that change it).
    `playbook`: a playbook file to run instead of a play of `tasks`. `tags`: run only the tasks of
    these tags (`--tags`; tasks tagged `always` run too); `skip_tags`: leave out the tasks of these (`--skip-tags`).
    `verbose`: True for -v, a number for that many (4: -vvvv).
    """
    # An explicit async directory: with HOME other than the user's home in /etc/passwd (CI runs with a
    # throwaway HOME), a background job's file and async_status's look-up would expand ~ differently.
    local = {"ansible_connection": "local", "ansible_python_interpreter": sys.executable,
             "ansible_async_dir": str(tmp_path / "ansible-async")}
    inventory = {"all": {"hosts": dict((name, dict(values, **local)) for name, values in hosts.items())}}
    (tmp_path / "hosts.yml").write_text(yaml.safe_dump(inventory))
    play = [{"name": "reliability", "hosts": "all", "gather_facts": False, "tasks": tasks}]
    (tmp_path / "play.yml").write_text(yaml.safe_dump(play, sort_keys=False))
    argv = [PLAYBOOK_BIN, "-i", str(tmp_path / "hosts.yml"), playbook or str(tmp_path / "play.yml"), "--forks", "8"]
    if check:
        argv.append("--check")
    if diff:
        argv.append("--diff")
    if verbose:
        argv.append("-" + "v" * int(verbose))  # True: -v; 4: -vvvv
    if tags:
        argv += ["--tags", ",".join(tags)]
    if skip_tags:
        argv += ["--skip-tags", ",".join(skip_tags)]
    if extra_vars:
        argv += ["-e", json.dumps(extra_vars)]
    env = dict((key, value) for key, value in os.environ.items() if not key.startswith("ANSIBLE_"))
    env.update(ANSIBLE_COLLECTIONS_PATH=collections, ANSIBLE_HOME=str(tmp_path / "ansible-home"),
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "ansible-tmp"), ANSIBLE_NOCOLOR="1",
               ANSIBLE_RETRY_FILES_ENABLED="0", ANSIBLE_HOST_KEY_CHECKING="0",
               ANSIBLE_STDOUT_CALLBACK="ansible.posix.json" if callback == "json" else callback)
    done = subprocess.run(argv, cwd=str(tmp_path), env=env, capture_output=True, text=True, timeout=300, check=False)
    return done.returncode, done.stdout, done.stderr


def results(stdout):
    """JSON callback output -> [(task name, {host: result})] in the order the tasks ran."""
    document = json.loads(stdout[stdout.index("{"):])
    return [(task["task"]["name"], task["hosts"]) for play in document["plays"] for task in play["tasks"]]


def outcome(stdout, host):
    """Where `host` stopped: {"failed_task", "msg", "changed_before": [task names], "tasks": [names run]}."""
    ran, changed = [], []
    for name, by_host in results(stdout):
        result = by_host.get(host)
        if result is None or result.get("skipped"):
            continue
        ran.append(name)
        if result.get("failed"):
            return {"failed_task": name, "msg": str(result.get("msg", "")), "changed_before": changed, "tasks": ran}
        if result.get("changed"):
            changed.append(name)
    return {"failed_task": None, "msg": "", "changed_before": changed, "tasks": ran}
