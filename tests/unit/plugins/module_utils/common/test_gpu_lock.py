# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import gpu_lock


@pytest.fixture(autouse=True)
def _release():
    yield
    gpu_lock.release_all()


def _holder(path, mode):
    """A separate process that takes the lock (flock is per open file, so another process is needed)
    and holds it until its stdin closes; returns once it holds it."""
    code = textwrap.dedent("""
        import fcntl, os, sys
        fd = os.open(sys.argv[1], os.O_RDONLY | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX if sys.argv[2] == "exclusive" else fcntl.LOCK_SH)
        print("held", flush=True)
        sys.stdin.read()
    """)
    proc = subprocess.Popen([sys.executable, "-c", code, path, mode], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            text=True)
    assert proc.stdout.readline().strip() == "held"
    return proc


def _end(proc):
    proc.stdin.close()
    proc.wait(timeout=10)


def test_free_lock_is_taken_at_once(tmp_path):
    path = str(tmp_path / "gpu.lock")
    info = gpu_lock.acquire(path, shared=False)
    assert info == {"path": path, "mode": "exclusive", "held": True, "waited_s": info["waited_s"], "error": None}
    assert info["waited_s"] < 1.0
    assert os.path.exists(path)


def test_no_path_takes_nothing():
    assert gpu_lock.acquire("", shared=True) == {"path": None, "mode": "shared", "held": False, "waited_s": 0.0,
                                                 "error": None}


def test_shared_holders_do_not_wait_for_each_other(tmp_path):
    path = str(tmp_path / "gpu.lock")
    proc = _holder(path, "shared")
    try:
        info = gpu_lock.acquire(path, shared=True, max_wait=5)
        assert info["held"] and info["waited_s"] < 1.0
    finally:
        _end(proc)


def test_exclusive_waits_for_a_shared_holder_then_gives_up_and_says_so(tmp_path):
    path = str(tmp_path / "gpu.lock")
    proc = _holder(path, "shared")
    now = [0.0]
    try:
        info = gpu_lock.acquire(path, shared=False, max_wait=2.0, clock=lambda: now[0],
                                sleep=lambda s: now.__setitem__(0, now[0] + s))
    finally:
        _end(proc)
    assert not info["held"]
    assert info["waited_s"] >= 2.0
    assert "went on without it" in info["error"] and path in info["error"]


def test_exclusive_gets_the_lock_when_the_holder_ends(tmp_path):
    path = str(tmp_path / "gpu.lock")
    proc = _holder(path, "exclusive")
    calls = []

    def sleep(seconds):
        calls.append(seconds)
        if len(calls) == 3:
            _end(proc)

    info = gpu_lock.acquire(path, shared=False, max_wait=60, sleep=sleep)
    assert info["held"] and len(calls) >= 3


def test_a_symbolic_link_is_refused_not_followed(tmp_path):
    target = tmp_path / "elsewhere"
    link = tmp_path / "gpu.lock"
    link.symlink_to(target)
    info = gpu_lock.acquire(str(link), shared=False)
    assert not info["held"]
    assert info["error"].startswith("cannot open %s" % link)
    assert not target.exists()


def test_default_path_prefers_run_lock(tmp_path):
    assert gpu_lock.default_path(str(tmp_path)) == str(tmp_path / gpu_lock.FILE_NAME)
    missing = str(tmp_path / "missing")
    assert os.path.dirname(gpu_lock.default_path(missing)) != missing
