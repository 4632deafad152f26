"""Every child run_child() starts carries CHILD_MARKER, and gpu_processes tells it (and the processes it starts,
forks included) from a foreign process by reading the real /proc."""
from __future__ import annotations

import os
import subprocess
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import (
    CHILD_MARKER, emit_result_source, environment, run_child)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import gpu_processes

# The child starts a grandchild (as Triton's compiler or a torch.multiprocessing worker would) and forks (as
# benchmark/multi.py's all-reduce ranks do); it reports whether /proc says each of them is the collection's own.
CHILD = emit_result_source() + """
import multiprocessing, os, subprocess, sys
sys.path[:0] = %r
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_processes import marked
grandchild = subprocess.Popen(["sleep", "30"])
context = multiprocessing.get_context("fork")
queue = context.Queue()
def rank(q):
    q.put(marked("/proc", os.getpid()))
fork = context.Process(target=rank, args=(queue,))
fork.start()
forked = queue.get(timeout=20)
fork.join()
answer = {"marker": os.environ.get(%r), "self": marked("/proc", os.getpid()),
          "grandchild": marked("/proc", grandchild.pid), "fork": forked}
grandchild.kill()
grandchild.wait()
emit(answer)
""" % (list(sys.path), CHILD_MARKER)


def test_the_environment_carries_the_marker_whatever_env_says():
    base = {"PATH": "/usr/bin:/bin", "HOME": "/root", CHILD_MARKER: "1"}
    assert environment(base, {"CUDA_VISIBLE_DEVICES": 0, "HOME": None, CHILD_MARKER: None}, 4242) == {
        "PATH": "/usr/bin:/bin", "CUDA_VISIBLE_DEVICES": "0", CHILD_MARKER: "4242"}


def test_a_child_its_process_and_its_fork_are_marked_in_proc():
    ran = run_child(sys.executable, CHILD, timeout=60)
    assert ran["status"] == "ok", ran
    assert ran["result"] == {"marker": str(os.getpid()), "self": True, "grandchild": True, "fork": True}


def test_a_process_started_elsewhere_is_foreign_and_the_reader_and_its_parent_are_ours():
    env = dict((key, value) for key, value in os.environ.items() if key != CHILD_MARKER)
    other = subprocess.Popen(["sleep", "30"], env=env)
    try:
        own = set(gpu_processes.ancestors("/proc", os.getpid()))
        assert os.getpid() in own and os.getppid() in own
        assert gpu_processes.marked("/proc", other.pid) is False
        assert gpu_processes.is_ours("/proc", other.pid, own) is False
        assert gpu_processes.command("/proc", other.pid) == "sleep"
    finally:
        other.kill()
        other.wait()
