# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Wheel file names (PEP 427 / the binary distribution format) and whether a wheel fits a target.

    torch-2.9.1+cu128-cp311-cp311-manylinux_2_28_x86_64.whl
    name  version(+label) python abi  platform

Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import normalized

_ARCHES = ("x86_64", "aarch64")
_PY_TAG = re.compile(r"^cp(\d)(\d+)$")


def parse_wheel(filename: str) -> dict[str, Any] | None:
    """{"name", "version", "public", "label", "build", "python", "abi", "platform", "filename"} or None.

    filename may be URL-quoted (torch-2.9.1%2Bcu128-...); python/abi/platform are lists (compressed
    tag sets such as py2.py3 or manylinux_2_17_x86_64.manylinux2014_x86_64 are split)."""
    filename = unquote(str(filename or "")).rsplit("/", 1)[-1]
    if not filename.endswith(".whl"):
        return None
    parts = filename[:-4].split("-")
    if len(parts) not in (5, 6):
        return None
    name, version = parts[0], parts[1]
    build = parts[2] if len(parts) == 6 else ""
    fields = versions.parse(version)
    if not fields:
        return None
    return {"filename": filename, "name": normalized(name), "version": version,
            "public": versions.public(fields, width=3), "label": fields["local"] or "", "build": build,
            "python": parts[-3].split("."), "abi": parts[-2].split("."), "platform": parts[-1].split("."),
            "key": fields["key"], "final": not (fields["pre"] or fields["dev"] is not None)}


def target_tags(python_tag: str, machine: str) -> tuple[str, str]:
    """Check the target: ("cp311", "x86_64"). python_tag "cp311", "3.11" or "311"; machine "x86_64" /
    "aarch64" / "amd64" / "arm64" or a platform tag such as linux_x86_64. Raises ValueError."""
    text = str(python_tag or "").strip().lower()
    match = re.match(r"^(?:cp|py)?(\d)\.?(\d+)$", text)
    if not match:
        raise ValueError("python tag must be like cp311 or 3.11, got %r" % (python_tag,))
    arch = str(machine or "").strip().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(arch, arch)
    arch = next((a for a in _ARCHES if arch.endswith(a)), None)
    if not arch:
        raise ValueError("platform must be linux x86_64 or aarch64, got %r" % (machine,))
    return "cp%s%s" % match.groups(), arch


def fits(wheel: Mapping[str, Any], python_tag: str, arch: str) -> bool:
    """Whether the parsed wheel installs on CPython `python_tag` (cp311) on Linux `arch`."""
    major_minor = _PY_TAG.match(python_tag).groups()
    pythons = set(wheel["python"])
    python_ok = python_tag in pythons or "py3" in pythons or "py%s%s" % major_minor in pythons
    if not python_ok and "abi3" in wheel["abi"]:
        python_ok = any(_PY_TAG.match(tag) and int(_PY_TAG.match(tag).group(2)) <= int(major_minor[1])
                        for tag in pythons)
    abi_ok = bool(set(wheel["abi"]) & set((python_tag, "abi3", "none")))
    platform_ok = any(tag == "any" or (tag.endswith("_" + arch) and tag.startswith(("manylinux", "linux")))
                      for tag in wheel["platform"])
    return python_ok and abi_ok and platform_ok
