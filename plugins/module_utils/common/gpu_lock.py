# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The host's GPU lock: measurements never share the GPUs with this collection's other GPU work.

A benchmark child takes the lock exclusively before its first measurement; torch_cuda_check's
GPU children take it shared before their first kernel. Imports and CUDA start-up (most of a
child's time) run side by side; GPU work takes turns. A child waits at most `max_wait` seconds
and then goes on without the lock, saying so (`held: false`), so a stuck holder can neither hang
a play nor push a child past its timeout. The lock is an flock(2) on an empty file, released when
the child exits. The file is opened with O_NOFOLLOW: a link planted in a shared directory is
refused, not followed. Child code: Python 3.9, standard library only, no Ansible import.
"""
from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Callable
from typing import Any

DEFAULT_MAX_WAIT_S = 120.0
POLL_S = 0.05
FILE_NAME = "blackwell-pytorch-gpu.lock"
_HELD = []  # open descriptors: the lock lasts as long as the process


def default_path(run_lock: str = "/run/lock") -> str:
    """/run/lock/<name> where /run/lock exists (world-writable, sticky, tmpfs), else the temp dir."""
    base = run_lock if os.path.isdir(run_lock) and os.access(run_lock, os.W_OK | os.X_OK) else tempfile.gettempdir()
    return os.path.join(base, FILE_NAME)


def acquire(path: str | None, shared: bool, max_wait: float = DEFAULT_MAX_WAIT_S,
            clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], None] = time.sleep) -> dict[str, Any]:
    """Take the lock for the rest of this process: {path, mode, held, waited_s, error}.

    No path: nothing to take (held False, no error). Errors (a link, no permission) are reported,
    never raised: the caller measures anyway and the result says the lock was not held.
    """
    import fcntl

    info = {"path": path or None, "mode": "shared" if shared else "exclusive", "held": False,
            "waited_s": 0.0, "error": None}
    if not path:
        return info
    start = clock()
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:
        info["error"] = "cannot open %s: %s" % (path, exc.strerror or exc)
        return info
    operation = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
    while True:
        try:
            fcntl.flock(descriptor, operation)
        except OSError:
            if clock() - start >= max_wait:
                os.close(descriptor)
                info["waited_s"] = round(clock() - start, 3)
                info["error"] = "another process held %s for %s s: went on without it" % (path, max_wait)
                return info
            sleep(POLL_S)
            continue
        _HELD.append(descriptor)
        info.update(held=True, waited_s=round(clock() - start, 3))
        return info


def release_all() -> None:
    """Drop every lock this process holds (children simply exit; tests call this)."""
    while _HELD:
        os.close(_HELD.pop())
