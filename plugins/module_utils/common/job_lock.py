# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The lock of a background job: a second run's job never works beside the first one's.

The install of a stack, a source build and the benchmark run on the host in the background (job_follow,
`async`): Ctrl-C stops the play, not the job. A run started again meets that job still working (in the same
venv, the same build tree, on the same GPUs); without a lock the two shared the venv and the first removed it
when it failed. Each job takes an exclusive POSIX record lock (fcntl, as dpkg does) on a file of what it
works on for as long as it runs; the kernel releases it when the process ends, however it ends. The next
job waits for it a bounded time, then stops naming the process that holds it (read from /proc/locks, as
common/dpkg_lock does) and what to do. The file is opened with O_NOFOLLOW (a link planted there is refused)
and holds the holder's pid and what it does, for a person who looks. Python 3.9, no Ansible import.
"""
from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import dpkg_lock

DEFAULT_WAIT_S = 600
POLL_S = 0.5


class JobBusy(Exception):
    """Another job held the lock for longer than the wait; the message names it and what to do."""


def busy_message(what: str, path: str, holders: Sequence[Mapping[str, Any]], waited: float, variable: str) -> str:
    """Why this job did not start: the job that holds the lock (pid, command), the wait, what to do."""
    named = "; ".join("process %d (%s)" % (item["pid"], item["command"]) for item in holders) or "another process"
    pids = " ".join(str(item["pid"]) for item in holders) or "<pid>"
    return ("another %s is running on this host: %s holds %s, most likely the background job of an earlier run "
            "that was interrupted (Ctrl-C stops the play, not its job). Waited %d s (%s): let it finish, or stop it "
            "(kill %s), then run the play again. Nothing was changed." % (what, named, path, waited, variable, pids))


@contextlib.contextmanager
def held(path: str, what: str, max_wait: float = DEFAULT_WAIT_S, variable: str = "",
         on_wait: Callable[[list[dict[str, Any]]], object] | None = None, clock: Callable[[], float] = time.monotonic,
         sleep: Callable[[float], None] = time.sleep,
         read_holders: Callable[[list[str]], list[dict[str, Any]]] = dpkg_lock.read_holders) -> Iterator[dict[str, Any]]:
    """Hold the job lock `path` for the body; wait at most max_wait seconds for another holder, calling
    on_wait(holders) once when the wait begins; raise JobBusy after that. Yields {"path", "waited_s",
    "waited_for": the holders met (empty when the lock was free)}."""
    import fcntl

    descriptor = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    start, waited_for = clock(), []
    try:
        while True:
            try:
                fcntl.lockf(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError:
                if not waited_for:
                    waited_for = read_holders([path]) or [{"path": path, "pid": 0, "command": "?"}]
                    if on_wait:
                        on_wait(waited_for)
                if clock() - start >= max_wait:
                    holders = read_holders([path]) or [item for item in waited_for if item["pid"]]
                    raise JobBusy(busy_message(what, path, holders, max_wait, variable))
                sleep(POLL_S)
        os.ftruncate(descriptor, 0)
        os.write(descriptor, ("%d %s\n" % (os.getpid(), what)).encode("utf-8"))
        yield {"path": path, "waited_s": round(clock() - start, 1), "waited_for": waited_for}
    finally:
        os.close(descriptor)  # releases the lock (this process holds no other descriptor of the file)
