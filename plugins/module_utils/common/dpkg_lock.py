# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Who holds dpkg's locks, and a bounded wait until nobody does.

dpkg and apt lock /var/lib/dpkg/lock-frontend (and lock) with POSIX record locks (fcntl). The
kernel lists every such lock in /proc/locks as `N: POSIX ADVISORY WRITE PID MAJ:MIN:INODE ...`;
a line with `->` is a process waiting for a lock, not holding one. The holders are found there by
the lock file's device and inode, without taking the lock (a momentary lock of ours could make
another apt run fail). No Ansible import.
"""
from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

PROC_LOCKS = "/proc/locks"


def file_id(path: str) -> str:
    """"MAJ:MIN:INODE" as /proc/locks writes it (hex device numbers), or None when there is no file."""
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return "%02x:%02x:%d" % (os.major(stat.st_dev), os.minor(stat.st_dev), stat.st_ino)


def holders_of(locks_text: str, ident: str) -> list[int]:
    """The pids holding a lock on the file `ident` ("MAJ:MIN:INODE"), from /proc/locks' text."""
    pids = []
    for line in (locks_text or "").splitlines():
        fields = line.split()
        if len(fields) < 6 or "->" in fields[:2]:
            continue
        pid, where = fields[4], fields[5]
        if where.lower() == ident and pid.isdigit() and int(pid) not in pids:
            pids.append(int(pid))
    return pids


def command_of(pid: int, proc: str = "/proc") -> str:
    """The command line of a process (arguments and white space joined by single spaces, 200 characters at
    most), or its name."""
    for name in ("cmdline", "comm"):
        try:
            with open(os.path.join(proc, str(pid), name), "rb") as handle:
                text = " ".join(handle.read().replace(b"\0", b" ").decode("utf-8", "replace").split())
        except OSError:
            continue
        if text:
            return text[:200]
    return "?"


def read_holders(paths: Sequence[str], locks_path: str = PROC_LOCKS, proc: str = "/proc") -> list[dict[str, Any]]:
    """[{"path", "pid", "command"}] of every lock held on `paths` now."""
    idents = [(path, file_id(path)) for path in paths]
    if not any(ident for _path, ident in idents):
        return []
    with open(locks_path) as handle:
        text = handle.read()
    return [{"path": path, "pid": pid, "command": command_of(pid, proc)}
            for path, ident in idents if ident for pid in holders_of(text, ident)]


def wait_free(paths: Sequence[str], timeout: float, interval: float = 1.0,
              read: Callable[[Sequence[str]], list[dict[str, Any]]] = read_holders,
              clock: Callable[[], float] = time.monotonic,
              sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Wait until no process holds a lock on `paths`, at most `timeout` seconds.

    Returns {"free": bool, "waited": seconds (one decimal), "holders": what held the locks when the
    wait began, or at its end when they were never released}.
    """
    start = clock()
    first = held = read(paths)
    while held and clock() - start < timeout:
        sleep(min(interval, max(timeout - (clock() - start), 0.01)))
        held = read(paths)
    return {"free": not held, "waited": round(clock() - start, 1), "holders": held or first}


def held_message(holders: Sequence[Mapping[str, Any]], timeout: float, variable: str = "") -> str:
    """Why the package install stops: the lock, its holders (pid and command), what to do."""
    named = "; ".join("%s is held by process %d (%s)" % (item["path"], item["pid"], item["command"])
                      for item in holders)
    raise_it = " or raise %s" % variable if variable else ""
    return ("dpkg's lock was not released within %d s: %s. Another package manager run (unattended-upgrades "
            "runs after boot, or an apt or dpkg started by hand) holds it: let it finish%s and run the play "
            "again. Do not remove the lock file." % (timeout, named, raise_it))
