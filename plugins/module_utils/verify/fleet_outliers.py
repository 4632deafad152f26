# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Silently slow GPUs in a fleet: every benchmark figure against its peers and against its peak.

measured() takes every per-GPU figure of a verification result (gemm, memcpy, h2d, d2h,
sustained, ...; every unit is a rate, higher is better). outlier_flags() groups the fleet's
figures by GPU model (the device name verify.json records) and test: a figure below `ratio` of the
median of the same model and test on the other hosts is flagged (the comparison needs the model on
two hosts or more); a figure below `peak_floor` of the GPU's theoretical peak is flagged whatever
its peers do (with one host of a model, that is the only comparison). Each flag carries the clock
event reasons of its figure and the GPU's sustained clock. CPU-mode figures (no GPU) are not
compared. Pure functions, no Ansible import.
"""
from __future__ import annotations

MEASURED_KEYS = ("gpu", "name", "uuid", "test", "value", "unit", "fraction_of_peak", "reasons", "sm_clock_mhz",
                 "ratio")


def measured(document):
    """[{gpu, name, uuid, test, value, unit, fraction_of_peak, reasons, sm_clock_mhz, ratio}]: every figure
    of the result that has a value, per device, sorted by GPU and test."""
    rows = []
    benchmark = (document or {}).get("benchmark") or {}
    for device in benchmark.get("devices") or []:
        for test, fig in sorted((device.get("figures") or {}).items()):
            if not isinstance(fig, dict) or fig.get("value") is None:
                continue
            telemetry = fig.get("telemetry") or {}
            rows.append({"gpu": device.get("index"), "name": device.get("name"), "uuid": device.get("uuid"),
                         "test": test, "value": fig["value"], "unit": fig.get("unit"),
                         "fraction_of_peak": fig.get("fraction_of_peak"), "reasons": telemetry.get("reasons") or [],
                         "sm_clock_mhz": (telemetry.get("sm_clock_mhz") or {}).get("median"),
                         "ratio": (fig.get("sustained") or {}).get("ratio")})
    return rows


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0


def _gpu_rows(hosts):
    """(host name, row) of every GPU figure of the fleet (CPU-mode rows have gpu None and are left out)."""
    for host in hosts:
        for row in host.get("measured") or []:
            if row.get("gpu") is not None and isinstance(row.get("value"), (int, float)) and row.get("name") \
                    and isinstance(row.get("test"), str):
                yield host["host"], row


def sustained_clock(host, gpu):
    """{sm_clock_mhz, ratio, reasons} of the GPU's sustained figure, or None."""
    for row in host.get("measured") or []:
        if row.get("gpu") == gpu and row.get("test") == "sustained":
            return {"sm_clock_mhz": row.get("sm_clock_mhz"), "ratio": row.get("ratio"), "reasons": row.get("reasons")}
    return None


def flag(host, row, kind, reference, text):
    """One flag: the figure, what it was compared with, and why the GPU may be slow (reasons, clocks)."""
    return {"host": host["host"], "gpu": row.get("gpu"), "model": row.get("name"), "test": row["test"],
            "value": row["value"], "unit": row.get("unit"), "kind": kind, "reference": reference,
            "ratio": round(row["value"] / reference, 4) if reference else None,
            "fraction_of_peak": row.get("fraction_of_peak"), "reasons": list(row.get("reasons") or []),
            "sm_clock_mhz": row.get("sm_clock_mhz"), "sustained": sustained_clock(host, row.get("gpu")),
            "text": text}


def outlier_flags(hosts, ratio=0.9, peak_floor=0.5):
    """Flags of every host's GPU figures: kind "peers" (below `ratio` of the median of the same model and
    test on the other hosts) and kind "peak" (below `peak_floor` of the theoretical peak)."""
    by_key = {}
    for name, row in _gpu_rows(hosts):
        by_key.setdefault((row["name"], row["test"]), []).append((name, row["value"]))
    flags = []
    by_name = dict((host["host"], host) for host in hosts)
    for name, row in _gpu_rows(hosts):
        host = by_name[name]
        peers = [value for other, value in by_key[(row["name"], row["test"])] if other != name]
        if peers:
            middle = median(peers)
            if middle > 0 and row["value"] < ratio * middle:
                flags.append(flag(host, row, "peers", middle, "%s %.4g %s is %.2f of the median of %d %s on other "
                                  "hosts (%.4g %s)" % (row["test"], row["value"], row["unit"], row["value"] / middle,
                                                       len(peers), row["name"], middle, row["unit"])))
        fraction = row.get("fraction_of_peak")
        if isinstance(fraction, (int, float)) and fraction < peak_floor:
            flags.append(flag(host, row, "peak", None, "%s %.4g %s is %.2f of the GPU's peak (below %.2f)" % (
                row["test"], row["value"], row["unit"], fraction, peak_floor)))
    return flags


def flag_text(item):
    """The flag's text with its GPU, reasons and clocks: what a person reads first."""
    parts = ["GPU %s %s: %s" % (item["gpu"], item["model"], item["text"])]
    if item.get("sm_clock_mhz") is not None:
        parts.append("SM %.0f MHz" % item["sm_clock_mhz"])
    sustained = item.get("sustained") or {}
    if sustained.get("sm_clock_mhz") is not None:
        parts.append("sustained SM %.0f MHz" % sustained["sm_clock_mhz"])
    if sustained.get("ratio") is not None:
        parts.append("sustained/first %.2f" % sustained["ratio"])
    reasons = sorted(set(item.get("reasons") or []) | set(sustained.get("reasons") or []))
    parts.append("clock events: %s" % (", ".join(reasons) if reasons else "none"))
    return "; ".join(parts)
