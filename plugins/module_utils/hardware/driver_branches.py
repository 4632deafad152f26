# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""NVIDIA's Linux driver branches the collection knows (docs/domain.md section 2, "Driver branches").

One row per branch: its kind (long-term support, production or new feature branch), the last month
NVIDIA supports it (None where NVIDIA published none), the CUDA version its driver carries (the newest
CUDA it runs natively; None where not yet published) and whether it is announced only (no packages yet).
Which GPUs a branch drives is the GPU catalogue's (hardware.catalogue.driver_branch: the oldest branch of
each compute capability); every branch here is newer than all of those.

A table ages: a branch not listed is not refused (the repository decides whether it exists), only
reported as unknown. No Ansible import: the driver inputs, the filters and the unit tests use these functions.
"""
from __future__ import annotations

import datetime
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import driver_branch
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

LTSB = "ltsb"
PRODUCTION = "production"
NEW_FEATURE = "new_feature"
KIND_NAMES = {
    LTSB: "long-term support branch",
    PRODUCTION: "production branch",
    NEW_FEATURE: "new feature branch",
}

# branch -> facts. end_of_life: (year, month), the last month of support, from NVIDIA's data-center driver
# documentation ("Supported Drivers and CUDA Toolkit Versions" of the 615 and 620 editions). cuda: the CUDA
# release each branch's first driver shipped with (580: CUDA 13.0 GA needs 580.65.06; 595: CUDA 13.2 came with
# 595.45.04; 610: CUDA 13.3 with 610.43.02); 620 has no published driver, so no CUDA version yet.
BRANCHES = {
    580: {"kind": LTSB, "end_of_life": (2028, 6), "cuda": "13.0", "announced_only": False},
    595: {"kind": PRODUCTION, "end_of_life": (2027, 3), "cuda": "13.2", "announced_only": False},
    610: {"kind": NEW_FEATURE, "end_of_life": (2026, 8), "cuda": "13.3", "announced_only": False},
    620: {"kind": LTSB, "end_of_life": (2029, 9), "cuda": None, "announced_only": True},
}
# What a refusal or a warning advises instead: the oldest long-term branch with packages.
RECOMMENDED = 580
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
           "November", "December")


def _number(branch: Any) -> int | None:
    """580, "580", " 580 " -> 580; anything that is not three digits -> None."""
    text = str(branch if branch is not None else "").strip()
    return int(text) if len(text) == 3 and text.isdigit() and text[0] != "0" else None


def known_branches() -> list[int]:
    """[580, 595, 610, 620]: the branches of the catalogue, oldest first."""
    return sorted(BRANCHES)


def branch_info(branch: Any) -> dict[str, Any] | None:
    """The catalogue row of `branch` (580 or "580") with its number and kind name; None for a branch not listed."""
    number = _number(branch)
    row = BRANCHES.get(number) if number is not None else None
    if row is None:
        return None
    return dict(row, branch=number, kind_name=KIND_NAMES[row["kind"]])


def is_known(branch: Any) -> bool:
    """Whether the catalogue lists `branch`."""
    return branch_info(branch) is not None


def is_announced_only(branch: Any) -> bool:
    """Whether NVIDIA announced `branch` without publishing packages of it (False for a branch not listed)."""
    info = branch_info(branch)
    return bool(info and info["announced_only"])


def branch_cuda(branch: Any) -> str | None:
    """"13.0" for 580: the CUDA version the branch's driver carries; None where unknown or not published."""
    info = branch_info(branch)
    return info["cuda"] if info else None


def end_of_life_text(branch: Any) -> str | None:
    """"June 2028" for 580: the last month NVIDIA supports the branch; None where unknown."""
    info = branch_info(branch)
    if not info or not info["end_of_life"]:
        return None
    year, month = info["end_of_life"]
    return "%s %d" % (_MONTHS[month - 1], year)


def past_end_of_life(branch: Any, today: datetime.date | None = None) -> bool:
    """Whether `today` (default: the local date) lies after the branch's last month of support.

    False for a branch not listed or without a published end.
    """
    info = branch_info(branch)
    if not info or not info["end_of_life"]:
        return False
    today = today or datetime.date.today()
    return (today.year, today.month) > tuple(info["end_of_life"])


def describe(branch: Any) -> str | None:
    """"580 (long-term support branch, supported to June 2028, CUDA 13.0)"; None for a branch not listed."""
    info = branch_info(branch)
    if info is None:
        return None
    parts = [info["kind_name"]]
    if info["announced_only"]:
        parts.append("announced, no packages yet")
    end = end_of_life_text(branch)
    parts.append("supported to %s" % end if end else "end of support not published")
    parts.append("CUDA %s" % info["cuda"] if info["cuda"] else "CUDA version not yet published")
    return "%d (%s)" % (info["branch"], ", ".join(parts))


def drives(branch: Any, capability: Any) -> bool:
    """Whether `branch` is new enough for a GPU of `capability` ("12.0", "sm_120", (12, 0)), by the GPU
    catalogue's oldest branch of that capability (any branch drives one without it). Raises ValueError for
    a branch that is not three digits or a capability that is none."""
    number = _number(branch)
    if number is None:
        raise ValueError("not a driver branch: %r" % (branch,))
    need = driver_branch(parse_capability(capability))
    return need is None or number >= need
