# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fault rows F13 to F15 (docs/reliability.md): the background jobs a second run can meet.

- F13: a play interrupted (Ctrl-C) during "Install the stack" leaves its pytorch_stack job running; the next run's
  job used to install into the same half-made venv beside it, and the first then removed the venv it had made.
  Now the first job holds <root>/.lock: the second waits for it (pytorch_stack option lock_timeout), then stops
  naming it, or, when it ends within the wait, finds its stack and installs nothing. A real first job (the module
  in a process of its own, from a slow index), real pip.
- F14: the same for a source build (<log dir>/.build.lock): an earlier run's build keeps its tree, venv and log.
- F15: a job that fails before it can write its end record (pytorch_root a file: "[Errno 20] Not a directory")
  used to be followed as "running; starting" until the install timeout; job_follow now ends at the round it ended
  in, with the job's error. A real play.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

import pytest

import wheel_index_fixture
from conftest import STACK, hold_lock, stack_args
from module_run import run_module_once
from playbook import COLLECTIONS, outcome, run

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import dpkg_lock


class _SlowIndex(wheel_index_fixture._Handler):
    def do_GET(self):
        time.sleep(1)  # each answer a second: the first job is still installing when the second run comes
        return super().do_GET()


def _serve_slowly(root):
    def handler(*args, **kwargs):
        return _SlowIndex(*args, directory=root, **kwargs)
    server = wheel_index_fixture.http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.seen, server.proxied, server.json_pages, server.ranges, server.auth = [], [], False, True, []
    wheel_index_fixture.threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d" % server.server_address[1]


def _holder(path, pid, seconds=60):
    """Wait until process `pid` holds the lock file `path` (as /proc/locks lists it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if any(item["pid"] == pid for item in dpkg_lock.read_holders([path])):
            return True
        time.sleep(0.1)
    return False


def test_a_second_install_never_shares_the_venv_with_an_interrupted_runs_job(stand_in_wheels, tmp_path):
    from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_stack
    server, base = _serve_slowly(os.path.dirname(stand_in_wheels["files"]))
    root = tmp_path / "pytorch"
    pip_args = ["--index-url", base + "/whl/cu128", "--only-binary", "torch", "torch==2.9.1+cu128"]
    first_args = tmp_path / "first.json"
    first_args.write_text(json.dumps({"ANSIBLE_MODULE_ARGS": stack_args(root, "", run_id="first", pip_args=pip_args)}))
    # the first run's job, left running in the background by a play that was interrupted
    first = subprocess.Popen([sys.executable, "-m", "ansible_collections.blackwell.pytorch.plugins.modules.pytorch_stack",
                              str(first_args)], env=dict(os.environ, PYTHONPATH=COLLECTIONS),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        lock = str(root / ".lock")
        assert _holder(lock, first.pid)
        venv = root / "venvs" / STACK
        # the second run's job, waiting less than the first needs: stops, naming the first, and changes nothing
        status, result = run_module_once(pytorch_stack, stack_args(root, "", run_id="second", pip_args=pip_args,
                                                                   lock_timeout=1))
        assert status == "fail" and first.poll() is None
        assert result["msg"].startswith(
            "another PyTorch stack job under %s is running on this host: process %d (%s -m ansible_collections."
            "blackwell.pytorch.plugins.modules.pytorch_stack %s) holds %s, most likely the background job of an "
            "earlier run that was interrupted (Ctrl-C stops the play, not its job). Waited 1 s (pytorch_stack option "
            "lock_timeout): let it finish, or stop it (kill %d), then run the play again. Nothing was changed."
            % (root, first.pid, sys.executable, first_args, lock, first.pid))
        assert (root / "venvs" / (".%s.pip.log.rc" % STACK)).read_text() == "second 1\n"  # its poller sees its end
        assert "waiting for process %d (" % first.pid in (root / "venvs" / (".%s.pip.log" % STACK)).read_text()
        # the next run waits long enough: the first job ends, and its stack is what this one finds (no second pip)
        status, result = run_module_once(pytorch_stack, stack_args(root, "", run_id="third", pip_args=pip_args,
                                                                   lock_timeout=120))
        output = first.communicate(timeout=120)[0]
    finally:
        if first.poll() is None:
            first.kill()
        server.shutdown()
    assert first.returncode == 0 and json.loads(output[output.index("{"):])["installed"] is True
    assert status == "exit" and (result["created"], result["installed"], result["stack"]) == (False, False, STACK)
    assert (venv / "bin" / "python").exists() and result["versions"]["torch"] == "2.9.1+cu128"


def test_a_source_build_waits_for_an_earlier_runs_build_then_names_it(tmp_path):
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_run
    build_dir = tmp_path / "build"
    build_dir.mkdir()
    log = build_dir / "torch-2.9.1-src.log"
    log.write_text("[812/2400] Building CUDA object of the earlier run\n")
    params = {"log": str(log), "wheelhouse": str(tmp_path / "wheelhouse"), "run_id": "second", "lock_timeout": 1,
              "venv": str(build_dir / "venv"), "tree": str(tmp_path / "src"), "python": sys.executable, "pip_args": []}
    earlier = hold_lock(str(build_dir / source_run.LOCK))  # the earlier run's build, still compiling

    class Runner(object):
        calls = []

        def run(self, argv, env=None, log=None):
            self.calls.append(argv)
            return 0
    try:
        with pytest.raises(source_run.BuildError) as refused:
            source_run.build(Runner(), params, {"environment": {}})
    finally:
        earlier.terminate()
        earlier.wait()
    assert str(refused.value).startswith(
        "another PyTorch source build in %s is running on this host: process %d (%s -c import fcntl" % (
            build_dir, earlier.pid, sys.executable))
    assert "(pytorch_source_build option lock_timeout): let it finish, or stop it (kill %d)" % earlier.pid \
        in str(refused.value)
    assert Runner.calls == [] and log.read_text() == "[812/2400] Building CUDA object of the earlier run\n"
    assert (build_dir / "torch-2.9.1-src.log.rc").read_text() == "second 1\n"


def test_a_job_that_fails_before_its_end_record_ends_the_follower_at_once(tmp_path):
    not_a_dir = tmp_path / "pytorch-root-file"
    not_a_dir.write_text("")
    task = {"name": "Install the stack", "blackwell.pytorch.job_follow": {
        "module": "blackwell.pytorch.pytorch_stack",
        "args": {"root": str(not_a_dir), "state": "present", "stack": STACK, "python": sys.executable,
                 "expected": {"torch": "2.9.1+cu128"}, "pip_args": ["torch==2.9.1+cu128"], "min_free_gib": 0,
                 "log": "%s/venvs/.%s.pip.log" % (not_a_dir, STACK), "run_id": "r1"},
        "what": "pip install", "interval": 3, "timeout": 3600}}
    started = time.monotonic()
    rc, stdout, _stderr = run(tmp_path, [task], {"file_root": {}}, check=False)
    took = time.monotonic() - started
    found = outcome(stdout, "file_root")
    assert rc != 0 and found["failed_task"] == "Install the stack"
    assert "Not a directory: '%s/venvs'" % not_a_dir in found["msg"]  # the job's own error
    assert took < 60  # not the install timeout (3600 s): the round the job ended in
