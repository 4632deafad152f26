# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Disk space for a stack: the check before its venv is made, and what a full disk during pip means.

Free space is what statvfs gives unprivileged users (f_bavail) on the filesystem that will hold
venvs/<stack> (its closest existing ancestor is measured: common.disk_space.free_bytes). No Ansible import.
"""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.disk_space import GIB, free_bytes

DISK_FULL = ("No space left on device", "Errno 28", "ENOSPC", "Disk quota exceeded")
WHAT_TO_DO = "free space there, or set pytorch_root to a directory on a filesystem with room, and run the play again"


def size_text(size):
    """Bytes as "8.0 MiB" below 1 GiB, else "12.3 GiB"."""
    if size < GIB:
        return "%.1f MiB" % (size / 1024.0 ** 2)
    return "%.1f GiB" % (size / GIB)


def space_refusal(directory, stack, min_free_gib, statvfs=os.statvfs, exists=os.path.exists):
    """None when the filesystem that will hold `directory` has min_free_gib free; else why not, as text."""
    free, measured = free_bytes(directory, statvfs, exists)
    if free >= float(min_free_gib) * GIB:
        return None
    return ("not enough disk for the stack %s: %s has %s free (measured at %s), the install needs %s "
            "(pytorch_stack option min_free_gib): %s. Nothing was created."
            % (stack, directory, size_text(free), measured, size_text(float(min_free_gib) * GIB), WHAT_TO_DO))


def disk_full(text):
    """Whether a failed step's output says the disk (or the quota) ran out."""
    return any(word in (text or "") for word in DISK_FULL)


def disk_full_message(stack, directory, failure, statvfs=os.statvfs, exists=os.path.exists):
    """The message of a step that ran out of disk: the path, what is free now, what to do, then the failure."""
    free, _measured = free_bytes(directory, statvfs, exists)
    return ("%s: the disk is full: no space left on the filesystem that holds %s (%s free now, after the cleanup): "
            "%s. %s" % (stack, directory, size_text(free), WHAT_TO_DO, failure))
