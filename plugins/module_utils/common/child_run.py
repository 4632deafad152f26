# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run Python code in a child process of a chosen interpreter, with a timeout.

GPU work (torch, CUDA, NVRTC) never runs inside the module's own process: a hang, a
segfault or a CUDA error that poisons the context is reported as a result of the child,
never inherited. The child prints one line `RESULT_MARKER <json>`; everything else it
prints is kept as a tail for error messages.

No Ansible import: the module shells call run_child(); unit tests call the pure
parse_child_output() and run_child() with the test's own interpreter.

Every child carries CHILD_MARKER in its environment (its own children and forks inherit it): a process
on a GPU whose environment holds it is the collection's own work, not another user's
(hardware/gpu_processes.py reads it from /proc/<pid>/environ).
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from typing import Any

RESULT_MARKER = "@@BLACKWELL_RESULT@@"
# In the environment of every child run_child() starts; the value is the starting process's pid.
CHILD_MARKER = "BLACKWELL_PYTORCH_CHILD"
_TAIL = 2000


def tail(text: bytes | str, limit: int = _TAIL) -> str:
    """The last `limit` characters of text (str or bytes), stripped."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    text = (text or "").strip()
    return text[-limit:]


def parse_child_output(stdout: bytes | str, stderr: bytes | str, returncode: int | None, timed_out: bool,
                       seconds: float, timeout: float | None = None) -> dict[str, Any]:
    """Turn what a child did into a result dict.

    status: ok (exit 0 and a result line), failed (exit != 0 or no result line),
    timeout (killed after `timeout` s), crashed (killed by a signal: segfault, abort).
    """
    if isinstance(stdout, bytes):
        stdout = stdout.decode("utf-8", "replace")
    payload, other = None, []
    for line in (stdout or "").splitlines():
        if line.startswith(RESULT_MARKER):
            try:
                payload = json.loads(line[len(RESULT_MARKER):])
            except ValueError as err:
                other.append("unparsable result line: %s" % err)
        else:
            other.append(line)
    result = {
        "status": "ok", "returncode": returncode, "seconds": round(seconds, 3), "result": payload,
        "stdout_tail": tail("\n".join(other)), "stderr_tail": tail(stderr), "error": None,
    }
    if timed_out:
        result["status"] = "timeout"
        result["error"] = "timed out after %s s" % timeout
    elif returncode is not None and returncode < 0:
        result["status"] = "crashed"
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = "signal %d" % -returncode
        result["error"] = "killed by %s" % name
    elif returncode != 0:
        result["status"] = "failed"
        result["error"] = last_error_line(result["stderr_tail"]) or "exit status %s" % returncode
    elif payload is None:
        result["status"] = "failed"
        result["error"] = "the child printed no result line"
    return result


def last_error_line(text: str) -> str | None:
    """The most telling line of a traceback: its last non-empty line."""
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else None


def run_child(python: str, source: str, args: Sequence[object] = (), env: Mapping[str, str | None] | None = None,
              timeout: float = 60.0, cwd: str | None = None) -> dict[str, Any]:
    """Run `source` with interpreter `python` (argv[1:] = args) and return parse_child_output().

    `env` entries are added to (None values removed from) the current environment, and
    CHILD_MARKER is set whatever `env` says (environment()). The child runs in its own process
    group so a timeout kills anything it started. (A child that must start before its input is
    known is a common.staged_child.StagedChild.)
    """
    start = time.monotonic()
    proc = start_child(python, source, args, env, cwd=cwd)
    timed_out = False
    try:
        stdout, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        stdout, stderr = proc.communicate()
    return parse_child_output(stdout, stderr, proc.returncode, timed_out,
                              time.monotonic() - start, timeout)


def start_child(python: str, source: str, args: Sequence[object] = (), env: Mapping[str, object] | None = None,
                cwd: str | None = None, stdin: bool = False) -> subprocess.Popen:
    """`python -c source args...` started in a session of its own (so kill_group() reaches what it starts), its
    stdout and stderr piped, its stdin piped when `stdin` is true, with environment()'s environment."""
    return subprocess.Popen(
        [python, "-c", source] + [str(arg) for arg in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        stdin=subprocess.PIPE if stdin else None, env=environment(os.environ, env, os.getpid()), cwd=cwd,
        start_new_session=True)


def environment(base: Mapping[str, str], env: Mapping[str, object] | None, parent_pid: int) -> dict[str, str]:
    """The child's environment: `base` with `env`'s entries added (None values removed), and CHILD_MARKER set
    to `parent_pid`, which marks the child (and every process it starts) as the collection's own."""
    child_env = dict(base)
    for key, value in (env or {}).items():
        if value is None:
            child_env.pop(key, None)
        else:
            child_env[key] = str(value)
    child_env[CHILD_MARKER] = str(parent_pid)
    return child_env


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process group of `proc` (a child started in a session of its own), if it is still there."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        pass


def emit_result_source() -> str:
    """Python source for the child side: defines emit(obj), which prints the result line."""
    return (
        "import json as _json, sys as _sys\n"
        "def emit(obj):\n"
        "    _sys.stdout.write(%r + _json.dumps(obj, default=str) + '\\n')\n"
        "    _sys.stdout.flush()\n" % RESULT_MARKER
    )


def check_interpreter(python: str) -> str | None:
    """Return None when `python` is an executable file, else an error message."""
    if not python:
        return "no Python interpreter given"
    if not os.path.exists(python):
        return "Python interpreter %s does not exist" % python
    if not os.path.isfile(python) or not os.access(python, os.X_OK):
        return "Python interpreter %s is not an executable file" % python
    return None
