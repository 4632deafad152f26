# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read what the nvidia_driver role decides on from the host, read-only (check mode too).

read_host() gathers driver.state's `found`: the installed driver packages (the role's probe
command), the kernel headers and DKMS packages, dnf's versionlocks, the MOK files, the
repository key, the managed files, other apt sources of the repository and nvidia-persistenced.
`run(argv)` runs a command and returns (rc, stdout, stderr) (AnsibleModule.run_command in the
module, subprocess in tests). No Ansible import.
"""
from __future__ import annotations

import os
import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text

PERSISTENCED_UNITS = ("/lib/systemd/system/nvidia-persistenced.service",
                      "/usr/lib/systemd/system/nvidia-persistenced.service")
PACKAGE_FORMAT = {"Debian": ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n"],
                  "RedHat": ["rpm", "-q", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n"]}


class ProbeError(Exception):
    """A probe command failed in a way that says nothing about the host's state."""


def packages_text(run, argv):
    """The probe's "name<TAB>version<TAB>status" lines; rc 1 (a pattern matched nothing) is fine."""
    rc, out, err = run(list(argv))
    if rc > 1:
        raise ProbeError("%s failed (rc %d): %s" % (" ".join(argv[:2]), rc, (err or out).strip()))
    return out


def support_text(run, family, names):
    """The status lines of the kernel headers and DKMS packages (absent ones give no line)."""
    argv = PACKAGE_FORMAT.get(family)
    if not argv or not names:
        return ""
    rc, out, err = run(argv + list(names))
    if rc > 1 and family == "Debian":
        raise ProbeError("dpkg-query failed (rc %d): %s" % (rc, err.strip()))
    return out


def versionlocks(run):
    """dnf's versionlock list ('' when the plugin is not there yet)."""
    rc, out, _err = run(["dnf", "--quiet", "versionlock", "list"])
    return out if rc == 0 else ""


def other_sources(directory, url, own_name):
    """apt sources in `directory` (*.list, *.sources) other than the role's own that name the repository URL."""
    if not directory or not os.path.isdir(directory):
        return []
    pattern = re.compile(".*" + re.escape(re.sub("/+$", "", url or "")) + ".*")
    found = []
    for name in sorted(os.listdir(directory)):
        path = os.path.join(directory, name)
        if name == own_name or not (name.endswith(".list") or name.endswith(".sources")) or not os.path.isfile(path):
            continue
        text = read_text(path) or ""
        if any(pattern.match(line) for line in text.splitlines()):
            found.append(path)
    return found


def persistenced(run, units=PERSISTENCED_UNITS):
    """{"unit": whether the packages ship it, "enabled", "active"} (systemctl's answers)."""
    unit = any(os.path.exists(path) for path in units)
    if not unit:
        return {"unit": False, "enabled": False, "active": False}
    _rc, enabled, _err = run(["systemctl", "is-enabled", "nvidia-persistenced"])
    rc_active, _out, _err = run(["systemctl", "is-active", "--quiet", "nvidia-persistenced"])
    return {"unit": True, "enabled": enabled.strip() in ("enabled", "enabled-runtime", "static", "alias"),
            "active": rc_active == 0}


def read_host(run, family, probe_argv, support_names, paths, mok_files, repo_url, hold, read_units=True):
    """driver.state's `found`.

    paths: the managed files' and the key's paths ({"keyring", "source", "proxy", "files": [...]});
    mok_files: the MOK key and certificate paths set (missing ones are reported);
    repo_url: the repository, looked for in other apt sources (Debian; '' skips the search).
    """
    source = paths.get("source") or ""
    files = {}
    for path in [source, paths.get("proxy")] + list(paths.get("files") or []):
        if path and path not in files:
            files[path] = read_text(path)
    return {
        "packages_text": packages_text(run, probe_argv),
        "support_text": support_text(run, family, support_names),
        "locks_text": versionlocks(run) if family == "RedHat" and hold else "",
        "missing_mok": [path for path in mok_files if path and not os.path.exists(path)],
        "keyring_text": read_text(paths.get("keyring")),
        "files": files,
        "other_sources": other_sources(os.path.dirname(source), repo_url, os.path.basename(source))
        if family == "Debian" and repo_url else [],
        "persistenced": persistenced(run) if read_units else {"unit": False, "enabled": False, "active": False},
    }
