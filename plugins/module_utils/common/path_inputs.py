# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The path options of the roles, checked before any change: absolute, and of the kind the role needs.

A relative path would resolve against whatever directory the module happens to run in (and walking up from it
never reaches "/"); a file where a directory is due, or a directory where a file is due, would fail half way
through the change. Each refusal names the variable, the value and what to set instead, in the command-line
form (-e pytorch_root=/opt/pytorch). An empty value is an option left off and is not checked; a path that is not
there yet is fine when the nearest part of it that exists is a directory (it can be created there).

One entry per option: (variable, value, kind, example[, what]), kind DIRECTORY, FILE or ABSOLUTE (only that), or
CONTROLLER (only absolute, a path of the controller's: ansible-playbook's working directory is no place to rely on,
and the target cannot look at it), example a value that would do (the role's default, as a rule), what the words
for what a FILE option wants. `stat` is os.stat (the tests pass it too, over real files). Python 3.9, no
Ansible import.
"""
from __future__ import annotations

import os
import posixpath
import stat as stat_module
from collections.abc import Callable, Iterable, Sequence

DIRECTORY = "directory"
FILE = "file"
ABSOLUTE = "absolute"  # only absolute: what is there is checked where the path is used
CONTROLLER = "controller"  # only absolute, on the controller (fetched files land there): nothing of it is read here
# where the path is, and what a relative one would be relative to
_WHERE = {"target": ("on the target", "the module runs in"),
          "controller": ("on the controller", "ansible-playbook is started from")}


def _mode(path, stat):
    """The path's mode (links followed), None when it is not there, False when it cannot be told (no access)."""
    try:
        return stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:
        return False


def _kind(mode):
    return "a directory" if stat_module.S_ISDIR(mode) else "a file" if stat_module.S_ISREG(mode) else "not a directory"


def relative_problem(name: str, value: str | None, example: str = "", where: str = "target") -> str | None:
    """The refusal of a relative path (None for an absolute or empty one); where: "target" or "controller"."""
    text = "" if value is None else str(value).strip()
    if not text or text.startswith("/"):
        return None
    return ("%s must be an absolute path %s, got %r (relative to what? it would depend on the directory %s): "
            "give the full path, e.g. -e %s=%s."
            % (name, _WHERE[where][0], value, _WHERE[where][1], name, example or posixpath.normpath("/" + text)))


def path_problem(name: str, value: str | None, kind: str, example: str = "",
                 stat: Callable[[str], os.stat_result] = os.stat, what: str = "") -> str | None:
    """Why option `name` cannot take `value` as a path of `kind` (DIRECTORY, FILE, ABSOLUTE or CONTROLLER), or None.
    `what`: what a FILE option wants, as the message says it ("the interpreter itself"; default "the file itself").

    Refused: a relative path; for DIRECTORY a file (or anything else but a directory); for FILE a directory;
    for either, a path that is not there and cannot be created because a part of it is a file."""
    problem = relative_problem(name, value, example, "controller" if kind == CONTROLLER else "target")
    if problem or kind in (ABSOLUTE, CONTROLLER) or value is None or not str(value).strip():
        return problem
    path = posixpath.normpath(str(value).strip())
    mode = _mode(path, stat)
    hint = ", e.g. -e %s=%s" % (name, example) if example else ""
    if mode is None:
        parent = posixpath.dirname(path)
        parent_mode = _mode(parent, stat)
        while parent_mode is None and parent != "/":
            parent = posixpath.dirname(parent)
            parent_mode = _mode(parent, stat)
        if parent_mode and not stat_module.S_ISDIR(parent_mode):
            return ("%s %s cannot be created: %s is %s, not a directory: give a path under a directory%s."
                    % (name, path, parent, _kind(parent_mode), hint))
        return None
    if mode is False:
        return None
    if kind == DIRECTORY and not stat_module.S_ISDIR(mode):
        return ("%s %s is %s, not a directory: give a directory (or a path that is not there yet)%s."
                % (name, path, _kind(mode), hint))
    if kind == FILE and stat_module.S_ISDIR(mode):
        return "%s %s is a directory, not a file: give %s%s." % (name, path, what or "the file itself", hint)
    return None


def path_problems(entries: Iterable[Sequence[str]], stat: Callable[[str], os.stat_result] = os.stat) -> list[str]:
    """One refusal per entry (variable, value, kind, example[, what]) whose value cannot be used, in the entries'
    order."""
    found = []
    for entry in entries:
        name, value, kind, example = entry[:4]
        problem = path_problem(name, value, kind, example, stat, entry[4] if len(entry) > 4 else "")
        if problem:
            found.append(problem)
    return found
