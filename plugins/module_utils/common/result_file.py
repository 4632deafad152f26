# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Write a JSON result document the Ansible way: temporary file beside dest, module.atomic_move,
then mode/owner/group through module.set_fs_attributes_if_different; `changed` and a diff.

Used by modules that take `dest` with the file common arguments (add_file_common_args=True).
"""
from __future__ import annotations

import json
import os
import tempfile

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text

DEFAULT_MODE = "0644"


def render(document):
    """The JSON text a result file holds (sorted keys, indented, final newline)."""
    return json.dumps(document, indent=2, sort_keys=True) + "\n"


def write_result(module, dest, document):
    """(changed, diff) after writing `document` to `dest`; in check mode only what would change."""
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
        directory = os.path.dirname(os.path.abspath(dest))
        handle, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(dest), suffix=".tmp", dir=directory)
        try:
            with os.fdopen(handle, "w") as stream:
                stream.write(text)
            module.atomic_move(temporary, dest)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    file_args = module.load_file_common_arguments(params, path=dest)
    changed = module.set_fs_attributes_if_different(file_args, changed, diff=None)
    return changed, diff
