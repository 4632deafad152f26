#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: dpkg_lock_wait
short_description: Wait a bounded time for dpkg's lock; name its holder when it stays held
version_added: 0.3.0
description:
  - Before a package install, waits until no process holds a POSIX lock on O(paths) (dpkg's and apt's
    locks), at most O(timeout) seconds; then fails with a message that names each holder's process id and
    command line and what to do.
  - The holders are read from C(/proc/locks); the module never takes the lock itself.
  - A lock file that does not exist is free. In check mode the module looks once and does not wait.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  paths:
    description: The lock files.
    type: list
    elements: path
    default: [/var/lib/dpkg/lock-frontend, /var/lib/dpkg/lock]
  timeout:
    description: Seconds to wait for the holders to let go.
    type: int
    default: 120
  variable:
    description: The variable that sets O(timeout), named in the failure message.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Wait for another package manager run to finish
  blackwell.pytorch.dpkg_lock_wait:
    timeout: "{{ nvidia_driver_apt_lock_timeout }}"
    variable: nvidia_driver_apt_lock_timeout
"""

RETURN = r"""
waited: {description: Seconds the module waited., returned: always, type: float, sample: 0.0}
holders:
  description: What held the locks when the wait began (or at its end, when they were never released).
  returned: always
  type: list
  elements: dict
  contains:
    path: {description: The lock file., type: str, sample: /var/lib/dpkg/lock-frontend}
    pid: {description: The holder's process id., type: int, sample: 1234}
    command: {description: Its command line., type: str, sample: /usr/bin/python3 /usr/bin/unattended-upgrade}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import dpkg_lock


def main():
    module = AnsibleModule(
        argument_spec=dict(paths=dict(type="list", elements="path",
                                      default=["/var/lib/dpkg/lock-frontend", "/var/lib/dpkg/lock"]),
                           timeout=dict(type="int", default=120), variable=dict(type="str", default="")),
        supports_check_mode=True)
    params = module.params
    try:
        found = dpkg_lock.wait_free(params["paths"], 0 if module.check_mode else max(params["timeout"], 0))
    except OSError as exc:
        module.fail_json(msg="could not read who holds dpkg's lock: %s" % exc)
    result = {"changed": False, "waited": found["waited"], "holders": found["holders"]}
    if not found["free"] and not module.check_mode:
        module.fail_json(msg=dpkg_lock.held_message(found["holders"], params["timeout"], params["variable"]), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
