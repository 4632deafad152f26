# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Result files, written the Ansible way: through a temporary file beside the target and
module.atomic_move, only when the content differs, mode/owner/group through
module.set_fs_attributes_if_different.

- Several files into one directory in one module call (the result_files module). The verify role
  writes cuda_check.json, verify.json and the Prometheus textfile; the fleet report writes
  fleet.json, fleet.md and fleet.html. Written with ansible.builtin.copy, each file costs two
  module calls (stat, then file for the attributes) even when nothing changes; here the whole set
  is one call. plan_files() is pure: it checks the entries and says which files differ from what
  is there.
- One JSON document to a module's `dest` (write_result(): torch_benchmark, which takes the file
  common arguments), with `changed` and a diff.

Python 3.9, standard library only, no Ansible import (the module object is passed in).
"""
from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text

if TYPE_CHECKING:  # the modules pass their AnsibleModule; nothing here imports Ansible at run time
    from ansible.module_utils.basic import AnsibleModule

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
MODE = re.compile(r"^0?[0-7]{3}$")
DEFAULT_MODE = "0644"


def entry_errors(files: Sequence[Mapping[str, Any]]) -> list[str]:
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


def request_errors(directory: str, directory_mode: str | None, files: Sequence[Mapping[str, Any]],
                   kind: str) -> list[str]:
    """Every problem of the request: `kind` is "missing", "dir" or "other" (what `directory` is now)."""
    errors = []
    if not os.path.isabs(directory):
        errors.append("path %s must be an absolute path" % directory)
    elif kind == "other":
        errors.append("path %s exists and is not a directory" % directory)
    if directory_mode is not None and not MODE.match(str(directory_mode)):
        errors.append("directory_mode %r must be an octal mode such as 0755" % directory_mode)
    return errors + entry_errors(files)


def plan_files(directory: str, files: Sequence[Mapping[str, Any]],
               read: Callable[[str], str | None]) -> list[dict[str, Any]]:
    """[{name, path, content, mode, before, differs}] for every entry; `read(path)` returns the file's
    text or None when it is not there (or cannot be read: it is then rewritten)."""
    out = []
    for entry in files:
        path = os.path.join(directory, entry["name"])
        before = read(path)
        out.append({"name": entry["name"], "path": path, "content": entry["content"], "mode": entry["mode"],
                    "before": before, "differs": before != entry["content"]})
    return out


def diffs(planned: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """Ansible's diff list: one before/after per file that differs."""
    return [{"before_header": item["path"], "after_header": item["path"], "before": item["before"] or "",
             "after": item["content"]} for item in planned if item["differs"]]


def replace_file(module: AnsibleModule, path: str, text: str) -> None:
    """Write `text` to `path` through a temporary file in its directory and module.atomic_move."""
    handle, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp",
                                         dir=os.path.dirname(os.path.abspath(path)))
    try:
        with os.fdopen(handle, "w") as stream:
            stream.write(text)
        module.atomic_move(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def render(document: Any) -> str:
    """The JSON text a result file holds (sorted keys, indented, final newline)."""
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_result(module: AnsibleModule, dest: str, document: Any) -> tuple[bool, dict[str, str]]:
    """(changed, diff) after writing `document` as JSON to `dest` (module.params carries the file common
    arguments; mode 0644 unless given); in check mode only what would change."""
    text = render(document)
    before = read_text(dest)
    changed = before != text
    diff = {"before_header": dest, "after_header": dest, "before": before or "", "after": text}
    params = dict(module.params)
    if params.get("mode") is None:
        params["mode"] = DEFAULT_MODE
    if module.check_mode:
        return changed, diff
    if changed:
        replace_file(module, dest, text)
    file_args = module.load_file_common_arguments(params, path=dest)
    changed = module.set_fs_attributes_if_different(file_args, changed, diff=None)
    return changed, diff
