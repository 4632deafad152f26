# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What apt-get's output says (`apt-get install -y`, no terminal, LC_ALL=C), for package_install.

- summary(): the "N upgraded, N newly installed, N to remove" lines, summed (also printed when simulating);
- facts(): how far the install is, from the log or its end: packages the summary names, packages and MB
  fetched (`Get:` lines) of what "Need to get" announced, packages unpacked and set up, the last step
  (`Get:`, `Unpacking`, `Setting up`, the DKMS build, the triggers);
- errors(): apt's `E:` lines.

No Ansible import.
"""
from __future__ import annotations

import re

_SUMMARY = re.compile(r"^(\d+) upgraded, (\d+) newly installed, (\d+) to remove(?: and (\d+) not upgraded)?")
_GET = re.compile(r"^Get:\d+ .*\[([\d.,]+) (B|kB|MB|GB)\]\s*$")
_NEED = re.compile(r"^Need to get ([\d.,]+) (B|kB|MB|GB)(?:/([\d.,]+) (B|kB|MB|GB))? of archives")
_SCALE = {"B": 1e-6, "kB": 1e-3, "MB": 1.0, "GB": 1e3}  # apt counts in powers of ten
_STEPS = ("Get:", "Fetched ", "Preparing to unpack ", "Unpacking ", "Setting up ", "Loading new ", "Building module",
          "Building for ", "Building initial module", "DKMS", "Running module version sanity check", "depmod",
          "Signing module", "E: ", "Processing triggers", "update-alternatives: ", "Waiting for cache lock",
          "Inst ", "Conf ", "$ apt-mark ")  # Inst, Conf: a simulation's; apt-mark: the holds around a driver install


def summary(text):
    """{"upgraded", "installed", "removed"} summed over apt's summary lines (a log of two installs, the
    pinning package's and the driver's, has two), None when the text has none."""
    counts = None
    for line in (text or "").splitlines():
        match = _SUMMARY.match(line.strip())
        if match:
            counts = counts or dict.fromkeys(("upgraded", "installed", "removed"), 0)
            for key, group in (("upgraded", 1), ("installed", 2), ("removed", 3)):
                counts[key] += int(match.group(group))
    return counts


def _megabytes(number, unit):
    return float(number.replace(",", "")) * _SCALE[unit]


def facts(log_text):
    """{"packages": the summary's installed + upgraded (None without it), "fetched", "mb", "need" (MB to
    download, None before apt said), "unpacked", "set_up", "last": the last step's line ('' before one)}."""
    out = {"fetched": 0, "mb": 0.0, "need": None, "unpacked": 0, "set_up": 0, "last": ""}
    for line in (log_text or "").splitlines():
        line = line.strip()
        get = _GET.match(line)
        if get:
            out["fetched"] += 1
            out["mb"] += _megabytes(get.group(1), get.group(2))
        need = _NEED.match(line)
        if need:
            out["need"] = _megabytes(need.group(1), need.group(2))
        if line.startswith("Unpacking "):
            out["unpacked"] += 1
        elif line.startswith("Setting up "):
            out["set_up"] += 1
        if line.startswith(_STEPS):
            out["last"] = line
    counts = summary(log_text)
    out["packages"] = (counts["installed"] + counts["upgraded"]) if counts else None
    return out


def errors(text):
    """apt's E: lines (the reason of a failed install), '' when none."""
    return " | ".join(line.strip() for line in (text or "").splitlines() if line.startswith("E: "))
