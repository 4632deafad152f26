# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit role's inputs, checked before anything changes (docs/reliability.md).

The URL checks are the nvidia_driver role's (driver/inputs.py), under this role's variable
names; fingerprints go through driver/openpgp.py. Each problem names the variable and what to
set instead. No Ansible import.
"""
from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Sequence

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import DIRECTORY, path_problem
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.inputs import PROXY_SCHEMES, REPO_SCHEMES, url_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.openpgp import normalize_fingerprint

_DEB_VERSION = re.compile(r"^(\d+:)?\d+\.\d+\.\d+(~[A-Za-z0-9.]+)?-[A-Za-z0-9.+~]+$")


def driver_root_problem(driver_root: str, mode: int | None = None) -> str | None:
    """The refusal of container_toolkit_driver_root (common/path_inputs.py): relative, or not a directory (`mode`:
    its st_mode as the role's probe read it on the target, None when it is not there), else None."""
    def probed(path):
        if mode is None or path != posixpath.normpath(str(driver_root).strip()):
            raise FileNotFoundError(path)
        return os.stat_result((mode,) + (0,) * 9)
    return path_problem("container_toolkit_driver_root", driver_root, DIRECTORY, "/proc/driver/nvidia", probed)


def input_problems(repo_url: str, key_url: str = "", key_content: str = "", fingerprints: Sequence[str] | str = (),
                   proxy: str = "", version: str = "", spec: str = "", driver_root: str = "",
                   driver_root_mode: int | None = None) -> list[str]:
    """Problems of the repository inputs, the pinned version, the CDI spec path and the driver directory
    (driver_root_problem) (empty: fine)."""
    problems = url_problems("container_toolkit_repo_url", repo_url, REPO_SCHEMES)
    if not str(key_content or "").strip():
        problems += url_problems("container_toolkit_repo_key_url", key_url, REPO_SCHEMES)
    name = "container_toolkit_repo_key_fingerprints"
    if isinstance(fingerprints, (str, bytes)) or not isinstance(fingerprints, (list, tuple)) or not fingerprints:
        problems.append("%s must be a non-empty list of full fingerprints (40 or 64 hex digits), not %r"
                        % (name, fingerprints))
    else:
        for item in fingerprints:
            try:
                normalize_fingerprint(item)
            except ValueError:
                problems.append("%s: %r is not a full fingerprint (40 or 64 hex digits; a short key id can be "
                                "forged)" % (name, item))
    if str(proxy or ""):
        problems += url_problems("container_toolkit_repo_proxy", proxy, PROXY_SCHEMES, allow_credentials=True)
    if not _DEB_VERSION.match(str(version or "")):
        problems.append("container_toolkit_version must be a full package version such as 1.17.8-1 (the same "
                        "for the four toolkit packages), not %r" % (version,))
    text = str(spec or "")
    if not text.startswith("/") or not re.search(r"\.(yaml|json)$", text):
        problems.append("container_toolkit_cdi_spec must be an absolute path ending in .yaml or .json (CDI "
                        "reads no other files), not %r" % (text,))
    root = driver_root_problem(driver_root, driver_root_mode)
    return problems + ([root.rstrip(".")] if root else [])
