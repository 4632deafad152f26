# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The life of the stacks under a root: venvs/<stack>, and the links `current` and `previous`.

    <root>/venvs/torch-2.9.1-cu128/   a stack (a venv, or a link to an adopted environment)
    <root>/current -> venvs/<stack>   what login shells activate
    <root>/previous -> venvs/<stack>  what a rollback returns to
    <root>/venvs/<stack>/.blackwell-stack.json   the stack's marker (marker_text())

Every link moves through a new link renamed over the old one: rename is atomic, so a shell
that activates `current` sees the old stack or the new one, never none. The functions take
the root and touch nothing else; the pytorch_stack module calls them. No Ansible import.
"""
from __future__ import annotations

import json
import os
import re
import shutil

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import parse_version
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import stack_name
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stacks import parse_stack, stacks_to_prune

VENVS = "venvs"
MARKER = ".blackwell-stack.json"
LINKS = ("current", "previous")


def marker_text(record):
    """The content of a stack's marker file (MARKER) for a record: indented JSON, sorted keys, newline-terminated.
    pytorch_stack writes it; the converged check compares the file with it."""
    return json.dumps(record, indent=4, sort_keys=True) + "\n"


def read_links(root):
    """{"current": target or None, "previous": target or None}: the links' text, not followed."""
    links = {}
    for name in LINKS:
        path = os.path.join(root, name)
        links[name] = os.readlink(path) if os.path.islink(path) else None
    return links


def stack_target(stack):
    """The link text `current` holds for a stack: relative, so the root can move."""
    return "%s/%s" % (VENVS, stack)


def switch_plan(links, target):
    """What switching `current` to target changes: {"current": target, "previous": ...}; {} when
    current already points there. The old current becomes previous (unless it is the target)."""
    old = links.get("current")
    if old == target:
        return {}
    plan = {"current": target}
    if old:
        plan["previous"] = old
    return plan


def _swap(root, name, dest):
    tmp = os.path.join(root, ".%s.new" % name)
    if os.path.lexists(tmp):
        os.unlink(tmp)
    os.symlink(dest, tmp)
    os.replace(tmp, os.path.join(root, name))


def apply_switch(root, plan):
    """Carry out switch_plan(): previous first, then current (each a new link renamed over)."""
    for name in ("previous", "current"):
        if name in plan:
            _swap(root, name, plan[name])


def rollback_plan(root, links):
    """(plan, error): current -> previous and previous -> current, when previous is a stack with
    an interpreter; else an error that says what is missing."""
    previous, current = links.get("previous"), links.get("current")
    if not previous:
        return None, "nothing to roll back to: %s does not exist (current: %s)." % (
            os.path.join(root, "previous"), current or "none")
    if not os.path.exists(os.path.join(root, previous, "bin", "python3")):
        return None, "nothing to roll back to: %s points to %s, which has no bin/python3 (current: %s)." % (
            os.path.join(root, "previous"), previous, current or "none")
    return switch_plan(links, previous), None


def stack_python(root, target):
    """The interpreter of the stack a link text names."""
    return os.path.join(root, target, "bin", "python3")


def list_stacks(root):
    """[{"name", "mtime"}] of the entries of venvs/ named like stacks (links not followed)."""
    venvs = os.path.join(root, VENVS)
    if not os.path.isdir(venvs):
        return []
    found = []
    for name in sorted(os.listdir(venvs)):
        if parse_stack(name):
            found.append({"name": name, "mtime": os.lstat(os.path.join(venvs, name)).st_mtime})
    return found


def prune_plan(root, keep):
    """Names of the stacks to delete so that `keep` remain (planning.stacks.stacks_to_prune)."""
    links = read_links(root)
    return stacks_to_prune(list_stacks(root), keep, links["current"], links["previous"])


def remove_stack(root, name):
    """Delete venvs/<name>: an adopted stack is a link, and only the link goes."""
    path = os.path.join(root, VENVS, name)
    if os.path.islink(path):
        os.unlink(path)
    else:
        shutil.rmtree(path)


def adopt_name(version):
    """The stack name of an adopted environment from its torch.__version__:
    "2.11.0+cu130" -> torch-2.11.0-cu130, "2.13.0" -> torch-2.13.0-pypi."""
    version = str(version or "").strip()
    if not parse_version(version):
        raise ValueError("not a torch version: %r" % version)
    return stack_name(version, version.partition("+")[2] or "pypi")


def verify_problems(found, wrong):
    """The problems of a stack after the pip call, as text: pip check, imports, versions.

    found: the stack probe's result ({"pip_check", "errors": {name: text}}); wrong: the
    mismatches of the versions the imports reported against the plan."""
    problems = []
    if found.get("pip_check"):
        problems.append("pip check: %s" % found["pip_check"])
    for name, text in sorted((found.get("errors") or {}).items()):
        problems.append("import %s: %s" % (name, text))
    if wrong:
        problems.append("versions: %s" % ", ".join(wrong))
    return problems


_SIZE = re.compile(r"\(([0-9.]+) ?(kB|MB|GB|B|KiB|MiB|GiB)\)")
_SCALE = {"kB": 1.0 / 1024, "MB": 1.0, "GB": 1024.0, "B": 1.0 / (1 << 20), "KiB": 1.0 / 1024, "MiB": 1.0,
          "GiB": 1024.0}
# The lines that say what the installer does now: pip's, then uv's (uv writes these when its output is a
# file: "Resolved 5 packages in 370ms", "Downloading torch (858.1MiB)", " Downloaded torch", "Prepared 5
# packages in 505ms", "Installed 5 packages in 42ms", "error: ...").
_STEPS = ("Collecting ", "Downloading ", "Installing collected", "Successfully installed",
          "Requirement already satisfied", "Processing ", "ERROR:",
          "Resolved ", "Downloaded ", "Prepared ", "Installed ", "Uninstalled ", "Audited ", "Checked ", "error:")


def pip_progress(log_text):
    """One line on what the installer (pip or uv) is doing, from its log: packages and MB downloaded (the files
    uv reports downloading: it names only the large ones), the last step."""
    downloaded, mb, last = 0, 0.0, ""
    for line in (log_text or "").splitlines():
        line = line.strip()
        if line.startswith("Downloading "):
            downloaded += 1
            size = _SIZE.search(line)
            if size:
                mb += float(size.group(1)) * _SCALE[size.group(2)]
        if line.startswith(_STEPS):
            last = line
    return "%d downloads, %.1f MB; %s" % (downloaded, mb, last[:200] or "starting")
