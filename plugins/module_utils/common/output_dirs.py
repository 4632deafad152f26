# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Can results be written into these directories? Asked before any work, so that a bad output
path fails in milliseconds instead of after the check and the benchmark ran.

A directory is fine when it exists and the current user may create files in it, or when it does
not exist and its nearest existing ancestor is a directory the user may create entries in (every
level up to it will be created). Everything else is refused with the variable's name, the path
and what is wrong. Reads only (stat, access). Pure over the file system, no Ansible import.
"""
from __future__ import annotations

import os
import stat

try:
    import pwd
except ImportError:  # not on Linux: the uid alone names the user
    pwd = None


def _user():
    uid = os.geteuid()
    try:
        return "uid %d (%s)" % (uid, pwd.getpwuid(uid).pw_name) if pwd else "uid %d" % uid
    except KeyError:
        return "uid %d" % uid


def _kind(mode):
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISLNK(mode):
        return "a dangling symbolic link"
    return "not a directory"


def _writable(path):
    return os.access(path, os.W_OK | os.X_OK)


def problem(name, path):
    """What prevents writing results into directory `path` (variable `name`), or None."""
    if not isinstance(path, str) or not path.startswith("/"):
        return "%s: %r is not an absolute path" % (name, path)
    path = os.path.normpath(path)
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        mode = None
    except OSError as err:
        return "%s: %s cannot be read (%s)" % (name, path, err.strerror)
    if mode is not None:
        if not stat.S_ISDIR(mode):
            return "%s: %s is %s, not a directory" % (name, path, _kind(mode))
        if not _writable(path):
            return "%s: %s is not writable by %s" % (name, path, _user())
        return None
    parent = os.path.dirname(path)
    while True:
        try:
            parent_mode = os.stat(parent).st_mode
            break
        except OSError:
            if os.path.lexists(parent):
                parent_mode = os.lstat(parent).st_mode
                break
            parent = os.path.dirname(parent)
    if not stat.S_ISDIR(parent_mode):
        return "%s: %s cannot be created: %s is %s, not a directory" % (name, path, parent, _kind(parent_mode))
    if not _writable(parent):
        return "%s: %s cannot be created: %s is not writable by %s" % (name, path, parent, _user())
    return None


def problems(dirs):
    """One message per directory of {variable name: path} that cannot take results, in name order;
    an empty path means the output is off and is not checked."""
    found = []
    for name, path in sorted((dirs or {}).items()):
        if path in (None, ""):
            continue
        message = problem(name, path)
        if message:
            found.append(message)
    return found
