from __future__ import annotations

import os
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import (
    RESULT_MARKER, check_interpreter, emit_result_source, parse_child_output, run_child)


def test_parse_ok():
    out = "noise\n%s {\"a\": 1}\n" % RESULT_MARKER
    res = parse_child_output(out, b"", 0, False, 1.23456)
    assert (res["status"], res["result"], res["seconds"], res["stdout_tail"]) == ("ok", {"a": 1}, 1.235, "noise")


def test_parse_failed_takes_the_last_traceback_line():
    err = ("Traceback (most recent call last):\n  File \"<string>\", line 1\n"
           "torch.AcceleratorError: CUDA error: no kernel image is available for execution on the device\n")
    res = parse_child_output("", err, 1, False, 0.5)
    assert res["status"] == "failed"
    assert res["error"].endswith("no kernel image is available for execution on the device")


def test_parse_no_result_line():
    res = parse_child_output("hello\n", "", 0, False, 0.1)
    assert (res["status"], res["error"]) == ("failed", "the child printed no result line")


def test_parse_crash_and_timeout():
    assert parse_child_output("", "", -11, False, 0.1)["error"] == "killed by SIGSEGV"
    res = parse_child_output("", "", -9, True, 5.0, timeout=5)
    assert (res["status"], res["error"]) == ("timeout", "timed out after 5 s")


def test_run_child_real_process():
    src = emit_result_source() + "import os, sys\nemit({'argv': sys.argv[1:], 'x': os.environ.get('X')})\n"
    res = run_child(sys.executable, src, args=["a", 2], env={"X": "y"}, timeout=30)
    assert res["status"] == "ok"
    assert res["result"] == {"argv": ["a", "2"], "x": "y"}


def test_run_child_timeout_kills_the_group():
    res = run_child(sys.executable, "import time; time.sleep(30)", timeout=0.5)
    assert res["status"] == "timeout" and res["seconds"] < 10


def test_run_child_crash():
    res = run_child(sys.executable, "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", timeout=30)
    assert (res["status"], res["error"]) == ("crashed", "killed by SIGSEGV")


def test_run_child_env_removal():
    os.environ["BLACKWELL_TEST_VAR"] = "1"
    try:
        src = emit_result_source() + "import os\nemit(os.environ.get('BLACKWELL_TEST_VAR'))\n"
        assert run_child(sys.executable, src, env={"BLACKWELL_TEST_VAR": None})["result"] is None
    finally:
        del os.environ["BLACKWELL_TEST_VAR"]


def test_check_interpreter(tmp_path):
    assert check_interpreter(sys.executable) is None
    assert check_interpreter(str(tmp_path / "nope")) == "Python interpreter %s does not exist" % (tmp_path / "nope")
    plain = tmp_path / "plain"
    plain.write_text("")
    assert "not an executable file" in check_interpreter(str(plain))
    assert check_interpreter("") == "no Python interpreter given"
