# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A package install through apt-get or dnf with its output in a log, and what that log says.

The long package steps (the driver: a multi-GB download, then the DKMS build of the kernel module; the
CUDA toolkits: several GB of packages to fetch and unpack) run in the package_install module with their
output in a log and `<log>.rc` written at the end, and blackwell.pytorch.job_follow reports progress()
every interval.

- install_argvs(): the commands, in order. apt: one `apt-get install`, `present` (`--no-upgrade`) or
  `latest`, waiting at most lock_timeout seconds for dpkg's lock, `-s` (simulate) in check mode. dnf:
  `dnf -y install` of the names (an installed name stays as it is); `latest` also `dnf -y upgrade` of
  the names already installed (rpm_installed()), since dnf refuses to upgrade a name that is not; in check
  mode `--assumeno` (dnf resolves, prints its transaction table and stops with "Operation aborted.");
- succeeded(): the exit status, a check run's aborted dnf transaction counting as success;
- summary() / changed(): apt's summary line, dnf's transaction summary;
- progress(): one line from the log's end: packages and MB fetched of what the package manager announced
  (and the percentage), apt's unpacked and set-up counts, the last step;
- errors(): apt's E: lines, dnf's Error: block, for the failure message.

No Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import apt_output, dnf_output

WHATS = ("driver install", "toolkit install", "package install")  # job_follow's `what` of these installs
STATES = ("present", "latest")
MANAGERS = ("apt", "dnf")
ENVIRONMENT = {"DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}
RPM_QUERY = ["rpm", "-q", "--queryformat", "%{NAME}\\n"]

_DNF_MARKS = re.compile(r"^(?:\$ dnf |Last metadata expiration check|Dependencies resolved|Transaction Summary|"
                        r"Total download size|Downloading Packages:|Running transaction|\(\d+/\d+\): )", re.M)
_APT_MARKS = re.compile(r"^(?:\$ apt-get |Reading package lists|Get:\d+ |Need to get |Unpacking |Setting up )", re.M)


def _names(names):
    names = [str(name) for name in names or () if name is not None and str(name)]
    if not names:
        raise ValueError("no package to install")
    return names


def _check(state, manager):
    if state not in STATES:
        raise ValueError("state must be one of %s, not %r" % (", ".join(STATES), state))
    if manager not in MANAGERS:
        raise ValueError("manager must be one of %s, not %r" % (", ".join(MANAGERS), manager))


def install_argv(names, state="present", lock_timeout=120, check=False):
    """apt-get's argv: non-interactive, the old configuration files kept, `--no-upgrade` for present."""
    _check(state, "apt")
    names = _names(names)
    argv = ["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=%d" % max(int(lock_timeout), 0),
            "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"]
    if state == "present":
        argv.append("--no-upgrade")
    if check:
        argv.append("-s")
    return argv + names


def rpm_installed(names, rpm_stdout):
    """The names `rpm -q --queryformat '%{NAME}\\n' NAMES` printed back (installed); "package X is not
    installed" lines are the others."""
    printed = set(line.strip() for line in (rpm_stdout or "").splitlines())
    return [name for name in names if name in printed]


def install_argvs(names, state="present", lock_timeout=120, check=False, manager="apt", installed=()):
    """The commands of the install, in order (see the module's docstring). `installed`: the names rpm
    found installed (dnf and `latest` only)."""
    _check(state, manager)
    names = _names(names)
    if manager == "apt":
        return [install_argv(names, state, lock_timeout, check)]
    answer = "--assumeno" if check else "-y"
    if state == "present":
        return [["dnf", answer, "install"] + names]
    missing = [name for name in names if name not in installed]
    upgrade = [name for name in names if name in installed]
    return ([["dnf", answer, "install"] + missing] if missing else []) + (
        [["dnf", answer, "upgrade"] + upgrade] if upgrade else [])


def manager_of(text, manager=""):
    """The manager whose output the text is: `manager` when given (apt, dnf), else the log's own marks."""
    if manager in MANAGERS:
        return manager
    return "dnf" if len(_DNF_MARKS.findall(text or "")) > len(_APT_MARKS.findall(text or "")) else "apt"


def succeeded(rc, text, check=False, manager="apt"):
    """Whether one command went as asked: exit status 0, or a check run's dnf stopping at its question."""
    return rc == 0 or (check and manager == "dnf" and rc == 1 and dnf_output.aborted(text))


def summary(text, manager=""):
    """What the package manager did or, simulating, would do: {"upgraded", "installed", "removed"} (dnf's
    also "downgraded"); None when the text has no summary."""
    return (dnf_output if manager_of(text, manager) == "dnf" else apt_output).summary(text)


def changed(text, manager=""):
    """Whether the package manager installed, upgraded or removed anything (or, simulating, would)."""
    counts = summary(text, manager)
    return bool(counts) and any(counts.values())


def progress(log_text, manager=""):
    """"12/85 packages fetched, 410.2 of 3123.0 MB (13%), 10/85 unpacked, 2/85 set up; <last step>" (apt),
    "12/62 packages fetched, 410.2 of 3123.0 MB (13%); <last step>" (dnf), from the log's end."""
    dnf = manager_of(log_text, manager) == "dnf"
    found = (dnf_output if dnf else apt_output).facts(log_text)
    total = found["packages"]
    of_total = "/%d" % total if total else ""
    parts = ["%d%s packages fetched, %.1f%s MB%s" % (
        found["fetched"], of_total, found["mb"], " of %.1f" % found["need"] if found["need"] else "",
        " (%d%%)" % min(100, int(found["mb"] * 100 / found["need"])) if found["need"] else "")]
    if not dnf:
        parts += ["%d%s %s" % (found[key], of_total, word) for key, word in (("unpacked", "unpacked"),
                                                                             ("set_up", "set up")) if found[key]]
    return "%s; %s" % (", ".join(parts), found["last"][:200] or "starting")


def errors(text, manager=""):
    """The reason of a failed install: apt's E: lines, dnf's Error: block; '' when none."""
    return (dnf_output if manager_of(text, manager) == "dnf" else apt_output).errors(text)
