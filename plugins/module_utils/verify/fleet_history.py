# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report's memory: the previous report's fleet.json.

Each host entry of a fleet document carries `measured` (every GPU figure of its result) and
`previous` ({written, measured} of the verification before it). memories() reads a previous
report: a host's memory is its entry there (or, for a host that had no result then or whose GPUs
were busy, the result it had before, kept as `last_result`). previous_of() gives a fresh result the
verification to compare with; reporting the same result again carries the same `previous` forward, so a report written
twice from the same results is the same. drop_flags() flags a figure below `ratio` of the same
GPU's figure in the previous verification ("dropped since <date>"). A host not in this play is
shown from its memory, with the age of that result. The trend of each key figure over the reports
is fleet_trend.py's. Pure functions, no Ansible import.
"""
from __future__ import annotations

import calendar
import json
import time
from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_outliers import (
    HOST_PATH_TESTS, best, flag)


def parse(previous: Mapping[str, Any] | str | None) -> tuple[dict[str, Any] | None, str | None]:
    """(fleet document or None, problem text or None) from the previous fleet.json's text or document;
    an empty one is no previous report, one that is not a fleet document is ignored, with the reason."""
    if previous in (None, "", {}):
        return None, None
    if isinstance(previous, str):
        try:
            previous = json.loads(previous)
        except ValueError as error:
            return None, "the previous fleet.json is not JSON (%s): no history used" % error
    if not isinstance(previous, dict) or not isinstance(previous.get("hosts"), list):
        return None, "the previous fleet.json is not a fleet report (no hosts list): no history used"
    return previous, None


def memory(entry: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    """The result a previous report's host entry remembers (the entry, or its `last_result`: a host without a
    result, or whose GPUs were busy, keeps the result it had before), or None."""
    if not isinstance(entry, dict):
        return None
    if entry.get("status") != "busy" and isinstance(entry.get("written"), str) and entry["written"] and (
            isinstance(entry.get("measured"), list) or isinstance(entry.get("figures"), list)):
        return entry
    return memory(entry.get("last_result"))


def memories(prior: Mapping[str, Any] | None) -> dict[str, Any]:
    """{host: remembered entry} of a previous fleet document (None: no memory)."""
    found = {}
    for entry in (prior or {}).get("hosts") or []:
        remembered = memory(entry) if isinstance(entry, dict) else None
        if remembered is not None and isinstance(entry.get("host"), str):
            found[entry["host"]] = remembered
    return found


def _rows(entry):
    """The remembered figures: `measured`, or the key figures of a report older than `measured`."""
    rows = entry.get("measured")
    rows = rows if isinstance(rows, list) else entry.get("figures") or []
    return [row for row in rows if isinstance(row, dict) and isinstance(row.get("value"), (int, float))]


# what a drop needs of each figure of the verification before (the rest stays in its own report)
PREVIOUS_KEYS = ("gpu", "uuid", "test", "size", "profile", "value", "unit")


def previous_of(written: str, remembered: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """{written, measured} of the verification before the one written at `written`: the remembered
    result when older; its own `previous` when it is this very result (the same report again)."""
    if remembered is None or not written:
        return None
    if remembered["written"] < written:
        return {"written": remembered["written"], "measured": [dict((key, row.get(key)) for key in PREVIOUS_KEYS)
                                                               for row in _rows(remembered)]}
    if remembered["written"] == written:
        return remembered.get("previous")
    return None


FIGURE_KEYS = ("gpu", "name", "test", "value", "unit", "fraction_of_peak", "reasons", "sm_clock_mhz", "ratio")


def _figures(rows):
    """The key figures of a remembered entry that the renderers can draw (every key there, a number)."""
    return [row for row in rows if isinstance(row, dict) and all(key in row for key in FIGURE_KEYS)
            and isinstance(row["value"], (int, float)) and isinstance(row["reasons"], list)]


def stored(remembered: Mapping[str, Any]) -> dict[str, Any]:
    """A host not in this play, shown from its remembered result (flags are computed afresh); what a
    hand-edited or older fleet.json lacks is filled in, so the renderers can draw it."""
    entry = dict(remembered)
    entry.pop("last_result", None)
    passed = remembered.get("passed") is True
    entry.update(source="stored", flags=[], measured=[dict(row) for row in _rows(remembered)], passed=passed,
                 status=remembered.get("status") if remembered.get("status") in ("passed", "failed") else
                 ("passed" if passed else "failed"),
                 stack=remembered.get("stack") if isinstance(remembered.get("stack"), dict) else {},
                 figures=_figures(remembered.get("figures") or []),
                 slow_reasons=[reason for reason in remembered.get("slow_reasons") or [] if isinstance(reason, str)],
                 failed_gates=remembered.get("failed_gates") if isinstance(remembered.get("failed_gates"), list) else [])
    return entry


def seconds(stamp: str) -> int | None:
    try:
        return calendar.timegm(time.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ"))
    except (TypeError, ValueError):
        return None


def age(created: str, written: str) -> int | None:
    """Seconds from a result's `written` to the report's `created` (None when either is not a time)."""
    start, end = seconds(written), seconds(created)
    return None if start is None or end is None else max(0, end - start)


def age_text(value: int | None) -> str:
    """"40 min", "5 h", "3 d" (None: "age unknown")."""
    if value is None:
        return "age unknown"
    if value < 3600:
        return "%d min" % (value // 60)
    if value < 86400 * 2:
        return "%d h" % (value // 3600)
    return "%d d" % (value // 86400)


def _gpu_key(row):
    return (row.get("uuid") or row.get("gpu"), row.get("test"))


def drop_flags(host: Mapping[str, Any], ratio: float = 0.9) -> list[dict[str, Any]]:
    """Flags "dropped": a GPU figure (its fastest repetition too) below `ratio` of the same GPU's (uuid, else
    index) figure of the same test, size and profile in the previous verification (a figure the previous report
    kept without size or profile is compared by test alone); h2d and d2h are not flagged."""
    previous = host.get("previous") or {}
    before = dict((_gpu_key(row), row) for row in previous.get("measured") or []
                  if isinstance(row, dict) and row.get("gpu") is not None)
    since = (previous.get("written") or "")[:10]
    flags = []
    for row in host.get("measured") or []:
        old = before.get(_gpu_key(row))
        if row.get("gpu") is None or old is None or not isinstance(old.get("value"), (int, float)) or old["value"] <= 0:
            continue
        if row.get("test") in HOST_PATH_TESTS or any(
                key in old and old[key] != row.get(key) for key in ("size", "profile")):
            continue
        if row["value"] < ratio * old["value"] and best(row) < ratio * old["value"]:
            flags.append(flag(host, row, "dropped", old["value"], "%s dropped since %s: %.4g %s is %.2f of its %.4g %s "
                              "then" % (row["test"], since, row["value"], row.get("unit"), row["value"] / old["value"],
                                        old["value"], row.get("unit"))))
            flags[-1]["since"] = since
    return flags
