# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Can results be written into these directories? Asked before any work, so that a bad output
path fails in milliseconds instead of after the check and the benchmark ran.

A directory is fine when it exists and the current user may create files in it, or when it does
not exist and its nearest existing ancestor is a directory the user may create entries in (every
level up to it will be created); a relative path is refused with the absolute form to give (common/path_inputs.py:
on the controller for fleet_report_dir). Each result file the collection writes into a directory of a known
variable (RESULT_FILES: verify.json and cuda_check.json, the Prometheus textfiles) must not be a
directory there: a file is replaced by a rename, which a directory refuses ("Is a directory", after
the whole benchmark). Everything else is refused with the variable's name, the path and what is wrong.
Reads only (stat, access). Pure over the file system, no Ansible import.
"""
from __future__ import annotations

import os
import stat
from collections.abc import Mapping

try:
    import pwd
except ImportError:  # not on Linux: the uid alone names the user
    pwd = None


# The files written into the directory each variable names (module_utils/planning/cuda_check_fact.py names
# verify.json, hardware/gpu_health.py the health textfile; the verify and _common roles write them).
RESULT_FILES = {
    "verify_results_dir": ("verify.json", "cuda_check.json"),
    "verify_prometheus_textfile_dir": ("blackwell_pytorch_verify.prom", "blackwell_pytorch_health.prom"),
}


# The output directories of the controller's (fleet_report: the report is written there, not on a host), and an
# example of each variable for the refusal of a relative path.
CONTROLLER = ("fleet_report_dir",)
EXAMPLES = {"fleet_report_dir": "/srv/blackwell/reports", "verify_results_dir": "/var/lib/blackwell-pytorch",
            "verify_prometheus_textfile_dir": "/var/lib/prometheus/node-exporter"}


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


def problem(name: str, path: str | None) -> str | None:
    """What prevents writing results into directory `path` (variable `name`), or None."""
    if not isinstance(path, str) or not path.strip():
        return "%s: %r is not an absolute path" % (name, path)
    if not path.startswith("/"):  # named with the command-line form; imported here: the rest imports nothing
        # pylint: disable-next=import-outside-toplevel
        from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import relative_problem
        return relative_problem(name, path, EXAMPLES.get(name, ""), "controller" if name in CONTROLLER else "target")
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
        return file_problem(name, path)
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


def file_problem(name: str, path: str | None) -> str | None:
    """What prevents writing the result files of variable `name` (RESULT_FILES) into the existing directory `path`: one
    of them is a directory (a symbolic link to one included); None when none is."""
    for filename in RESULT_FILES.get(name, ()):
        target = os.path.join(path, filename)
        if os.path.isdir(target):
            return ("%s: %s is a directory, not a file: remove it (the results are written there), or set %s to "
                    "another directory" % (name, target, name))
    return None


def problems(dirs: Mapping[str, str | None]) -> list[str]:
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
