"""Watch every process's command line while a test runs something that must not show a secret there.

ProcWatch is a thread that reads /proc/<pid>/cmdline of every process, round after round, until stopped, and
hands each (pid, command line) to `seen`; the tests that use it keep what names their secret or their tool.
A process that ends while it is read is left out of that round.
"""
from __future__ import annotations

import os
import threading
import time


def command_lines(proc="/proc"):
    """{pid: command line, words joined by spaces} of every process now."""
    found = {}
    for pid in os.listdir(proc):
        if pid.isdigit():
            try:
                with open(os.path.join(proc, pid, "cmdline"), "rb") as handle:
                    found[pid] = handle.read().replace(b"\0", b" ").decode("utf-8", "replace")
            except OSError:
                continue
    return found


class ProcWatch(threading.Thread):
    """`with ProcWatch(seen) as watch:` calls seen(pid, line) for every process of every round until the block
    ends; watch.rounds counts the rounds read. `pause`: seconds between rounds (0: one round after the other)."""

    def __init__(self, seen, pause=0.0, proc="/proc"):
        super().__init__(daemon=True)
        self.seen, self.pause, self.proc = seen, pause, proc
        self.stop, self.rounds = threading.Event(), 0

    def run(self):
        while not self.stop.is_set():
            for pid, line in command_lines(self.proc).items():
                self.seen(pid, line)
            self.rounds += 1
            if self.pause:
                time.sleep(self.pause)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc_info):
        self.stop.set()
        self.join()
        return False
