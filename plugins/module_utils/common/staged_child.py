# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A child in two stages: it answers a first question (its first result line), then waits for its next input on
stdin, works on it and prints its final result line - one process, one import of what both stages need.

The benchmark asks its first device child for the probe this way: before, a probe child and a device child each
imported torch (about 2.5 s of CPU each on the test machine, more on a cold disk, where two imports of the same
files compete), and the device child could only start measuring after both. The results have the shape of
common.child_run.run_child's (parse_child_output). No Ansible import.
"""
from __future__ import annotations

import subprocess
import threading
import time
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import (
    RESULT_MARKER, kill_group, parse_child_output, start_child)


class StagedChild(object):
    """`python -c source args...` started at once (in its own process group, CHILD_MARKER set, `env` added as
    run_child adds it). first(timeout) waits for the first result line; finish(text, timeout) gives the next input
    and waits for the end; cancel() kills the child unheard. Each returns a run_child-shaped result."""

    def __init__(self, python, source, args=(), env=None):
        self._start = time.monotonic()
        self._proc = start_child(python, source, args, env, stdin=True)
        self._lines, self._stderr = [], []
        self._first = threading.Event()  # the first result line came, or stdout ended
        self._readers = [threading.Thread(target=self._read_stdout), threading.Thread(target=self._read_stderr)]
        for reader in self._readers:
            reader.daemon = True
            reader.start()
        self._split = None  # how many stdout lines the first stage had

    def _read_stdout(self):
        for raw in iter(self._proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            self._lines.append(line)
            if line.startswith(RESULT_MARKER):
                self._first.set()
        self._first.set()

    def _read_stderr(self):
        for raw in iter(self._proc.stderr.readline, b""):
            self._stderr.append(raw.decode("utf-8", "replace"))

    def _end(self, timeout):
        """Wait for the process and its pipes; True when it had to be killed at `timeout`."""
        timed_out = False
        try:
            self._proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(self._proc)
            self._proc.wait()
        for reader in self._readers:
            reader.join()
        for pipe in (self._proc.stdin, self._proc.stdout, self._proc.stderr):
            pipe.close()
        return timed_out

    def first(self, timeout: float) -> dict[str, Any]:
        """The first stage's result: ok with its result line while the child waits for its next input; a child
        that ended without one, crashed or took longer than `timeout` is reported as run_child reports it, and is
        over."""
        came = self._first.wait(timeout)
        self._split = len(self._lines)
        text = "".join(self._lines)
        if came and self._proc.poll() is None and RESULT_MARKER in text:
            return parse_child_output(text, "".join(self._stderr), 0, False, time.monotonic() - self._start)
        timed_out = self._end(0 if not came else 5)
        return parse_child_output("".join(self._lines), "".join(self._stderr), self._proc.returncode,
                                  timed_out or not came, time.monotonic() - self._start, timeout)

    def finish(self, text: str, timeout: float) -> dict[str, Any]:
        """Give the next input (text) and wait at most `timeout` s for the child to end: its final result (the
        last result line after the first stage's)."""
        start = time.monotonic()
        try:
            self._proc.stdin.write(text.encode("utf-8"))
            self._proc.stdin.close()
        except (BrokenPipeError, ValueError, OSError):
            pass  # the child is gone already: its exit status says how
        timed_out = self._end(timeout)
        return parse_child_output("".join(self._lines[self._split or 0:]), "".join(self._stderr),
                                  self._proc.returncode, timed_out, time.monotonic() - start, timeout)

    def cancel(self) -> dict[str, Any]:
        """Kill the child unheard (its next input is not needed)."""
        kill_group(self._proc)
        self._end(None)
        return parse_child_output("", "", self._proc.returncode, False, time.monotonic() - self._start)
