# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What dnf's output says (dnf 4 as RHEL/Rocky 8-10 ship it, `dnf -y install`, no terminal, LC_ALL=C), for
package_install.

Without a terminal dnf prints no bars: a line per finished download ("(3/62): <file>.rpm  45 MB/s | 410 MB
00:09"; no "(n/N): " when only one file is fetched), a "Total" line after the downloads, and a line per
finished transaction element ("  Installing       : <nevra>   12/62 ", "Running scriptlet", "Verifying").
Sizes are dnf's: powers of 1024, "k", "M", "G" (MB here means MiB).

- summary(): the "Transaction Summary" table (Install/Upgrade/Remove/Downgrade N Packages), summed over
  every transaction of the log (a `latest` install runs two); zeros after "Nothing to do.";
- facts(): packages in the transactions, packages and MB downloaded of the "Total download size", the
  last step (a download, a transaction element with its k/N, the DKMS build of a scriptlet);
- aborted(): the check run's `--assumeno` answer ("Operation aborted.", exit status 1);
- errors(): "No match for argument" lines and the "Error:" block (its indented Problem lines).

No Ansible import.
"""
from __future__ import annotations

import re

_SUMMARY = re.compile(r"^(Install|Upgrade|Remove|Downgrade|Skip)\s+(\d+) Packages?\s*$")
_KEYS = {"Install": "installed", "Upgrade": "upgraded", "Remove": "removed", "Downgrade": "downgraded"}
_DOWNLOAD = re.compile(r"^(?:\((\d+)/(\d+)\): )?(\S.*?)\s+[\d.]+\s*[kMGTP]?\s*B/s\s+\|\s+([\d.]+)\s*([kMGTP]?)\s*B\s+\S+\s*$")
_SKIPPED = re.compile(r"^\[SKIPPED\] (\S+?):")
_NEED = re.compile(r"^Total download size: ([\d.]+)\s*([kMGTP]?)\s*$")
_ACTION = re.compile(r"^(Preparing|Installing|Upgrading|Upgraded|Cleanup|Erasing|Removing|Obsoleting|Obsoleted|"
                     r"Reinstalling|Reinstalled|Downgrading|Downgraded|Running scriptlet|Verifying)\s*:\s*(.*?)\s*"
                     r"(\d+)/(\d+)$")
_SCALE = {"": 1.0 / 1024 ** 2, "k": 1.0 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 ** 2, "P": 1024.0 ** 3}
_STEPS = ("Last metadata expiration check", "Dependencies resolved", "Downloading Packages", "Total",
          "Running transaction", "Transaction check", "Transaction test", "Complete!", "Nothing to do",
          "Error:", "Waiting for process with pid", "[FAILED]", "[MIRROR]", "Operation aborted",
          "Building initial module", "Building module", "Building for ", "DKMS", "Running module version sanity check",
          "depmod", "Signing module", "Loading new ", "Installed:", "Upgraded:",
          "$ dnf versionlock ", "$ dnf -y module ")  # the steps around a driver install
_ABORTED = re.compile(r"^(?:Error: )?Operation aborted", re.M)


def summary(text):
    """{"installed", "upgraded", "removed", "downgraded"} summed over the log's Transaction Summary tables;
    zeros when dnf found nothing to do; None when the text has neither (dnf stopped before resolving)."""
    counts, seen = dict.fromkeys(("installed", "upgraded", "removed", "downgraded"), 0), False
    for line in (text or "").splitlines():
        line = line.strip()
        match = _SUMMARY.match(line)
        if match:
            seen = True
            if match.group(1) in _KEYS:
                counts[_KEYS[match.group(1)]] += int(match.group(2))
        elif line.startswith("Nothing to do"):
            seen = True
    return counts if seen else None


def _megabytes(number, unit):
    return float(number) * _SCALE[unit]


def _download(line):
    """(size in MB, the step's text) of a finished download line, None for another line."""
    match = _DOWNLOAD.match(line)
    if not match or match.group(3).startswith("Total"):
        return None
    size = _megabytes(match.group(4), match.group(5))
    where = " (%s/%s)" % (match.group(1), match.group(2)) if match.group(1) else ""
    return size, "Downloaded%s %s, %.1f MB" % (where, match.group(3), size)


def _step(line):
    """A transaction element's line as "Installing <nevra> (12/62)", another step's with its spaces collapsed,
    None for a line that says nothing of the progress."""
    action = _ACTION.match(line)
    if action:
        return " ".join(part for part in (action.group(1), action.group(2)) if part) + " (%s/%s)" % (
            action.group(3), action.group(4))
    if line.startswith(_STEPS):
        return " ".join(line.split())
    return None


def facts(log_text):
    """{"packages": the transactions' installs, upgrades and downgrades (None before dnf resolved),
    "fetched", "mb", "need" (MB to download, None before dnf said), "last": the last step ('' before one)}."""
    out = {"fetched": 0, "mb": 0.0, "need": None, "last": ""}
    for line in (log_text or "").splitlines():
        line = line.strip()
        download = _download(line)
        if download:
            out["fetched"] += 1
            out["mb"] += download[0]
            out["last"] = download[1]
            continue
        skipped = _SKIPPED.match(line)
        if skipped:
            out["fetched"] += 1
            out["last"] = "Already downloaded %s" % skipped.group(1)
            continue
        need = _NEED.match(line)
        if need:
            out["need"] = (out["need"] or 0.0) + _megabytes(need.group(1), need.group(2))
        step = _step(line)
        if step:
            out["last"] = step
    counts = summary(log_text)
    out["packages"] = (counts["installed"] + counts["upgraded"] + counts["downgraded"]) if counts else None
    return out


def aborted(text):
    """Whether dnf stopped at its question because of --assumeno (a check run's simulation, exit status 1)."""
    return bool(_ABORTED.search(text or ""))


def errors(text):
    """dnf's reasons of a failed install: "No match for argument" lines and each "Error:" line with the
    indented lines under it (the depsolver's Problem and its causes), '' when none."""
    found, inside = [], False
    for line in (text or "").splitlines():
        if line.startswith("Error:") or line.startswith("No match for argument"):
            found.append(line.strip())
            inside = line.startswith("Error:")
        elif inside and line.startswith(" ") and line.strip():
            found.append(line.strip())
        else:
            inside = False
    return " | ".join(found)
