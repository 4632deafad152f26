"""tests/unit/proc_watch.py, the /proc watch of the tests that look for secrets on command lines: it sees a
process that runs while it watches, and stops when its block ends."""
from __future__ import annotations

import subprocess
import sys

from proc_watch import ProcWatch, command_lines


def test_the_watch_sees_a_process_that_runs_while_it_watches():
    marker = "blackwell-proc-watch-%d" % id(object())
    seen = {}
    with ProcWatch(lambda pid, line: seen.setdefault(line, pid) if marker in line else None) as watch:
        subprocess.run([sys.executable, "-c", "import time; time.sleep(0.5)", marker], check=True)
    assert watch.rounds > 0 and not watch.is_alive()
    assert [line for line in seen if line.endswith(marker + " ")], seen
    assert marker not in " ".join(command_lines().values())  # the process ended with the block
