# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compute capability helpers: "12.0" <-> (12, 0) <-> "sm_120", and the arch family (hardware.catalogue).

Pure functions, no Ansible import: unit tests and other module_utils use them.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import family


def parse_capability(value: object) -> tuple[int, int]:
    """Return (major, minor) from "12.0", "sm_120", "compute_90", (12, 0) or 12.0.

    Raises ValueError for anything else.
    """
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return int(value[0]), int(value[1])
    if isinstance(value, float):
        value = "%.1f" % value
    text = str(value).strip().lower()
    for prefix in ("sm_", "compute_"):
        if text.startswith(prefix):
            digits = text[len(prefix):].rstrip("af")
            if not digits.isdigit() or len(digits) < 2:
                break
            return int(digits[:-1]), int(digits[-1])
    else:
        major, sep, minor = text.partition(".")
        if sep and major.isdigit() and minor.isdigit():
            return int(major), int(minor)
    raise ValueError("not a compute capability: %r" % (value,))


def capability_string(major: int, minor: int) -> str:
    """(12, 0) -> "12.0"."""
    return "%d.%d" % (major, minor)


def sm_string(major: int, minor: int) -> str:
    """(12, 0) -> "sm_120"; (9, 0) -> "sm_90"."""
    return "sm_%d%d" % (major, minor)


def arch_family(major: int, minor: int) -> str:
    """Architecture family name for a compute capability (the catalogue's), or "unknown"."""
    return family(major, minor)


def capability_facts(major: int, minor: int) -> dict[str, str]:
    """The capability keys every GPU fact carries."""
    return {
        "compute_capability": capability_string(major, minor),
        "sm": sm_string(major, minor),
        "arch_family": arch_family(major, minor),
    }
