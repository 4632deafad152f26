# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Free space where a path will live, whether or not the path exists yet."""
from __future__ import annotations

import os
import posixpath
from collections.abc import Callable
from typing import Any

GIB = 1024.0 ** 3


def _walk_up(path, found):
    """The path itself if found(path), else its closest ancestor for which found() is true; at worst the top: "/"
    for an absolute path, "." for a relative one (dirname("opt") is "", whose dirname is "" again: the walk
    ends where a step no longer moves)."""
    current = posixpath.normpath(path or ".")
    while not found(current):
        parent = posixpath.dirname(current) or "."
        if parent == current:
            break
        current = parent
    return current


def nearest_existing(path: str, exists: Callable[[str], bool] = os.path.exists) -> str:
    """The path itself if it exists, else its closest existing ancestor ("/" at worst; "." for a relative path)."""
    return _walk_up(path, exists)


def mount_point(path: str, ismount: Callable[[str], bool] = os.path.ismount) -> str:
    """The mount point holding an existing path ("/" at worst; "." for a relative path)."""
    return _walk_up(path, ismount)


def free_of(stats: os.statvfs_result) -> int:
    """Bytes free for unprivileged users in a statvfs result (f_bavail: root's reserve not counted)."""
    return stats.f_bavail * stats.f_frsize


def free_bytes(path: str, statvfs: Callable[[str], os.statvfs_result] = os.statvfs,
               exists: Callable[[str], bool] = os.path.exists) -> tuple[int, str]:
    """(bytes free, where it was measured) on the filesystem that holds, or will hold, `path`."""
    existing = nearest_existing(path, exists)
    return free_of(statvfs(existing)), existing


def space_report(path: str, min_free_gib: float, statvfs: Callable[[str], os.statvfs_result] = os.statvfs,
                 exists: Callable[[str], bool] = os.path.exists,
                 ismount: Callable[[str], bool] = os.path.ismount) -> dict[str, Any]:
    """{path, measured_at, mount, free_gib, total_gib, min_free_gib, ok} for one path."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError("path must be absolute, got %r" % (path,))
    if min_free_gib is None or float(min_free_gib) < 0:
        raise ValueError("min_free_gib must be >= 0 for %s" % path)
    existing = nearest_existing(path, exists)
    stats = statvfs(existing)
    free = round(free_of(stats) / GIB, 1)
    return {
        "path": path,
        "measured_at": existing,
        "mount": mount_point(existing, ismount),
        "free_gib": free,
        "total_gib": round(stats.f_blocks * stats.f_frsize / GIB, 1),
        "min_free_gib": float(min_free_gib),
        "ok": free >= float(min_free_gib),
    }
