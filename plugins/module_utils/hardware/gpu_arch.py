# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Compute capability helpers: "12.0" <-> (12, 0) <-> "sm_120", and the arch family.

Pure functions, no Ansible import: unit tests and other module_utils use them.
"""
from __future__ import annotations

# Compute capability major.minor -> architecture family. Minor versions are listed where a
# major is shared by two families (Volta 7.0/7.2 vs Turing 7.5; Ampere 8.6 vs Ada 8.9).
_FAMILY_BY_CAPABILITY = {
    (5, 0): "Maxwell", (5, 2): "Maxwell", (5, 3): "Maxwell",
    (6, 0): "Pascal", (6, 1): "Pascal", (6, 2): "Pascal",
    (7, 0): "Volta", (7, 2): "Volta",
    (7, 5): "Turing",
    (8, 0): "Ampere", (8, 6): "Ampere", (8, 7): "Ampere",
    (8, 9): "Ada",
    (9, 0): "Hopper",
}
# Whole majors of one family. 10.x data center, 11.0 Thor, 12.x GeForce/RTX PRO/GB10.
_FAMILY_BY_MAJOR = {10: "Blackwell", 11: "Blackwell", 12: "Blackwell"}


def parse_capability(value):
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


def capability_string(major, minor):
    """(12, 0) -> "12.0"."""
    return "%d.%d" % (major, minor)


def sm_string(major, minor):
    """(12, 0) -> "sm_120"; (9, 0) -> "sm_90"."""
    return "sm_%d%d" % (major, minor)


def arch_family(major, minor):
    """Architecture family name for a compute capability, or "unknown"."""
    if (major, minor) in _FAMILY_BY_CAPABILITY:
        return _FAMILY_BY_CAPABILITY[(major, minor)]
    return _FAMILY_BY_MAJOR.get(major, "unknown")


def capability_facts(major, minor):
    """The capability keys every GPU fact carries."""
    return {
        "compute_capability": capability_string(major, minor),
        "sm": sm_string(major, minor),
        "arch_family": arch_family(major, minor),
    }
