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


def _pypi_fixture():
    """tests/fixtures/pypi_index/build.py as a module (make_wheel, build_stack, main)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                        "fixtures", "pypi_index", "build.py")
    spec = importlib.util.spec_from_file_location("pypi_index_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def stand_in_wheels(tmp_path_factory):
    """The stand-in wheels of the pytorch role's tests (tests/fixtures/pypi_index), built once: {"files", "build"}."""
    out = tmp_path_factory.mktemp("pypi_index")
    build = _pypi_fixture()
    build.main(str(out))
    return {"files": str(out / "files"), "build": build}


STACK = "torch-2.9.1-cu128"
# The install rows run with both installers (pytorch_installer): uv from the test venv (requirements-test.txt)
# or BLACKWELL_TEST_UV, pip the stack venv's own.
INSTALLERS = ("pip", "uv")


def uv_executable():
    """The uv the install rows run: BLACKWELL_TEST_UV, else the one beside the test interpreter."""
    return os.environ.get("BLACKWELL_TEST_UV") or os.path.join(os.path.dirname(sys.executable), "uv")


def installer_args(installer):
    """pytorch_stack's installer options as the pytorch role passes them."""
    return {"installer": "uv", "uv": uv_executable()} if installer == "uv" else {"installer": "pip"}


STACK_BUILD = {"stack": STACK, "channel": "cu128", "cuda": "12.8", "sms": ["sm_120"], "source": False}


def stack_args(root, wheels, installer="pip", **more):
    """pytorch_stack's arguments for STACK as the pytorch role passes them (log under venvs/, pins, build)."""
    args = dict(installer_args(installer), **{
        "root": str(root), "state": "present", "stack": STACK, "python": sys.executable,
        "expected": {"torch": "2.9.1+cu128"}, "build": STACK_BUILD, "record": {"stack": STACK},
        "pip_args": ["--no-index", "--find-links", wheels, "--only-binary", "torch", "torch==2.9.1+cu128"],
        "log": os.path.join(str(root), "venvs", ".%s.pip.log" % STACK), "min_free_gib": 0})
    args.update(more)
    return args


def _snapshot(root):
    """What a second install would change: the venv's inode and mtime, torch's file, the pip log."""
    venv = os.path.join(root, "venvs", STACK)
    torch_init = [os.path.join(top, "__init__.py") for top, dirs, _names in os.walk(venv) if top.endswith("/torch")]
    log = os.path.join(root, "venvs", ".%s.pip.log" % STACK)
    return dict((path, (os.stat(path).st_ino, os.stat(path).st_mtime_ns)) for path in [venv, log] + torch_init)


@pytest.fixture(scope="session", params=INSTALLERS)
def stack_runs(request, tmp_path_factory, stand_in_wheels):
    """A real stack through pytorch_stack under umask 000, with each installer: present, then the play dies (no
    switch); the re-run: present again, current, current again, pruned. Each step's (status, result), and
    snapshots."""
    from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_stack
    from module_run import run_module_once
    root = tmp_path_factory.mktemp("stacks") / "pytorch"
    steps, old = {}, os.umask(0)
    try:
        steps["present"] = run_module_once(pytorch_stack, stack_args(root, stand_in_wheels["files"], request.param,
                                                                     run_id="r1"))
        steps["before"] = _snapshot(str(root))
        steps["present_again"] = run_module_once(pytorch_stack, stack_args(root, stand_in_wheels["files"],
                                                                           request.param, run_id="r2"))
        steps["after"] = _snapshot(str(root))
        steps["current"] = run_module_once(pytorch_stack, {"root": str(root), "state": "current", "stack": STACK})
        steps["current_again"] = run_module_once(pytorch_stack, {"root": str(root), "state": "current", "stack": STACK})
        steps["pruned"] = run_module_once(pytorch_stack, {"root": str(root), "state": "pruned", "keep": 1})
    finally:
        os.umask(old)
    steps["root"], steps["installer"] = str(root), request.param
    return steps
