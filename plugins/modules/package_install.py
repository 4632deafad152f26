#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: package_install
short_description: Install packages with apt-get, its output in a log a poller can follow
version_added: 0.4.0
description:
  - Runs C(apt-get install -y) of O(names) (C(--no-upgrade) for O(state=present)), waiting at most
    O(lock_timeout) seconds for dpkg's lock, non-interactive, the configuration files on the host kept.
  - Its output goes to O(log); at its end C(<log>.rc) holds O(run_id) and apt-get's exit status, so that
    M(blackwell.pytorch.job_follow) (O(blackwell.pytorch.job_follow#module:what=driver install)) reports
    the download and the DKMS build while they run.
  - C(changed) comes from apt's summary line (upgraded, newly installed, removed).
  - In check mode apt-get simulates (C(-s)) and nothing is installed or written.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  names:
    description: The packages.
    type: list
    elements: str
    required: true
  state:
    description: V(present) installs what is missing and upgrades nothing; V(latest) also upgrades to the candidate.
    type: str
    choices: [present, latest]
    default: present
  lock_timeout:
    description: Seconds apt-get waits for dpkg's lock (C(DPkg::Lock::Timeout)).
    type: int
    default: 120
  log:
    description: The log apt-get's output goes to (its directory is created).
    type: path
    required: true
  run_id:
    description: What C(<log>.rc) starts with, so that a poller tells this run's end from an earlier one's.
    type: str
    default: ""
"""

EXAMPLES = r"""
- name: Install the driver, reported every 15 s
  blackwell.pytorch.job_follow:
    module: blackwell.pytorch.package_install
    args:
      names: [nvidia-open]
      log: /var/log/blackwell-pytorch/nvidia-driver-install.log
      run_id: "{{ now().timestamp() }}"
    what: driver install
    timeout: 3600
"""

RETURN = r"""
rc: {description: apt-get's exit status., returned: always, type: int, sample: 0}
summary:
  description: apt's summary line (None when apt printed none).
  returned: always
  type: dict
  sample: {upgraded: 0, installed: 12, removed: 0}
log: {description: The log., returned: always, type: str, sample: /var/log/blackwell-pytorch/nvidia-driver-install.log}
progress: {description: "The last progress line (packages and MB fetched, last step).", returned: always, type: str}
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import package_install


def write(path, text, mode):
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, mode=0o755)
    with open(path, "w") as handle:
        handle.write(text)
    os.chmod(path, mode)


def main():
    module = AnsibleModule(
        argument_spec=dict(names=dict(type="list", elements="str", required=True),
                           state=dict(type="str", choices=list(package_install.STATES), default="present"),
                           lock_timeout=dict(type="int", default=120), log=dict(type="path", required=True),
                           run_id=dict(type="str", default="")),
        supports_check_mode=True)
    params = module.params
    try:
        argv = package_install.install_argv(params["names"], params["state"], params["lock_timeout"],
                                            check=module.check_mode)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    rc, out, err = module.run_command(argv, environ_update=package_install.ENVIRONMENT) if module.check_mode \
        else run_logged(module, argv, params["log"])
    text = out + err
    result = {"changed": package_install.changed(text), "rc": rc, "summary": package_install.summary(text),
              "log": params["log"], "progress": package_install.progress(text)}
    if not module.check_mode:
        write(params["log"] + ".rc", "%s %d\n" % (params["run_id"], rc), 0o644)
    if rc != 0:
        module.fail_json(msg="apt-get install %s failed (rc %d): %s; see %s" % (
            " ".join(params["names"]), rc, package_install.errors(text) or text.strip()[-500:], params["log"]),
            **result)
    module.exit_json(**result)


def run_logged(module, argv, log):
    """apt-get with its output appended to the log as it comes (the poller reads the log's end)."""
    write(log, "$ %s\n" % " ".join(argv), 0o644)
    rc_file = log + ".rc"
    if os.path.exists(rc_file):
        os.remove(rc_file)
    script = 'exec "$@" >> "$BLACKWELL_INSTALL_LOG" 2>&1'
    env = dict(package_install.ENVIRONMENT, BLACKWELL_INSTALL_LOG=log)
    rc, _out, _err = module.run_command(["/bin/sh", "-c", script, "sh"] + argv, environ_update=env)
    with open(log) as handle:
        return rc, handle.read(), ""


if __name__ == "__main__":
    main()
