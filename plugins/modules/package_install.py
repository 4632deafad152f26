#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: package_install
short_description: Install packages with apt-get or dnf, the output in a log a poller can follow
version_added: 0.4.0
description:
  - Installs O(names) with the host's package manager (O(manager)), non-interactive, its output in O(log);
    at its end C(<log>.rc) holds O(run_id) and the exit status, so that M(blackwell.pytorch.job_follow)
    (O(blackwell.pytorch.job_follow#module:what=driver install) or C(toolkit install)) reports the download,
    the unpacking and the DKMS build while they run.
  - apt - C(apt-get install -y) (C(--no-upgrade) for O(state=present)), waiting at most O(lock_timeout)
    seconds for dpkg's lock, the configuration files on the host kept.
  - dnf - C(dnf -y install) of O(names) (an installed package stays as it is); O(state=latest) also runs
    C(dnf -y upgrade) of the names C(rpm -q) finds installed. dnf waits for its own lock as long as it takes
    (the job's timeout bounds it).
  - C(changed) comes from apt's summary line (upgraded, newly installed, removed) or dnf's transaction summary.
  - In check mode nothing is installed or written - apt-get simulates (C(-s)); dnf resolves with C(--assumeno),
    prints its transaction table and stops.
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
  manager:
    description: The package manager; V(auto) is apt where C(apt-get) is found, else dnf.
    type: str
    choices: [auto, apt, dnf]
    default: auto
  lock_timeout:
    description: Seconds apt-get waits for dpkg's lock (C(DPkg::Lock::Timeout)); apt only.
    type: int
    default: 120
  log:
    description: The log the package manager's output goes to (its directory is created).
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

- name: Install two CUDA toolkits with dnf, reported every 30 s
  blackwell.pytorch.job_follow:
    module: blackwell.pytorch.package_install
    args:
      names: [cuda-toolkit-12-8, cuda-toolkit-13-0]
      manager: dnf
      log: /var/log/blackwell-pytorch/cuda-toolkit-install.log
      run_id: "{{ now().timestamp() }}"
    what: toolkit install
    interval: 30
    timeout: 7200
"""

RETURN = r"""
rc: {description: "The package manager's exit status (of the last command run).", returned: always, type: int, sample: 0}
manager: {description: The package manager used., returned: always, type: str, sample: apt}
commands:
  description: The commands run, in order.
  returned: always
  type: list
  elements: list
  sample: [[dnf, -y, install, cuda-toolkit-12-8]]
summary:
  description: "What was (or, in check mode, would be) done: apt's summary line, dnf's transaction summary
    (with C(downgraded)); None when the output had none."
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
                           manager=dict(type="str", choices=["auto"] + list(package_install.MANAGERS), default="auto"),
                           lock_timeout=dict(type="int", default=120), log=dict(type="path", required=True),
                           run_id=dict(type="str", default="")),
        supports_check_mode=True)
    params, check = module.params, module.check_mode
    manager = params["manager"] if params["manager"] != "auto" else choose_manager(module)
    result = {"changed": False, "rc": 0, "manager": manager, "commands": [], "summary": None, "log": params["log"],
              "progress": ""}
    try:
        installed = rpm_installed(module, params["names"]) if manager == "dnf" and params["state"] == "latest" else ()
        argvs = package_install.install_argvs(params["names"], params["state"], params["lock_timeout"], check=check,
                                              manager=manager, installed=installed)
    except ValueError as exc:
        finish(module, dict(result, rc=2), str(exc), "")
    result["commands"] = argvs
    rc, text = run_logged(module, argvs, params["log"], check, manager)
    result.update(changed=package_install.changed(text, manager), rc=rc, summary=package_install.summary(text, manager),
                  progress=package_install.progress(text, manager))
    if not package_install.succeeded(rc, text, check, manager):
        finish(module, result, "%s of %s failed (rc %d): %s; see %s" % (
            " ".join(argvs[-1][:3]) if manager == "dnf" else "apt-get install", " ".join(params["names"]), rc,
            package_install.errors(text, manager) or text.strip()[-500:], params["log"]), text)
    finish(module, result, None, text)


def choose_manager(module):
    """apt where apt-get is found, else dnf; neither fails the task."""
    for manager, program in (("apt", "apt-get"), ("dnf", "dnf")):
        if module.get_bin_path(program):
            return manager
    module.fail_json(msg="package_install: neither apt-get nor dnf is found on this host")


def rpm_installed(module, names):
    """The names rpm finds installed (dnf's `latest` upgrades those and installs the others)."""
    _rc, out, _err = module.run_command(package_install.RPM_QUERY + [str(name) for name in names if name],
                                        environ_update=package_install.ENVIRONMENT)
    return package_install.rpm_installed(names, out)


def finish(module, result, failure, text):
    """<log>.rc (not in check mode: a poller waits for it), then the task's result; a failure before any
    command also goes to the log, so that the poller shows why."""
    params = module.params
    if not module.check_mode:
        if not text and failure:
            write(params["log"], "%s\n" % failure, 0o644)
        write(params["log"] + ".rc", "%s %d\n" % (params["run_id"], result["rc"]), 0o644)
    if failure:
        module.fail_json(msg=failure, **result)
    module.exit_json(**result)


def run_logged(module, argvs, log, check, manager):
    """The commands, one after the other while they succeed, with their output appended to the log as it
    comes (the poller reads the log's end); in check mode the output is only collected. (rc, all output)."""
    if not check:
        write(log, "", 0o644)
        if os.path.exists(log + ".rc"):
            os.remove(log + ".rc")
    script = 'echo "\\$ $*" >> "$BLACKWELL_INSTALL_LOG"; exec "$@" >> "$BLACKWELL_INSTALL_LOG" 2>&1'
    env = dict(package_install.ENVIRONMENT, BLACKWELL_INSTALL_LOG=log)
    rc, texts = 0, []
    for argv in argvs:
        if check:
            rc, out, err = module.run_command(argv, environ_update=package_install.ENVIRONMENT)
            texts.append("$ %s\n%s%s" % (" ".join(argv), out, err))
        else:
            rc, _out, _err = module.run_command(["/bin/sh", "-c", script, "sh"] + argv, environ_update=env)
        if not package_install.succeeded(rc, texts[-1] if check else "", check, manager):
            break
    if check:
        return rc, "".join(texts)
    with open(log) as handle:
        return rc, handle.read()


if __name__ == "__main__":
    main()
