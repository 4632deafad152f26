#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: result_files
short_description: Write a set of result files into one directory, atomically, in one call
version_added: 0.2.0
description:
  - Creates O(path) when it is missing (mode O(directory_mode)) and writes each entry of O(files) whose content
    differs from the file there, through a temporary file beside it and a rename, so a reader never sees half a
    file. Then sets each file's mode (and O(owner) / O(group) when given), also on files whose content is already
    right.
  - The verify role stores C(cuda_check.json), C(verify.json) and the Prometheus textfile with it, the fleet_report
    role C(fleet.json), C(fleet.md) and C(fleet.html). With M(ansible.builtin.copy) every file costs two module
    calls even when nothing changes; here the set costs one.
  - Files of O(path) that are not in O(files) are left alone.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
options:
  path:
    description: The directory the files go to (an absolute path).
    type: path
    required: true
  directory_mode:
    description:
      - Mode of O(path). When given, O(path) gets it and O(owner) / O(group) too, also when it exists already.
      - When omitted, an existing O(path) is left as it is (a textfile directory that node_exporter's user owns
        stays so), and one this module creates gets C(0755) with O(owner) / O(group).
    type: str
  files:
    description: The files.
    type: list
    elements: dict
    required: true
    suboptions:
      name:
        description: File name inside O(path) (no directory part).
        type: str
        required: true
      content:
        description: The file's text.
        type: str
        required: true
      mode:
        description: The file's mode.
        type: str
        default: "0644"
  owner:
    description: Owner of every file (and of O(path), see O(directory_mode)); unchanged when omitted.
    type: str
  group:
    description: Group of every file (and of O(path), see O(directory_mode)); unchanged when omitted.
    type: str
"""

EXAMPLES = r"""
- name: Store the verification results
  blackwell.pytorch.result_files:
    path: /var/lib/blackwell-pytorch
    owner: root
    group: root
    files:
      - name: verify.json
        content: "{{ document | to_nice_json(sort_keys=true) }}\n"
      - name: cuda_check.json
        content: "{{ check | to_nice_json(sort_keys=true) }}\n"
"""

RETURN = r"""
written:
  description: Names of the files whose content was (or, in check mode, would be) written.
  returned: success
  type: list
  elements: str
  sample: [verify.json]
paths:
  description: Every file's full path, by name.
  returned: success
  type: dict
  sample: {verify.json: /var/lib/blackwell-pytorch/verify.json}
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.result_files import (
    diffs, plan_files, replace_file, request_errors)


def attributes(module, path, mode):
    params = dict(module.params, mode=mode)
    return module.load_file_common_arguments(params, path=path)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            path=dict(type="path", required=True),
            directory_mode=dict(type="str"),
            files=dict(type="list", elements="dict", required=True, options=dict(
                name=dict(type="str", required=True), content=dict(type="str", required=True, no_log=False),
                mode=dict(type="str", default="0644"))),
            owner=dict(type="str"),
            group=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    directory = module.params["path"]
    files = module.params["files"]
    kind = "dir" if os.path.isdir(directory) else "other" if os.path.lexists(directory) else "missing"
    errors = request_errors(directory, module.params["directory_mode"], files, kind)
    if errors:
        module.fail_json(msg="; ".join(errors))
    planned = plan_files(directory, files, read_text)
    written = [item["name"] for item in planned if item["differs"]]
    changed = bool(written) or not os.path.isdir(directory)
    result = {"written": written, "paths": dict((item["name"], item["path"]) for item in planned)}
    if module._diff:
        result["diff"] = diffs(planned)
    if module.check_mode:
        module.exit_json(changed=changed, **result)
    directory_mode = module.params["directory_mode"]
    if not os.path.isdir(directory):
        try:
            os.makedirs(directory)
        except OSError as exc:
            module.fail_json(msg="cannot create %s: %s" % (directory, exc), **result)
        directory_mode = directory_mode or "0755"
    if directory_mode:
        changed = module.set_fs_attributes_if_different(attributes(module, directory, directory_mode), changed)
    for item in planned:
        if item["differs"]:
            try:
                replace_file(module, item["path"], item["content"])
            except (IOError, OSError) as exc:
                module.fail_json(msg="cannot write %s: %s" % (item["path"], exc), **result)
        changed = module.set_fs_attributes_if_different(attributes(module, item["path"], item["mode"]), changed)
    module.exit_json(changed=changed, **result)


if __name__ == "__main__":
    main()
