#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: disk_space_info
short_description: Free disk space where paths will live
version_added: 0.1.0
description:
  - For each path, measures free space on the filesystem that holds it, or that will hold it
    when the path does not exist yet (its closest existing ancestor is measured).
  - Works where C(ansible_facts.mounts) does not list the root (containers with an overlay root).
  - Only reads; it does not fail on too little space, it reports C(ok=false). The roles decide.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  checks:
    description: Paths and the free space each needs.
    type: list
    elements: dict
    required: true
    suboptions:
      path:
        description: Absolute path (it need not exist).
        type: str
        required: true
      min_free_gib:
        description: Free GiB needed; V(0) only reports.
        type: float
        default: 0
"""

EXAMPLES = r"""
- name: Room for the toolkit and the venvs?
  blackwell.pytorch.disk_space_info:
    checks:
      - path: /usr/local
        min_free_gib: 10
      - path: /opt/pytorch/venvs
        min_free_gib: 20
  register: space
"""

RETURN = r"""
paths:
  description: One entry per check, in order.
  returned: always
  type: list
  elements: dict
  contains:
    path: {description: The path asked about., type: str, sample: /opt/pytorch/venvs}
    measured_at: {description: "The path, or its closest existing ancestor.", type: str, sample: /opt}
    mount: {description: Mount point of the filesystem measured., type: str, sample: /}
    free_gib: {description: "Free GiB for unprivileged users (f_bavail), one decimal.", type: float}
    total_gib: {description: Size of the filesystem in GiB., type: float}
    min_free_gib: {description: What the check asked for., type: float}
    ok: {description: "Whether free_gib >= min_free_gib.", type: bool}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.disk_space import space_report


def main():
    module = AnsibleModule(
        argument_spec=dict(checks=dict(type="list", elements="dict", required=True, options=dict(
            path=dict(type="str", required=True),
            min_free_gib=dict(type="float", default=0),
        ))),
        supports_check_mode=True,
    )
    try:
        paths = [space_report(check["path"], check["min_free_gib"]) for check in module.params["checks"]]
    except (ValueError, OSError) as err:
        module.fail_json(msg=str(err))
    module.exit_json(changed=False, paths=paths)


if __name__ == "__main__":
    main()
