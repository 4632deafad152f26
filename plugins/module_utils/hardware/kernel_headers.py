# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Headers of the running kernel: the package that ships them, and whether it can be installed.

A DKMS driver build needs them; preflight reports both before anything is installed.
"""
from __future__ import annotations

import os
from typing import Any

_PACKAGE = {"Debian": "linux-headers-%s", "RedHat": "kernel-devel-%s"}


def headers_package(os_family: str, kernel: str) -> str:
    """The package that ships the headers of `kernel` on this OS family ('' where unknown)."""
    pattern = _PACKAGE.get(os_family)
    return pattern % kernel if pattern and kernel else ""


def headers_query(os_family: str, package: str) -> list[str] | None:
    """argv that asks the package manager (from its cache, read-only) about `package`, or None."""
    if not package:
        return None
    if os_family == "Debian":
        return ["apt-cache", "policy", package]
    if os_family == "RedHat":
        return ["dnf", "--cacheonly", "--quiet", "list", "--available", package]
    return None


def headers_installable(os_family: str, rc: int | None, stdout: str) -> bool | str:
    """True / False from the query's answer; "unknown" where nothing could be asked.

    apt-cache policy prints `Candidate: <version>` for an installable package and
    `Candidate: (none)` (or nothing at all) otherwise; dnf exits 1 when its cached metadata
    lists no such package.
    """
    if rc is None:
        return "unknown"
    if os_family == "Debian":
        text = stdout or ""
        return "Candidate:" in text and "Candidate: (none)" not in text
    if os_family == "RedHat":
        return rc == 0
    return "unknown"


def package_lists_present(os_family: str, apt_lists: str, dnf_cache: str) -> bool:
    """Whether the package manager has lists to answer from (False: its "no such package" means nothing).

    A fresh image or host carries no apt lists (apt-get update has not run) and no dnf metadata
    cache: asked then, both say no package exists. Other families: True (nothing is asked there).
    """
    if os_family == "Debian":
        names = _names(apt_lists)
        return any(name.endswith("_Packages") or "_Packages." in name for name in names)
    if os_family == "RedHat":
        return any(name.endswith(".solv") or os.path.isdir(os.path.join(dnf_cache, name, "repodata"))
                   for name in _names(dnf_cache))
    return True


def _names(directory):
    try:
        return os.listdir(directory)
    except OSError:
        return []


def headers_report(os_family: str, kernel: str, modules_root: str, query_result: tuple[int, str] | None,
                   lists_present: bool = True) -> dict[str, Any]:
    """The preflight fact for the kernel headers.

    query_result is (rc, stdout) of headers_query's command, or None when it was not run;
    without package lists (lists_present false) installable is "unknown", whatever it said.
    """
    package = headers_package(os_family, kernel)
    rc, stdout = query_result if query_result is not None and lists_present else (None, "")
    return {
        "release": kernel,
        "installed": os.path.isdir(os.path.join(modules_root, kernel, "build")) if kernel else False,
        "package": package,
        "installable": headers_installable(os_family, rc, stdout),
    }
