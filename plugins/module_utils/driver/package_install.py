# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver packages' install through apt-get with its output in a log, and what that log says.

The install is the long step of the nvidia_driver role (a multi-GB download, then the DKMS build of
the kernel module): the package_install module runs it with its output in a log and writes
`<log>.rc` at its end, and blackwell.pytorch.job_follow reports progress() every interval.

- install_argv(): apt-get install of the names, `present` (no upgrade) or `latest`, waiting at most
  lock_timeout seconds for dpkg's lock (apt's DPkg::Lock::Timeout, as the apt module's lock_timeout),
  `-s` (simulate) in check mode;
- summary() / changed(): apt's "N upgraded, N newly installed, N to remove" line;
- progress(): one line from the log's end: packages and MB fetched of what apt said it needs, the
  last step (Get, Unpacking, Setting up, the DKMS build);
- errors(): apt's E: lines, for the failure message.

No Ansible import.
"""
from __future__ import annotations

import re

WHAT = "driver install"
STATES = ("present", "latest")
ENVIRONMENT = {"DEBIAN_FRONTEND": "noninteractive", "LC_ALL": "C"}

_SUMMARY = re.compile(r"^(\d+) upgraded, (\d+) newly installed, (\d+) to remove(?: and (\d+) not upgraded)?")
_GET = re.compile(r"^Get:\d+ .*\[([\d.,]+) (B|kB|MB|GB)\]\s*$")
_NEED = re.compile(r"^Need to get ([\d.,]+) (B|kB|MB|GB)(?:/([\d.,]+) (B|kB|MB|GB))? of archives")
_SCALE = {"B": 1e-6, "kB": 1e-3, "MB": 1.0, "GB": 1e3}
_STEPS = ("Get:", "Fetched ", "Unpacking ", "Setting up ", "Building ", "Building for ", "Building initial module",
          "DKMS", "Running module version sanity check", "depmod", "Signing module", "E: ", "Processing triggers")


def install_argv(names, state="present", lock_timeout=120, check=False):
    """apt-get's argv: non-interactive, the old configuration files kept, `--no-upgrade` for present."""
    if state not in STATES:
        raise ValueError("state must be one of %s, not %r" % (", ".join(STATES), state))
    names = [str(name) for name in names or () if str(name)]
    if not names:
        raise ValueError("no package to install")
    argv = ["apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=%d" % max(int(lock_timeout), 0),
            "-o", "Dpkg::Options::=--force-confdef", "-o", "Dpkg::Options::=--force-confold"]
    if state == "present":
        argv.append("--no-upgrade")
    if check:
        argv.append("-s")
    return argv + names


def summary(text):
    """{"upgraded", "installed", "removed"} from apt's summary line, None when the text has none."""
    for line in (text or "").splitlines():
        match = _SUMMARY.match(line.strip())
        if match:
            return {"upgraded": int(match.group(1)), "installed": int(match.group(2)), "removed": int(match.group(3))}
    return None


def changed(text):
    """Whether apt installed, upgraded or removed anything (or, simulating, would)."""
    counts = summary(text)
    return bool(counts) and any(counts.values())


def _megabytes(number, unit):
    return float(number.replace(",", "")) * _SCALE[unit]


def progress(log_text):
    """"3/12 packages fetched, 410.2 of 1290.0 MB; <last step>" from the log's end (or "starting")."""
    fetched, mb, need, last = 0, 0.0, None, ""
    for line in (log_text or "").splitlines():
        line = line.strip()
        get = _GET.match(line)
        if get:
            fetched += 1
            mb += _megabytes(get.group(1), get.group(2))
        need_match = _NEED.match(line)
        if need_match:
            need = _megabytes(need_match.group(1), need_match.group(2))
        if line.startswith(_STEPS):
            last = line
    counts = summary(log_text)
    total = (counts["installed"] + counts["upgraded"]) if counts else None
    head = "%d%s packages fetched, %.1f%s MB" % (
        fetched, "/%d" % total if total else "", mb, " of %.1f" % need if need else "")
    return "%s; %s" % (head, last[:200] or "starting")


def errors(text):
    """apt's E: lines (the reason of a failed install), '' when none."""
    return " | ".join(line.strip() for line in (text or "").splitlines() if line.startswith("E: "))
