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
  - C(changed) comes from apt's summary lines (upgraded, newly installed, removed) or dnf's transaction summary,
    and from the steps below.
  - "The NVIDIA driver's steps around the install, in this order: the holds of O(unhold) lifted, O(module_stream)
    enabled unless it is already, apt's branch pin O(pin) written, O(choice)'s packages installed; then the
    installed driver packages read again (C(dpkg-query) / C(rpm -qa) of NVIDIA's names, the installed driver's
    branch kept: RV(installed)), those not held yet held (O(hold)) and kept out of unattended-upgrades
    (O(unattended_upgrades_blacklist)). Each changes only what differs; the commands that change something go to
    O(log) too; a run with nothing to install takes only the steps after it."
  - In check mode nothing is installed or written - apt-get simulates (C(-s)); dnf resolves with C(--assumeno),
    prints its transaction table and stops; the other steps only say whether they would change something.
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
    description: The packages (empty with O(choice), or when only the steps after the install are asked for).
    type: list
    elements: str
    default: []
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
  choice:
    description:
      - "apt only - the driver packages chosen from C(apt-cache policy) (the P(blackwell.pytorch.nvidia_driver_apt_packages#filter)
        filter's result): C(first) installed by an install of its own (never upgraded), then C(then); the branch pin
        O(pin) with C(pin); C(method) named in RV(installed). One that is not C(ok) is refused with its C(msg)."
    type: dict
    suboptions:
      ok: {description: Whether the repository has a complete set., type: bool, required: true}
      method: {description: How the packages were chosen., type: str}
      first: {description: The branch pinning package., type: list, elements: str, default: []}
      then: {description: The driver packages., type: list, elements: str, default: []}
      pin: {description: Whether the packages need the branch pin., type: bool, default: false}
      msg: {description: "What was chosen, or why nothing.", type: str, default: ""}
  pin:
    description: apt only - where apt's preferences that keep the NVIDIA driver packages on a branch go (mode
      C(0644)), for a O(choice) with C(pin) (a fallback package that depends on an unbounded driver).
    type: dict
    suboptions:
      path: {description: The preferences file., type: path, required: true}
      branch: {description: The driver branch the packages are kept on., type: str, required: true}
  module_stream:
    description: dnf only - the module stream (C(nvidia-driver:580-open)) enabled before the install unless
      C(dnf module list --enabled) shows it (C(switch-to) with O(state=latest)); named in RV(installed).
    type: str
    default: ""
  unhold:
    description: Holds lifted before the install - apt C(apt-mark unhold) of these names, dnf C(dnf versionlock
      delete) of these patterns (nothing locked is no error).
    type: list
    elements: str
    default: []
  hold:
    description: After the install, hold the installed driver packages not held yet - C(apt-mark hold), or
      C(dnf versionlock add) of those C(dnf versionlock list) does not name.
    type: bool
    default: false
  unattended_upgrades_blacklist:
    description: apt only - the unattended-upgrades configuration file that keeps the installed driver packages
      out of automatic upgrades, written (mode C(0644)) after the install when it differs; empty - none.
    type: path
    default: ""
"""

EXAMPLES = r"""
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

- name: Install the driver apt-cache policy offers for branch 580, hold it, keep it from unattended-upgrades
  blackwell.pytorch.job_follow:
    module: blackwell.pytorch.package_install
    args:
      choice: "{{ policy.stdout | blackwell.pytorch.nvidia_driver_apt_packages('580', 'open') }}"
      pin: {path: /etc/apt/preferences.d/blackwell-nvidia-driver-580, branch: "580"}
      hold: true
      unattended_upgrades_blacklist: /etc/apt/apt.conf.d/51blackwell-nvidia-driver
      log: /var/log/blackwell-pytorch/nvidia-driver-install.log
      run_id: "{{ now().timestamp() }}"
    what: driver install
    timeout: 3600
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
  description: "What was (or, in check mode, would be) done: apt's summary lines, dnf's transaction summary
    (with C(downgraded)); None when the output had none."
  returned: always
  type: dict
  sample: {upgraded: 0, installed: 12, removed: 0}
log: {description: The log., returned: always, type: str, sample: /var/log/blackwell-pytorch/nvidia-driver-install.log}
progress: {description: "The last progress line (packages and MB fetched, last step).", returned: always, type: str}
installed:
  description: "The installed driver packages when read (O(choice), O(module_stream), O(hold),
    O(unattended_upgrades_blacklist)), else None: C(version), C(branch), C(flavor), C(names), C(held), C(unheld)
    as read, and C(method) (O(choice)'s, or C(module-stream <stream>)) when this run installed them."
  returned: always
  type: dict
  sample: {version: 580.95.05, branch: "580", flavor: open, names: [nvidia-open], held: [], unheld: [nvidia-open]}
held: {description: Packages held by this run (a check run - would hold)., returned: always, type: list, elements: str}
unheld: {description: The names or patterns of O(unhold)., returned: always, type: list, elements: str, sample: []}
files: {description: Files written (a check run - would write)., returned: always, type: list, elements: str}
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.result_files import replace_file
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import package_install, package_steps

AROUND = ("hold", "unhold", "unattended_upgrades_blacklist")  # asked for without an install


def write(path, text, mode):
    directory = os.path.dirname(path)
    if directory and not os.path.isdir(directory):
        os.makedirs(directory, mode=0o755)
    with open(path, "w") as handle:
        handle.write(text)
    os.chmod(path, mode)


def main():
    module = AnsibleModule(
        argument_spec=dict(names=dict(type="list", elements="str", default=[]),
                           state=dict(type="str", choices=list(package_install.STATES), default="present"),
                           manager=dict(type="str", choices=["auto"] + list(package_install.MANAGERS), default="auto"),
                           lock_timeout=dict(type="int", default=120), log=dict(type="path", required=True),
                           run_id=dict(type="str", default=""),
                           choice=dict(type="dict", options=dict(
                               ok=dict(type="bool", required=True), method=dict(type="str"),
                               first=dict(type="list", elements="str", default=[]),
                               then=dict(type="list", elements="str", default=[]), pin=dict(type="bool", default=False),
                               msg=dict(type="str", default=""))),
                           pin=dict(type="dict", options=dict(path=dict(type="path", required=True),
                                                              branch=dict(type="str", required=True))),
                           module_stream=dict(type="str", default=""),
                           unhold=dict(type="list", elements="str", default=[]), hold=dict(type="bool", default=False),
                           unattended_upgrades_blacklist=dict(type="path", default="")),
        supports_check_mode=True)
    params, check = module.params, module.check_mode
    manager = params["manager"] if params["manager"] != "auto" else choose_manager(module)
    result = {"changed": False, "rc": 0, "manager": manager, "commands": [], "summary": None, "log": params["log"],
              "progress": "", "installed": None, "held": [], "unheld": [], "files": []}
    try:
        argvs = install_commands(module, params, manager, check)
    except ValueError as exc:
        finish(module, dict(result, rc=2), str(exc), "")
    run = Run(module, params["log"], check, manager, commands=result["commands"])
    before(run, params, manager, result)
    rc, text = run.install(argvs) if argvs else (0, "")
    result.update(rc=rc, summary=package_install.summary(text, manager) if argvs else None,
                  progress=package_install.progress(text, manager))
    result["changed"] = result["changed"] or package_install.changed(text, manager)
    if not package_install.succeeded(rc, text, check, manager):
        finish(module, result, "%s of %s failed (rc %d): %s; see %s" % (
            " ".join(argvs[-1][:3]) if manager == "dnf" else "apt-get install", " ".join(packages(params)), rc,
            package_install.errors(text, manager) or text.strip()[-500:], params["log"]), text)
    after(run, params, manager, result, bool(argvs))
    result["progress"] = package_install.progress(run.text(), manager)
    finish(module, result, None, run.text())


def install_commands(module, params, manager, check):
    """The install's commands (O(choice)'s first packages', then the others'); [] when only the steps after the
    install are asked for."""
    choice = params["choice"]
    if choice and not choice["ok"]:
        raise ValueError(choice["msg"] or "no complete set of driver packages")
    first, names = (choice["first"], choice["then"]) if choice else ([], params["names"])
    if not names and not first and any(params[key] for key in AROUND):
        return []
    installed = rpm_installed(module, names) if manager == "dnf" and params["state"] == "latest" else ()
    argvs = package_install.install_argvs(first, "present", params["lock_timeout"], check=check,
                                          manager=manager) if first else []
    return argvs + package_install.install_argvs(names, params["state"], params["lock_timeout"], check=check,
                                                 manager=manager, installed=installed)


def packages(params):
    """Every package asked for, for the failure message."""
    return (params["choice"]["first"] + params["choice"]["then"]) if params["choice"] else params["names"]


def method(params, manager):
    """How the driver packages of this install were chosen (installed.method); None for other installs."""
    if params["choice"]:
        return params["choice"]["method"]
    return "module-stream %s" % params["module_stream"] if manager == "dnf" and params["module_stream"] else None


def before(run, params, manager, result):
    """The holds lifted, the module stream, the branch pin: each only where it differs."""
    unhold = package_steps.unhold_argv(manager, params["unhold"])
    if unhold:
        rc = run.act(unhold, may_fail=manager == "dnf")  # dnf: nothing locked is fine
        result["unheld"] = unhold[3 if manager == "dnf" else 2:]
        result["changed"] = rc == 0 and not (run.check and manager == "dnf")
    stream = params["module_stream"]
    if manager == "dnf" and stream and not package_steps.stream_enabled(
            run.query(package_steps.STREAM_QUERY, ok=None), stream):  # exit 1: no stream enabled yet
        run.act(package_steps.stream_argv(stream, params["state"]))
        result["changed"] = True
    choice = params["choice"] or {}
    pin = package_steps.pin_file(params["pin"], choice["then"]) if manager == "apt" and choice.get("pin") else None
    if pin and run.place(pin):
        result["files"].append(pin["path"])
        result["changed"] = True


def after(run, params, manager, result, installs):
    """The driver packages read again, held where they are not, kept out of unattended-upgrades."""
    named = method(params, manager) if installs else None
    if not (params["hold"] or params["unattended_upgrades_blacklist"] or named):
        return
    found = package_steps.installed(run.query(package_steps.probe_argv(manager), ok=(0, 1)))  # dpkg-query: 1 = no match
    result["installed"] = dict(found, method=named) if named else found
    if params["hold"]:
        locks = run.query(package_steps.LOCK_QUERY) if manager == "dnf" else ""
        names = package_steps.to_hold(manager, found, locks)
        if names:
            run.act(package_steps.hold_argv(manager, names))
            result.update(held=names, changed=True)
    uu_file = package_steps.uu_file(params["unattended_upgrades_blacklist"], found) if manager == "apt" else None
    if uu_file and run.place(uu_file):
        result["files"].append(uu_file["path"])
        result["changed"] = True


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


class Run(object):
    """The commands of one run. Those that change the host have their output appended to the log as it comes
    (the poller reads the log's end); in check mode the install commands simulate and the others are not run.
    Queries (read-only) run in check mode too and stay out of the log, which each run starts anew."""

    SCRIPT = 'echo "\\$ $*" >> "$BLACKWELL_INSTALL_LOG"; exec "$@" >> "$BLACKWELL_INSTALL_LOG" 2>&1'

    def __init__(self, module, log, check, manager, commands):
        self.module, self.log, self.check, self.manager = module, log, check, manager
        self.commands, self.texts = commands, []
        if not check:
            write(log, "", 0o644)
        if not check and os.path.exists(log + ".rc"):
            os.remove(log + ".rc")

    def query(self, argv, ok=(0,)):
        """A read-only command's output; an exit status not in `ok` (None: any) fails the task."""
        rc, out, err = self.module.run_command(argv, environ_update=package_install.ENVIRONMENT)
        if ok is not None and rc not in ok:
            self.fail(rc, "%s failed (rc %d): %s" % (" ".join(argv), rc, (err or out).strip()[-500:]))
        return out

    def fail(self, rc, msg):
        finish(self.module, {"changed": False, "rc": rc, "manager": self.manager, "commands": self.commands,
                             "log": self.log}, msg, "" if self.check else self.text())

    def logged(self, argv):
        """Runs argv with its output appended to the log; its exit status."""
        self.commands.append(argv)
        return self.module.run_command(["/bin/sh", "-c", self.SCRIPT, "sh"] + argv, environ_update=dict(
            package_install.ENVIRONMENT, BLACKWELL_INSTALL_LOG=self.log))[0]

    def act(self, argv, may_fail=False):
        """A command that changes the host (not run in check mode); a failure fails the task unless may_fail."""
        if self.check:
            self.commands.append(argv)
            return 0
        rc = self.logged(argv)
        if rc and not may_fail:
            self.fail(rc, "%s failed (rc %d); see %s" % (" ".join(argv), rc, self.log))
        return rc

    def install(self, argvs):
        """The install commands, one after the other while they succeed: (rc, their output)."""
        rc = 0
        for argv in argvs:
            if self.check:
                self.commands.append(argv)
                rc, out, err = self.module.run_command(argv, environ_update=package_install.ENVIRONMENT)
                self.texts.append("$ %s\n%s%s" % (" ".join(argv), out, err))
            else:
                rc = self.logged(argv)
            if not package_install.succeeded(rc, self.texts[-1] if self.check else "", self.check, self.manager):
                break
        return rc, self.text()

    def text(self):
        if self.check:
            return "".join(self.texts)
        with open(self.log) as handle:
            return handle.read()

    def place(self, wanted):
        """Writes {"path", "content"} (0644) when it differs (in check mode only says so); whether it differed."""
        if read_text(wanted["path"]) == wanted["content"]:
            return False
        if not self.check:
            replace_file(self.module, wanted["path"], wanted["content"])
            os.chmod(wanted["path"], 0o644)
        return True


if __name__ == "__main__":
    main()
