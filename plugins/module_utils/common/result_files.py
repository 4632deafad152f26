# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Several result files into one directory in one module call (the result_files module).

The verify role writes cuda_check.json, verify.json and the Prometheus textfile; the fleet report
writes fleet.json, fleet.md and fleet.html. Written with ansible.builtin.copy, each file costs two
module calls (stat, then file for the attributes) even when nothing changes; here the whole set is
one call. plan_files() is pure: it checks the entries and says which files differ from what is
there. Python 3.9, standard library only, no Ansible import.
"""
from __future__ import annotations

import os
import re

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MODE = re.compile(r"^0?[0-7]{3}$")


def entry_errors(files):
    """Problems of the `files` option: each entry needs a plain file name (no directory part, no
    hidden name), text content and an octal mode; a name may appear once."""
    errors, seen = [], set()
    for index, entry in enumerate(files):
        name = entry.get("name") or ""
        if not NAME.match(name):
            errors.append("files[%d].name %r must be a plain file name (letters, digits, '.', '_', '-'; "
                          "no directory part)" % (index, name))
        elif name in seen:
            errors.append("files[%d].name %s appears twice" % (index, name))
        seen.add(name)
        if not isinstance(entry.get("content"), str):
            errors.append("files[%d].content must be text" % index)
        if not MODE.match(str(entry.get("mode") or "")):
            errors.append("files[%d].mode %r must be an octal mode such as 0644" % (index, entry.get("mode")))
    return errors


def request_errors(directory, directory_mode, files, kind):
    """Every problem of the request: `kind` is "missing", "dir" or "other" (what `directory` is now)."""
    errors = []
    if not os.path.isabs(directory):
        errors.append("path %s must be an absolute path" % directory)
    elif kind == "other":
        errors.append("path %s exists and is not a directory" % directory)
    if directory_mode is not None and not MODE.match(str(directory_mode)):
        errors.append("directory_mode %r must be an octal mode such as 0755" % directory_mode)
    return errors + entry_errors(files)


def plan_files(directory, files, read):
    """[{name, path, content, mode, before, differs}] for every entry; `read(path)` returns the file's
    text or None when it is not there (or cannot be read: it is then rewritten)."""
    out = []
    for entry in files:
        path = os.path.join(directory, entry["name"])
        before = read(path)
        out.append({"name": entry["name"], "path": path, "content": entry["content"], "mode": entry["mode"],
                    "before": before, "differs": before != entry["content"]})
    return out


def diffs(planned):
    """Ansible's diff list: one before/after per file that differs."""
    return [{"before_header": item["path"], "after_header": item["path"], "before": item["before"] or "",
             "after": item["content"]} for item in planned if item["differs"]]
