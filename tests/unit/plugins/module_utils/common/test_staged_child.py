"""common.staged_child with real child processes of this interpreter: a first result while the child waits, then
its next input and its final result; a child that dies, hangs or floods stderr in either stage is reported as
run_child reports it, and a cancelled or timed-out child's process group is gone."""
from __future__ import annotations

import os
import sys
import time

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import CHILD_MARKER, emit_result_source
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.staged_child import StagedChild

# The child: emits {"stage": 1, ...} (after `before`), reads stdin, runs the code it got, emits {"stage": 2, ...}.
TWO_STAGES = emit_result_source() + (
    "import os, sys, time\n"
    "exec(sys.argv[1])\n"
    "emit({'stage': 1, 'marker': os.environ.get(%r), 'pid': os.getpid()})\n"
    "text = sys.stdin.read()\n"
    "exec(text)\n"
    "emit({'stage': 2, 'input': text})\n" % CHILD_MARKER)


def _gone(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return True
    return False


def test_the_first_result_comes_while_the_child_waits_then_the_final_one():
    child = StagedChild(sys.executable, TWO_STAGES, ["print('warming up')"])
    first = child.first(30)
    assert (first["status"], first["result"]["stage"], first["stdout_tail"]) == ("ok", 1, "warming up")
    assert first["result"]["marker"] == str(os.getpid())  # the collection's own child, as run_child marks it
    assert not _gone(first["result"]["pid"])  # still there, waiting for its input
    final = child.finish("print('measuring')", 30)
    assert (final["status"], final["returncode"], final["result"]) == ("ok", 0, {"stage": 2, "input": "print('measuring')"})
    assert final["stdout_tail"] == "measuring"  # the second stage's output alone


def test_a_child_that_dies_before_its_first_result_is_failed_with_its_last_error_line():
    child = StagedChild(sys.executable, TWO_STAGES, ["raise ImportError('No module named torch')"])
    first = child.first(30)
    assert (first["status"], first["returncode"], first["error"]) == ("failed", 1, "ImportError: No module named torch")
    child.cancel()  # harmless on a child that is over


def test_a_first_stage_that_takes_too_long_is_killed_at_its_timeout():
    child = StagedChild(sys.executable, TWO_STAGES, ["import time; time.sleep(60)"])
    start = time.monotonic()
    first = child.first(0.5)
    assert (first["status"], first["error"]) == ("timeout", "timed out after 0.5 s")
    assert time.monotonic() - start < 10


def test_a_second_stage_that_hangs_is_killed_at_its_timeout_with_its_children():
    child = StagedChild(sys.executable, TWO_STAGES, ["pass"])
    assert child.first(30)["status"] == "ok"
    final = child.finish("import subprocess, sys\n"
                         "grandchild = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
                         "print(grandchild.pid, flush=True)\nimport time; time.sleep(60)\n", 1)
    assert (final["status"], final["error"]) == ("timeout", "timed out after 1 s")
    grandchild = int(final["stdout_tail"])
    deadline = time.monotonic() + 10
    while not _gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _gone(grandchild)  # the whole process group went


def test_a_crash_in_the_second_stage_is_reported_with_its_signal():
    child = StagedChild(sys.executable, TWO_STAGES, ["pass"])
    child.first(30)
    final = child.finish("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", 30)
    assert (final["status"], final["error"]) == ("crashed", "killed by SIGSEGV")


def test_cancel_kills_the_waiting_child():
    child = StagedChild(sys.executable, TWO_STAGES, ["pass"])
    pid = child.first(30)["result"]["pid"]
    child.cancel()
    assert _gone(pid)


def test_a_flood_on_stderr_before_the_first_result_does_not_block_either_side():
    child = StagedChild(sys.executable, TWO_STAGES, ["sys.stderr.write('x' * 4000000); sys.stderr.flush()"])
    assert child.first(30)["status"] == "ok"
    final = child.finish("sys.stderr.write('warning: slow\\n')", 30)
    assert final["status"] == "ok" and final["stderr_tail"].endswith("warning: slow")


def test_env_entries_are_added_and_removed_as_run_child_does():
    os.environ["BLACKWELL_TEST_STAGED"] = "1"
    try:
        source = emit_result_source() + ("import os, sys\nemit([os.environ.get('BLACKWELL_TEST_STAGED'), "
                                         "os.environ.get('X')])\nsys.stdin.read()\nemit('done')\n")
        child = StagedChild(sys.executable, source, env={"BLACKWELL_TEST_STAGED": None, "X": 2})
        assert child.first(30)["result"] == [None, "2"]
        assert child.finish("", 30)["result"] == "done"
    finally:
        del os.environ["BLACKWELL_TEST_STAGED"]
