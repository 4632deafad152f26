# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The trend of each host's key figures over its verifications, kept in the fleet report.

trend() gives the fleet document's `trend`: {host: {"GPU 0 gemm_bf16": [[written, value], ...]}}, one
series per GPU and key figure (gemm_bf16, memcpy, sustained; gemm_fp32 in CPU mode, "cpu gemm_fp32"),
oldest first. Each report carries the series of the report before it (the previous fleet.json's
`trend`, else what that report remembers of each host) and adds each host's result of this report
once (a point is its result's `written` time: the same result reported again adds nothing, so the
same results give the same report). A series keeps its newest CAP points. Pure functions, no Ansible
import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

CAP = 20


def series_name(row: Mapping[str, Any]) -> str:
    """"GPU 0 gemm_bf16", or "cpu gemm_fp32" for a CPU-mode figure."""
    return "%s %s" % ("cpu" if row.get("gpu") is None else "GPU %s" % row["gpu"], row.get("test"))


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _stored_series(points):
    """{written: value} of a stored series, its points that are [time text, number]."""
    return dict((point[0], point[1]) for point in points if isinstance(point, list) and len(point) == 2
                and isinstance(point[0], str) and point[0] and _number(point[1]))


def _prior(prior):
    """{host: {series: {written: value}}} of the previous report's `trend` (what is not a series is left out)."""
    found = {}
    trend = (prior or {}).get("trend")
    for host, series in (trend.items() if isinstance(trend, dict) else ()):
        if isinstance(series, dict):
            found[host] = dict((name, _stored_series(points)) for name, points in series.items()
                               if isinstance(name, str) and isinstance(points, list))
    return found


def _add(series, entry):
    """Add the key figures of a host entry (its `written` time) to {series: {written: value}}."""
    written = (entry or {}).get("written")
    if not isinstance(written, str) or not written:
        return
    for row in entry.get("figures") or []:
        if isinstance(row, dict) and _number(row.get("value")) and isinstance(row.get("test"), str):
            series.setdefault(series_name(row), {})[written] = row["value"]


def trend(hosts: Sequence[Mapping[str, Any]], prior: Mapping[str, Any] | None = None,
          remembered: Mapping[str, Any] = None, cap: int = CAP) -> dict[str, Any]:
    """{host: {series: [[written, value], ...]}} of the report's hosts (oldest first, at most `cap` points per
    series; hosts without a point are left out). `prior`: the previous fleet document; `remembered`: {host:
    the entry it remembers} (fleet_history.memories)."""
    old, remembered = _prior(prior), remembered or {}
    found = {}
    for host in hosts:
        series = dict((name, dict(points)) for name, points in old.get(host["host"], {}).items())
        _add(series, remembered.get(host["host"]))
        if host.get("source") in ("this run", "stored") and host.get("status") in ("passed", "failed"):
            _add(series, host)
        kept = dict((name, [[written, points[written]] for written in sorted(points)][-cap:])
                    for name, points in sorted(series.items()) if points)
        if kept:
            found[host["host"]] = kept
    return found
