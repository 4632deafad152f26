# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The multi-GPU figures of a host in the fleet report: the P2P copy of each ordered GPU pair and the
all-reduce, each with the figure expected of its link where the benchmark gave one.

block() gives a host entry's `multi_gpu`: {gpus, status, error, p2p: [one row per ordered pair], allreduce}
(None for a result without multi-GPU figures). flags() flags a pair, or the all-reduce, below the floor
of its expected figure (kind "expected", as a GPU figure; these figures are not compared with other
hosts, whose links differ). matrix() lays the pairs out for the renderers: a row per source GPU, a
column per destination. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_outliers import expected_flag
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import expected_of

LINKS = {"nvlink": "NVLink", "pcie": "PCIe"}


def models_text(names: Sequence[str]) -> str:
    """"2 x NVIDIA H200", or the names joined where they differ."""
    names = [str(name) for name in names]
    if names and len(set(names)) == 1:
        return "%d x %s" % (len(names), names[0]) if len(names) > 1 else names[0]
    return ", ".join(names)


def _link(topology, src, dst):
    """"NVLink 4.0 x18", "PCIe" or None: the link between two GPUs as the topology reading names it."""
    pair = ((topology or {}).get("pairs") or {}).get("%s->%s" % (src, dst)) if isinstance(topology, dict) else None
    if not isinstance(pair, dict) or not pair.get("link"):
        return None
    if pair["link"] == "nvlink":
        return "NVLink %s x%s" % (pair.get("nvlink_version") or "?", pair.get("links") or "?")
    return LINKS.get(pair["link"], str(pair["link"]))


def _row(fig, test, gpu, name, where):
    expected, fraction = expected_of(fig)
    value = fig.get("value")
    return {"test": test, "gpu": gpu, "name": name, "where": where,
            "value": value if isinstance(value, (int, float)) and not isinstance(value, bool) else None,
            "unit": fig.get("unit"), "size": fig.get("size"), "status": fig.get("status"), "error": fig.get("error"),
            "expected": expected, "fraction_of_expected": fraction, "reasons": [], "sm_clock_mhz": None}


def block(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """{gpus, status, error, p2p, allreduce} of a result's multi-GPU figures, or None without them."""
    benchmark = (document or {}).get("benchmark") or {}
    multi = benchmark.get("multi_gpu")
    if not isinstance(multi, dict):
        return None
    names = dict((device.get("index"), device.get("name")) for device in benchmark.get("devices") or []
                 if isinstance(device, dict))
    figures = multi.get("figures") if isinstance(multi.get("figures"), dict) else {}
    p2p = []
    for fig in figures.get("p2p") or []:
        if not isinstance(fig, dict) or fig.get("src") is None or fig.get("dst") is None:
            continue
        src, dst = fig["src"], fig["dst"]
        row = _row(fig, "p2p", "%s->%s" % (src, dst), "%s -> %s" % (names.get(src), names.get(dst)),
                   "GPU %s -> GPU %s (%s -> %s)" % (src, dst, names.get(src), names.get(dst)))
        row.update(src=src, dst=dst, src_name=names.get(src), dst_name=names.get(dst),
                   link=_link(multi.get("topology"), src, dst))
        p2p.append(row)
    gpus = [index for index in multi.get("gpus") or [] if isinstance(index, int)]
    allreduce = figures.get("allreduce")
    if isinstance(allreduce, dict):
        models = models_text([names.get(index) for index in gpus])
        allreduce = _row(allreduce, "allreduce", ",".join(str(index) for index in gpus), models,
                         "GPUs %s (%s)" % (", ".join(str(index) for index in gpus), models))
        allreduce["ranks"] = figures["allreduce"].get("ranks")
    else:
        allreduce = None
    return {"gpus": gpus or sorted(set([row["src"] for row in p2p] + [row["dst"] for row in p2p])),
            "status": multi.get("status"), "error": multi.get("error"), "p2p": p2p, "allreduce": allreduce}


def flags(host: Mapping[str, Any], floor: float) -> list[dict[str, Any]]:
    """"expected" flags of the host's P2P pairs and all-reduce below `floor` of their expected figure."""
    found = []
    multi = host.get("multi_gpu") if isinstance(host.get("multi_gpu"), dict) else {}
    for row in list(multi.get("p2p") or []) + [multi.get("allreduce")]:
        if isinstance(row, dict) and row.get("value") is not None:
            item = expected_flag(host, row, floor)
            if item is not None:
                item["where"] = row["where"]
                found.append(item)
    return found


def figure_text(row: Mapping[str, Any]) -> str:
    """"387.9 GB/s (0.86 of expected 450 GB/s, NVLink 4.0 x18)", or the status of a figure without a value."""
    if row.get("value") is None:
        return "%s%s" % (row.get("status") or "no figure", " (%s)" % row["error"] if row.get("error") else "")
    extra = []
    if row.get("fraction_of_expected") is not None:
        extra.append("%.2f of expected %.4g %s" % (row["fraction_of_expected"], row["expected"], row.get("unit")))
    if row.get("link"):
        extra.append(row["link"])
    return "%.4g %s" % (row["value"], row.get("unit")) + (" (%s)" % ", ".join(extra) if extra else "")


def allreduce_text(multi: Mapping[str, Any]) -> str:
    """"all-reduce over GPUs 0, 1 (2 x NVIDIA H200): bus bandwidth 294.8 GB/s (...), mib=256, 2 ranks", or None."""
    row = (multi or {}).get("allreduce")
    if not isinstance(row, dict):
        return None
    kind = "" if row.get("value") is None else "bus bandwidth "
    text = "all-reduce over %s: %s%s" % (row["where"], kind, figure_text(row))
    ranks = "%s ranks" % row["ranks"] if row.get("ranks") else None
    return text + "".join(", %s" % part for part in (row.get("size"), ranks) if part)


def matrix(multi: Mapping[str, Any],
           flagged: Collection[str] = ()) -> tuple[list[str] | None, list[list[tuple[str, bool]]]]:
    """(header, rows) of the P2P matrix: header ["from \\ to", "GPU 0 <model>", ...]; each row [(text, flagged)]:
    the source GPU, then one cell per destination ("-" on the diagonal and where no pair was measured).
    `flagged`: the "src->dst" keys of flagged pairs."""
    pairs = dict(((row["src"], row["dst"]), row) for row in (multi or {}).get("p2p") or [])
    if not pairs:
        return None, []
    names = {}
    for row in pairs.values():
        names.setdefault(row["src"], row.get("src_name"))
        names.setdefault(row["dst"], row.get("dst_name"))
    gpus = sorted(names)
    header = ["from \\ to"] + ["GPU %s %s" % (gpu, names[gpu]) for gpu in gpus]
    rows = []
    for src in gpus:
        cells = [("GPU %s %s" % (src, names[src]), False)]
        for dst in gpus:
            row = pairs.get((src, dst))
            cells.append(("-", False) if row is None else (figure_text(row), row["gpu"] in flagged))
        rows.append(cells)
    return header, rows


def host_views(report: Mapping[str, Any]) -> list[tuple[str, str, list[str] | None, list[list[tuple[str, bool]]]]]:
    """[(host name, all-reduce text, matrix header, matrix rows)] of every multi-GPU host of a fleet document, in
    order: what the Markdown and the HTML pages draw (a flagged all-reduce or pair is marked in both)."""
    views = []
    for host in report["hosts"]:
        multi = host.get("multi_gpu") if isinstance(host.get("multi_gpu"), dict) else None
        if not multi:
            continue
        flagged = set(item["gpu"] for item in host.get("flags") or [] if item["test"] == "p2p")
        header, rows = matrix(multi, flagged)
        text = allreduce_text(multi) or ("no all-reduce figure" + (": %s" % multi["error"] if multi.get("error") else ""))
        if any(item["test"] == "allreduce" for item in host.get("flags") or []):
            text = "FLAGGED (expected): " + text
        views.append((host["host"], text, header, rows))
    return views
