# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Silently slow GPUs in a fleet: every benchmark figure against what its model is expected to reach,
and against its peers.

measured() takes every per-GPU figure of a verification result (gemm, memcpy, h2d, d2h, sdpa,
softmax, sustained, ...; every unit is a rate, higher is better) with its expected figure, where the
benchmark gave one (a per-SKU measurement of a healthy GPU of the model, at the same size).
outlier_flags() flags a figure below `expected_floor` of its expected figure (kind "expected"), and a
figure below `ratio` of the median of the same GPU model, test and size on the other hosts, or of its expected
figure where that is lower (kind "peers"; needs the model on two hosts or more). The theoretical peak is no floor: SDPA's flash backend
or a softmax over 8192 columns never reaches half of it on a healthy GPU. A figure without an
expected figure (no reference for that model, test or size, or an older verify.json) is compared
with its peers only. Each flag carries the clock event reasons of its figure and the GPU's sustained
clock. CPU-mode figures (no GPU) are not compared.

Only figures taken the same way are compared: the same size and the same profile (a standard run's
20 repetitions let power and clocks settle lower than a quick run's 10). A figure is flagged only when
its fastest repetition (`max`) is below the bound too: a short transient slows the median of a noisy
test (gemm_batched, 32 small products, spreads 0.1 on a healthy H100) but not its best repetition,
while a GPU slowed by another job, heat or a fault is slow in every repetition. h2d and d2h are not
flagged: a copy over PCIe measures the host (slot, CPU, memory, what else runs there) as much as the
GPU, and the link itself is judged by the health gates (generation and width under load, replays).
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.stats import median
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import expected_of

# Figures of the path between host and GPU: reported, never flagged (the health gates judge the link).
HOST_PATH_TESTS = ("h2d", "d2h")


def best(row: Mapping[str, Any]) -> float:
    """The figure's fastest repetition (`max`), else its value: what must be below a bound for a flag."""
    top = row.get("max")
    return top if isinstance(top, (int, float)) and top >= row["value"] else row["value"]


def comparable(row: Mapping[str, Any]) -> tuple[Any, Any, Any, Any]:
    """What makes two figures comparable: model, test, size and profile."""
    return (row.get("name"), row.get("test"), row.get("size"), row.get("profile"))


def measured(document: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """[{gpu, name, uuid, test, size, profile, value, max, unit, fraction_of_peak, expected, fraction_of_expected,
    reasons, sm_clock_mhz, ratio}]: every figure of the result that has a value, per device, sorted by GPU and
    test (expected: the expected figure's value, None without one; max: the fastest repetition)."""
    rows = []
    benchmark = (document or {}).get("benchmark") or {}
    profile = benchmark.get("profile")
    for device in benchmark.get("devices") or []:
        for test, fig in sorted((device.get("figures") or {}).items()):
            if not isinstance(fig, dict) or fig.get("value") is None:
                continue
            telemetry = fig.get("telemetry") or {}
            expected, fraction = expected_of(fig)
            rows.append({"gpu": device.get("index"), "name": device.get("name"), "uuid": device.get("uuid"),
                         "test": test, "size": fig.get("size"), "profile": profile, "value": fig["value"],
                         "max": fig.get("max"), "unit": fig.get("unit"),
                         "fraction_of_peak": fig.get("fraction_of_peak"), "expected": expected,
                         "fraction_of_expected": fraction, "reasons": telemetry.get("reasons") or [],
                         "sm_clock_mhz": (telemetry.get("sm_clock_mhz") or {}).get("median"),
                         "ratio": (fig.get("sustained") or {}).get("ratio")})
    return rows


def _gpu_rows(hosts):
    """(host name, row) of every GPU figure of the fleet (CPU-mode rows have gpu None and are left out)."""
    for host in hosts:
        for row in host.get("measured") or []:
            if row.get("gpu") is not None and isinstance(row.get("value"), (int, float)) and row.get("name") \
                    and isinstance(row.get("test"), str):
                yield host["host"], row


def sustained_clock(host: Mapping[str, Any], gpu: int | str | None) -> dict[str, Any] | None:
    """{sm_clock_mhz, ratio, reasons} of the GPU's sustained figure, or None."""
    for row in host.get("measured") or []:
        if row.get("gpu") == gpu and row.get("test") == "sustained":
            return {"sm_clock_mhz": row.get("sm_clock_mhz"), "ratio": row.get("ratio"), "reasons": row.get("reasons")}
    return None


def flag(host: Mapping[str, Any], row: Mapping[str, Any], kind: str, reference: float, text: str) -> dict[str, Any]:
    """One flag: the figure, what it was compared with, and why the GPU may be slow (reasons, clocks)."""
    return {"host": host["host"], "gpu": row.get("gpu"), "model": row.get("name"), "test": row["test"],
            "size": row.get("size"), "value": row["value"], "unit": row.get("unit"), "kind": kind,
            "reference": reference, "ratio": round(row["value"] / reference, 4) if reference else None,
            "fraction_of_peak": row.get("fraction_of_peak"), "fraction_of_expected": row.get("fraction_of_expected"),
            "reasons": list(row.get("reasons") or []), "sm_clock_mhz": row.get("sm_clock_mhz"),
            "sustained": sustained_clock(host, row.get("gpu")), "text": text}


def expected_flag(host: Mapping[str, Any], row: Mapping[str, Any], floor: float) -> dict[str, Any] | None:
    """The "expected" flag of a figure below `floor` of its expected figure, or None (no expected figure, or
    at or above the floor)."""
    expected, fraction = row.get("expected"), row.get("fraction_of_expected")
    if not isinstance(expected, (int, float)) or not isinstance(fraction, (int, float)) or fraction >= floor \
            or best(row) >= floor * expected:
        return None
    return flag(host, row, "expected", expected, "%s %.4g %s is %.2f of the expected %.4g %s (below %.2f)" % (
        row["test"], row["value"], row.get("unit"), fraction, expected, row.get("unit"), floor))


def peer_reference(middle: float, expected: Any) -> float:
    """What a figure is held to against its peers: their median, or the figure expected of the model where that is
    lower. Peers faster than a healthy GPU of the model do not make a figure that reaches it slow (32 hosts on one
    healthy H200: gemm_batched 560.1 TFLOP/s, 0.84 of the others' median 668.3, 0.91 of the expected 613.2)."""
    if isinstance(expected, (int, float)) and 0 < expected < middle:
        return expected
    return middle


def outlier_flags(hosts: Sequence[Mapping[str, Any]], ratio: float = 0.9,
                  expected_floor: float = 0.75) -> list[dict[str, Any]]:
    """Flags of every host's GPU figures: kind "expected" (below `expected_floor` of its expected figure) and
    kind "peers" (below `ratio` of the median of the same model, test, size and profile on the other hosts, or of
    the expected figure where that is lower),
    each only when the fastest repetition is below too; h2d and d2h are not flagged."""
    by_key = {}
    for name, row in _gpu_rows(hosts):
        by_key.setdefault(comparable(row), []).append((name, row["value"]))
    flags = []
    by_name = dict((host["host"], host) for host in hosts)
    for name, row in _gpu_rows(hosts):
        if row["test"] in HOST_PATH_TESTS:
            continue
        host = by_name[name]
        peers = [value for other, value in by_key[comparable(row)] if other != name]
        if peers:
            middle = median(peers)
            bound = ratio * peer_reference(middle, row.get("expected"))
            if middle > 0 and row["value"] < bound and best(row) < bound:
                flags.append(flag(host, row, "peers", middle, "%s %.4g %s is %.2f of the median of %d %s on other "
                                  "hosts (%.4g %s)" % (row["test"], row["value"], row["unit"], row["value"] / middle,
                                                       len(peers), row["name"], middle, row["unit"])))
        item = expected_flag(host, row, expected_floor)
        if item is not None:
            flags.append(item)
    return flags


def flag_text(item: Mapping[str, Any]) -> str:
    """The flag's text with its GPU (or GPU pair) and model, reasons and clocks, and the note of a result measured
    while busy: what a person reads first."""
    parts = ["%s: %s" % (item.get("where") or "GPU %s %s" % (item["gpu"], item["model"]), item["text"])]
    if item.get("sm_clock_mhz") is not None:
        parts.append("SM %.0f MHz" % item["sm_clock_mhz"])
    sustained = item.get("sustained") or {}
    if sustained.get("sm_clock_mhz") is not None:
        parts.append("sustained SM %.0f MHz" % sustained["sm_clock_mhz"])
    if sustained.get("ratio") is not None:
        parts.append("sustained/first %.2f" % sustained["ratio"])
    reasons = sorted(set(item.get("reasons") or []) | set(sustained.get("reasons") or []))
    if not item.get("where"):  # a GPU pair's or the all-reduce's figure has no clock telemetry
        parts.append("clock events: %s" % (", ".join(reasons) if reasons else "none"))
    if item.get("busy_note"):
        parts.append(item["busy_note"])
    return "; ".join(parts)
