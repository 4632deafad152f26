# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The steps around a driver install that the package_install module takes, as pure functions.

Before the install: the RHEL 8/9 module stream enabled unless it is already (stream_enabled, stream_argv), or
on EL 10, which has no module streams, the branch's versionlock added unless `dnf versionlock list` shows it
(branch_locked, branch_lock_argv; os_layout.commands' branch_lock), the holds lifted for a move asked for
(unhold_argv: apt-mark unhold, dnf versionlock delete), apt's branch pin (pin_file). After it: the driver
packages read again with os_layout's probe (installed), those not held yet held (to_hold, hold_argv: apt-mark
hold, dnf versionlock add of those `dnf versionlock list` does not name) and kept out of unattended-upgrades
(uu_file). The texts of the files are managed_files'. No Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, os_layout, policy

STREAM_QUERY = ["dnf", "--quiet", "module", "list", "--enabled", "nvidia-driver"]
LOCK_QUERY = ["dnf", "--quiet", "versionlock", "list"]


def _names(names):
    return [str(name) for name in names or () if name is not None and str(name)]


def stream_enabled(list_text: str, stream: str) -> bool:
    """Whether `dnf module list --enabled nvidia-driver` lists the stream ("nvidia-driver:580-open") as enabled."""
    name, _sep, version = stream.partition(":")
    return re.search(r"(?m)^%s\s+%s\s" % (re.escape(name), re.escape(version)), list_text or "") is not None


def stream_argv(stream: str, state: str = "present") -> list:
    """The command that enables the stream; `latest` (a move asked for) switches to it from another one."""
    return ["dnf", "-y", "module", "switch-to" if state == "latest" else "enable", stream]


def branch_locked(locks_text: str, pattern: str) -> bool:
    """Whether `dnf versionlock list` (locks_text) already keeps dnf on the branch of the pattern ("*nvidia*580*"):
    the pattern listed as it is, or a lock of an nvidia package at a version of the branch
    ("nvidia-open-3:580.95.05-1.el10.*", the form dnf 4's plugin writes for the packages a pattern matched).
    True without a pattern (nothing to lock)."""
    if not pattern:
        return True
    branch = pattern.strip("*").rpartition("*")[2]
    entry = re.compile(r"^\S*nvidia\S*-(?:\d+:)?%s\." % re.escape(branch))
    return any(line.strip() == pattern or entry.match(line.strip()) for line in (locks_text or "").splitlines())


def branch_lock_argv(pattern: str) -> list:
    """The command that keeps dnf on the branch (EL 10): dnf versionlock add PATTERN; [] without a pattern."""
    return ["dnf", "versionlock", "add", pattern] if pattern else []


def unhold_argv(manager: str, names) -> list:
    """apt-mark unhold NAMES, dnf versionlock delete PATTERNS; [] when there is none."""
    names = _names(names)
    if not names:
        return []
    return (["dnf", "versionlock", "delete"] if manager == "dnf" else ["apt-mark", "unhold"]) + names


def probe_argv(manager: str) -> list:
    """The command that lists the installed driver packages (os_layout's, by the manager's OS family)."""
    return os_layout.probe_argv(os_layout.REDHAT if manager == "dnf" else "Debian")


def installed(probe_text: str, parse=versions.parse) -> dict:
    """The driver packages the probe listed: {"version", "branch", "flavor", "names", "held", "unheld"}
    (policy.installed_driver: the packages of the installed driver's branch)."""
    return policy.installed_driver(policy.parse_package_lines(probe_text), parse)


def to_hold(manager: str, found: dict, locks_text: str = "") -> list:
    """The installed driver packages not held yet: apt's unheld ones; for dnf the names that `dnf versionlock
    list` (locks_text) does not name."""
    if manager == "dnf":
        return [name for name in found.get("names") or [] if name not in (locks_text or "")]
    return list(found.get("unheld") or [])


def hold_argv(manager: str, names) -> list:
    """apt-mark hold NAMES, dnf versionlock add NAMES; [] when there is none."""
    names = _names(names)
    if not names:
        return []
    return (["dnf", "versionlock", "add"] if manager == "dnf" else ["apt-mark", "hold"]) + names


def pin_file(pin, names) -> dict | None:
    """{"path", "content"} of apt's branch pin (pin: {"path", "branch"}; names: the packages it keeps on the
    branch), None without a pin."""
    if not pin:
        return None
    return {"path": pin["path"], "content": managed_files.apt_pin(str(pin["branch"]), _names(names))}


def uu_file(path: str, found: dict) -> dict | None:
    """{"path", "content"} of unattended-upgrades' blacklist of the installed driver packages, None without a
    path or without a driver package."""
    if not path or not found.get("names"):
        return None
    return {"path": path, "content": managed_files.uu_blacklist(found["names"])}
