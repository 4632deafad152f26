# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The job lock of a background job (common/job_lock.py): taken at once when free, waited for (bounded) when
another process holds it, then refused naming that process; released when the body ends."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import job_lock

HOLD = ("import fcntl, os, sys, time\nf = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
        "fcntl.lockf(f, fcntl.LOCK_EX)\nprint('locked', flush=True)\ntime.sleep(600)\n")


def holder(path):
    process = subprocess.Popen([sys.executable, "-c", HOLD, path], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline() == "locked\n"
    return process


def test_a_free_lock_is_taken_at_once_and_names_its_holder(tmp_path):
    path = str(tmp_path / ".lock")
    with job_lock.held(path, "PyTorch stack job under /opt/pytorch", 5, "v") as taken:
        assert taken == {"path": path, "waited_s": 0.0, "waited_for": []}
        assert open(path).read() == "%d PyTorch stack job under /opt/pytorch\n" % os.getpid()
        assert oct(os.stat(path).st_mode & 0o777) == "0o644"


def test_a_held_lock_is_waited_for_then_refused_naming_the_holder(tmp_path):
    path = str(tmp_path / ".lock")
    other, waits, now = holder(path), [], [0.0]

    def sleep(seconds):
        now[0] += seconds
    try:
        with pytest.raises(job_lock.JobBusy) as busy:
            with job_lock.held(path, "PyTorch source build in /opt/pytorch/build", 3, "pytorch_source_build option "
                               "lock_timeout", on_wait=waits.append, clock=lambda: now[0], sleep=sleep):
                raise AssertionError("the body ran beside the other job")
    finally:
        other.terminate()
        other.wait()
    command = "%s -c %s %s" % (sys.executable, " ".join(HOLD.split()), path)
    assert str(busy.value) == (
        "another PyTorch source build in /opt/pytorch/build is running on this host: process %d (%s) holds %s, most "
        "likely the background job of an earlier run that was interrupted (Ctrl-C stops the play, not its job). "
        "Waited 3 s (pytorch_source_build option lock_timeout): let it finish, or stop it (kill %d), then run the "
        "play again. Nothing was changed." % (other.pid, command[:200], path, other.pid))
    assert [[item["pid"] for item in holders] for holders in waits] == [[other.pid]]  # said once, when the wait began
    assert now[0] == 3.0


def test_the_lock_is_taken_when_the_holder_ends_and_released_after_the_body(tmp_path):
    path = str(tmp_path / ".lock")
    other = holder(path)

    def sleep(seconds):
        other.terminate()  # the earlier job ends during the wait
        other.wait()
    with job_lock.held(path, "job", 60, "v", sleep=sleep) as taken:
        assert [item["pid"] for item in taken["waited_for"]] == [other.pid]
    again = holder(path)  # released: another process takes it at once
    again.terminate()
    again.wait()
