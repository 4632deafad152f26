# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which PyTorch stacks (venvs under <root>/venvs) to keep.

A stack is a directory (or, for an adopted environment, a link) named torch-<version>-<channel>.
`current` names the active one; it is never pruned, whatever its age. No Ansible import.
"""
from __future__ import annotations

import os
import re

_STACK = re.compile(r"^torch-(?P<version>[^-]+)-(?P<channel>[A-Za-z0-9_.]+)$")


def parse_stack(name):
    """"torch-2.9.1-cu128" -> {"version": "2.9.1", "channel": "cu128"}; None for other names."""
    match = _STACK.match(os.path.basename(str(name or "").rstrip("/")))
    return match.groupdict() if match else None


def stacks_to_prune(stacks, keep, current=None, previous=None):
    """Names of the stacks to delete so that `keep` remain: `current` always, then `previous` (what
    a rollback returns to), then the newest.

    stacks: [{"name" or "path", "mtime"}] (find's files; names that are not stacks are ignored).
    keep must be >= 1.
    """
    keep = int(keep)
    if keep < 1:
        raise ValueError("keep must be at least 1 (the current stack), not %d" % keep)
    current = os.path.basename(str(current or "").rstrip("/")) or None
    previous = os.path.basename(str(previous or "").rstrip("/")) or None
    named = [dict(stack, name=stack.get("name") or os.path.basename(str(stack.get("path", "")).rstrip("/")))
             for stack in stacks or ()]
    named = [stack for stack in named if parse_stack(stack["name"])]
    newest_first = sorted(named, key=lambda stack: (float(stack.get("mtime") or 0), stack["name"]), reverse=True)
    names = [stack["name"] for stack in newest_first]
    kept = [name for name in (current, previous) if name in names][:max(keep, 1 if current in names else 0)]
    for stack in newest_first:
        if len(kept) >= keep:
            break
        if stack["name"] not in kept:
            kept.append(stack["name"])
    return [stack["name"] for stack in newest_first if stack["name"] not in kept]
