# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Two plays shared by the fault and security rows: the nvidia_driver `repo` entry point and the tools
role on localhost, once in check mode and once for real, both with -v --diff (what a user sees).

Hosts (this machine under other names; every file the roles write goes under the host's own
temporary directory through extra vars):
- key_down: the key URL points at a fixture server that was stopped;
- key_down_proxy: the same through a proxy whose URL carries a password;
- secret_proxy: a pinned key given as content and a proxy with a password, the repository on the
  stopped server (apt refuses it in the real run);
- other_key: a key whose fingerprint is not pinned;
- apt_locked: a good key while another process holds apt's lists lock (in the real run);
- tools_secret: the tools venv from an index whose URL carries a password, on the stopped server.
"""
from __future__ import annotations

import http.server
import os
import subprocess
import sys
import threading

import pytest

from playbook import PREFLIGHT, facts, run
from keys import ED_KEY, RSA_FPR, RSA_KEY

SECRET = "Sup3rS3cret"
LOCK_TIMEOUT = 4  # seconds apt_locked waits for the lock (nvidia_driver_apt_lock_timeout)


def stopped_server_url():
    """The URL of a fixture HTTP server that served once and was stopped (nothing listens there now)."""
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    server.shutdown()
    server.server_close()
    thread.join()
    return "http://127.0.0.1:%d/" % port


def _hosts(base, down):
    repo = {"rely_role": "repo", "blackwell_preflight": PREFLIGHT, "rely_facts": facts(),
            "nvidia_driver_repo_url": down + "cuda/debian12/x86_64/"}
    hosts = {
        "key_down": dict(repo),
        "key_down_proxy": dict(repo, nvidia_driver_repo_proxy="http://lab:%s@%s" % (SECRET, down[len("http://"):])),
        "secret_proxy": dict(repo, nvidia_driver_repo_key_content=RSA_KEY, nvidia_driver_repo_key_fingerprints=[RSA_FPR],
                             nvidia_driver_repo_proxy="http://lab:%s@proxy.lab:3128" % SECRET),
        "other_key": dict(repo, nvidia_driver_repo_key_content=ED_KEY, nvidia_driver_repo_key_fingerprints=[RSA_FPR]),
        "apt_locked": dict(repo, nvidia_driver_repo_key_content=RSA_KEY, nvidia_driver_repo_key_fingerprints=[RSA_FPR]),
        "tools_secret": {"rely_role": "tools", "blackwell_tools_use_existing": False,
                         "blackwell_tools_pip_index_url": "http://lab:%s@%s" % (SECRET, down[len("http://"):] + "simple/"),
                         "blackwell_tools_pip_extra_args": "--retries 0 --timeout 2"},
    }
    for name, values in hosts.items():
        values["rely_dir"] = str(base / name)
        for where in ("sources.list.d", "apt.conf.d", "lists/partial", "cache/archives/partial"):  # as apt has them
            os.makedirs(os.path.join(values["rely_dir"], where))
    return hosts


def hold_lock(path):
    """A process that holds `path` as apt does (fcntl write lock) until it is terminated."""
    holder = subprocess.Popen([sys.executable, "-c", "import fcntl, sys, time\nf = open(sys.argv[1], 'w')\n"
                               "fcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(600)\n", path],
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "locked\n"
    return holder


def _play(tmp_path, check):
    down = stopped_server_url()
    hosts = _hosts(tmp_path / "hosts", down)
    holder = hold_lock(os.path.join(hosts["apt_locked"]["rely_dir"], "lists", "lock"))
    tasks = [
        {"name": "Configure the vendor repository", "ansible.builtin.include_role": {
            "name": "blackwell.pytorch.nvidia_driver", "tasks_from": "repo"},
         "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "rely_role == 'repo'"},
        {"name": "Build the tools venv", "ansible.builtin.include_role": {"name": "blackwell.pytorch.tools"},
         "when": "rely_role == 'tools'"},
    ]
    # Extra vars outrank the roles' own vars: every path the roles write lands in the host's directory.
    paths = {"nvidia_driver_repo_keyring": "{{ rely_dir }}/keyrings/nvidia-cuda.asc",
             "_nvidia_driver_source_path": "{{ rely_dir }}/sources.list.d/nvidia-cuda.list",
             "_nvidia_driver_proxy_path": "{{ rely_dir }}/apt.conf.d/90nvidia-cuda-proxy",
             "blackwell_tools_venv": "{{ rely_dir }}/tools",
             # apt-get update reads and locks lists and caches of its own, not the machine's
             "_nvidia_driver_apt_update_options": ["-o", "Dir::State::Lists={{ rely_dir }}/lists",
                                                   "-o", "Dir::Cache={{ rely_dir }}/cache"],
             "nvidia_driver_apt_lock_timeout": LOCK_TIMEOUT}
    try:
        rc, stdout, stderr = run(tmp_path, tasks, hosts, extra_vars=paths, check=check, diff=True, verbose=True,
                                 callback="ansible.builtin.default")
    finally:
        holder.terminate()
        holder.wait()
    return {"rc": rc, "output": stdout + stderr, "hosts": hosts, "url": down, "lock_holder": holder.pid}


@pytest.fixture(scope="session")
def check_run(tmp_path_factory):
    return _play(tmp_path_factory.mktemp("check"), check=True)


@pytest.fixture(scope="session")
def real_run(tmp_path_factory):
    return _play(tmp_path_factory.mktemp("real"), check=False)
