# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report: every host's verification result as one document, and as Markdown.

fleet() gathers the hosts' result documents (blackwell.pytorch.verify/1) and the previous
report's fleet.json into one document: a host not in this play is shown from its stored result
(with its age), a host never seen is missing, a host whose GPUs were busy with another process is
busy (neither passed nor failed), and every GPU figure is checked against what its model is
expected to reach and against its peers (fleet_outliers.py; the P2P pairs and the all-reduce
against their expected figure, fleet_multi.py) and against its own previous verification
(fleet_history.py); `trend` holds each key figure's series over the reports (fleet_trend.py), and each host's
`low_precision` the FP8 / MXFP8 / NVFP4 recipes of its GPUs (fleet_low_precision.py).
markdown() renders it, a row per GPU named with its model; fleet_html.py renders the HTML page. Pure functions, no
Ansible import.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import (
    fleet_history, fleet_hosts, fleet_low_precision, fleet_multi, fleet_outliers, fleet_trend)
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_hosts import host_entry
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import figure_text

SCHEMA = "blackwell.pytorch.fleet/1"
DEFAULTS = {"outlier_ratio": 0.9, "drop_ratio": 0.9, "expected_floor": 0.75}
# neither passed nor failed: a result deferred while other users' processes held the GPUs, a check run's preview
NOT_JUDGED = ("busy", "preview")
# accepted for one release, and ignored with a note in the report's settings
DEPRECATED = {"peak_floor": "peak_floor is deprecated and ignored: a figure is compared with the figure expected of "
                            "its GPU model (expected_floor) and with its peers, never with the theoretical peak"}
# ASCII punctuation that Markdown (CommonMark / GFM tables) gives a meaning inside a table cell:
# each is escaped with a backslash, which CommonMark defines for every ASCII punctuation character.
# An underscore between two letters or digits cannot open or close emphasis and stays as it is
# (hw_thermal_slowdown reads as written in the raw file too).
_MD_SPECIAL = re.compile(r"[\\`*{}\[\]()<>#!|&~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_cell(text: str) -> str:
    """Text for one Markdown table cell (or list item): punctuation that would format, link, open
    HTML or end the cell (|) is backslash-escaped, and line breaks become spaces."""
    return _MD_SPECIAL.sub(lambda match: "\\" + match.group(0), " ".join(str(text).splitlines()))


def _entry(name, document, remembered, in_play):
    """A host's entry: its result of this run (compared later with the one before), else its stored result
    when it is not in this play, else missing (keeping what it had before as `last_result`, as a busy host
    does)."""
    entry = host_entry(name, document)
    entry["low_precision"] = fleet_low_precision.block(document) if entry["status"] in ("passed", "failed") else None
    if entry["status"] in NOT_JUDGED:
        if remembered is not None:  # kept for the reports after, as a missing host keeps it
            entry["last_result"] = dict((key, value) for key, value in remembered.items() if key != "flags")
    elif entry["status"] != "missing":
        entry["previous"] = fleet_history.previous_of(entry["written"], remembered)
    elif remembered is not None and not in_play:
        entry = fleet_history.stored(remembered)
        entry.setdefault("low_precision", None)  # a report older than the low-precision recipes
        entry["message"] = "not in this play: its stored result of %s" % remembered["written"]
    elif remembered is not None:
        entry["message"] = "no verification result in this run (last result %s)" % remembered["written"]
        entry["last_result"] = dict((key, value) for key, value in remembered.items() if key != "flags")
    elif not in_play:
        entry["message"] = "not in this play and never verified"
    return entry


def _fraction(key, value):
    try:  # -e fleet_report_drop_ratio=0.8 arrives as text
        number = float(value) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 < number <= 1:
        raise ValueError("%s must be a number above 0 and at most 1, got %r" % (key, value))
    return float(number)


def _settings(settings):
    """The thresholds (DEFAULTS where unset), and `notes` naming each deprecated setting given (ignored)."""
    given = dict((key, value) for key, value in (settings or {}).items() if value is not None)
    unknown = sorted(key for key in given if key not in DEFAULTS and key not in DEPRECATED)
    if unknown:
        raise ValueError("unknown setting %s (known: %s)" % (", ".join(unknown), ", ".join(sorted(DEFAULTS))))
    values = dict((key, _fraction(key, given.get(key, default))) for key, default in DEFAULTS.items())
    notes = [DEPRECATED[key] for key in sorted(DEPRECATED) if key in given]
    if notes:
        values["notes"] = notes
    return values


def _previous_report(prior, problem, created):
    """{created, problem} of the report compared with; the same report written again keeps what it said."""
    if prior is None:
        return {"created": None, "problem": problem}
    if prior.get("created") == created and isinstance(prior.get("previous"), dict):
        return prior["previous"]
    return {"created": prior.get("created"), "problem": None}


def _flags(hosts, values):
    """Every flag of the fleet, each with its detail text, sorted by host, GPU, test and kind."""
    flags = fleet_outliers.outlier_flags(hosts, values["outlier_ratio"], values["expected_floor"])
    for host in hosts:
        flags += fleet_multi.flags(host, values["expected_floor"])
        flags += fleet_history.drop_flags(host, values["drop_ratio"])
    by_name = dict((host["host"], host) for host in hosts)
    for item in flags:
        if by_name[item["host"]].get("busy_note"):
            item["busy_note"] = by_name[item["host"]]["busy_note"]
        item["detail"] = fleet_outliers.flag_text(item)
    return sorted(flags, key=lambda f: (f["host"], str(f["gpu"]), f["test"], f["kind"]))


def fleet(documents: Mapping[str, Mapping[str, Any] | None], previous: Mapping[str, Any] | str | None = None,
          play_hosts: Collection[str] | None = None, settings: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """{schema, created, hosts (sorted by name), passed, failed, busy, stale, missing, flagged, trend, settings,
    previous} from {host: result document or None}, the previous report (fleet.json text or document) and
    the hosts of this play (None: every host is in it). `settings`: outlier_ratio, drop_ratio, expected_floor
    (peak_floor: deprecated, ignored with a note)."""
    values = _settings(settings)
    prior, problem = fleet_history.parse(previous)
    remembered = fleet_history.memories(prior)
    in_play = None if play_hosts is None else set(play_hosts)
    hosts = [_entry(name, documents[name], remembered.get(name), in_play is None or name in in_play)
             for name in sorted(documents)]
    stamps = [h["written"] for h in hosts if h["source"] in ("this run", "stored") and isinstance(h["written"], str)]
    created = max(stamps) if stamps else ""
    for host in hosts:
        if host["source"] == "stored":
            host["age_seconds"] = fleet_history.age(created, host["written"])
    by_name = dict((host["host"], host) for host in hosts)
    for item in _flags(hosts, values):
        by_name[item["host"]]["flags"].append(item)
    return {"schema": SCHEMA, "created": created, "hosts": hosts, "settings": values,
            "previous": _previous_report(prior, problem, created),
            "passed": [h["host"] for h in hosts if h["passed"]],
            "failed": [h["host"] for h in hosts if not h["passed"] and h["status"] not in NOT_JUDGED],
            "busy": [h["host"] for h in hosts if h["status"] == "busy"],
            "preview": [h["host"] for h in hosts if h["status"] == "preview"],
            "stale": [h["host"] for h in hosts if h["source"] == "stored"],
            "missing": [h["host"] for h in hosts if h["status"] == "missing"],
            "flagged": [h["host"] for h in hosts if h["flags"]],
            "trend": fleet_trend.trend(hosts, prior, remembered)}


def verdict_text(host: Mapping[str, Any]) -> str:
    """"passed", "failed", "missing", "passed (stored result, 3 d old)", or a busy host's text ("busy: GPU 0 pid
    4242 (python3, user alice, 20.1 GiB)")."""
    if host.get("status") == "busy":
        return (host.get("busy") or {}).get("text") or "busy"
    if host.get("source") == "stored":
        return "%s (stored result, %s old)" % (host["status"], fleet_history.age_text(host.get("age_seconds")))
    return host["status"]


def gpu_verdict_text(host: Mapping[str, Any], row: Mapping[str, Any]) -> str:
    """The verdict of one GPU row (fleet_hosts.gpu_rows): "failed: gemm_bf16 min_fraction_of_expected", "passed
    (the host failed)" where another GPU or gate failed it, with the stored result's age and the note of a result
    measured while busy."""
    if host.get("status") not in ("passed", "failed"):
        return verdict_text(host)
    text = row["verdict"] or host["status"]
    if row.get("failed_gates"):
        text += ": " + ", ".join(row["failed_gates"])
    elif text == "passed" and not host.get("passed"):
        text += " (the host failed)"
    if host.get("source") == "stored":
        text += " (stored result, %s old)" % fleet_history.age_text(host.get("age_seconds"))
    return text + ("; " + host["busy_note"] if host.get("busy_note") else "")


def require_fleet(report: object) -> None:
    """Raise ValueError unless `report` is a fleet() document (the renderers' input)."""
    missing = [key for key in ("created", "hosts", "passed", "failed") if key not in (report or {})]
    if missing:
        raise ValueError("not a fleet report document (no %s): give the output of fleet_report_data" % ", ".join(missing))


def summary_text(report: Mapping[str, Any]) -> str:
    """"Results up to <time>. Passed: 3, failed or missing: 1. ..." (busy hosts, history, flags and notes where
    there are)."""
    text = "Results up to %s. Passed: %d, failed or missing: %d" % (
        report["created"] or "-", len(report["passed"]), len(report["failed"]))
    if report.get("busy"):
        text += ", busy (another process on a GPU: not judged): %d" % len(report["busy"])
    if report.get("preview"):
        text += ", check mode (the stack not there yet: not verified): %d" % len(report["preview"])
    text += "."
    if report.get("stale"):
        text += " Not in this play, shown from their stored result: %d." % len(report["stale"])
    settings = dict(DEFAULTS, **(report.get("settings") or {}))
    counts = (len(report.get("flagged") or []), settings["expected_floor"], settings["outlier_ratio"],
              settings["drop_ratio"])
    text += (" Flagged: %d (a figure below %.2f of the figure expected of its GPU model, below %.2f of the median"
             " of the same model and size on other hosts, or below %.2f of its previous verification)." % counts)
    text += "".join(" Note: %s." % note for note in settings.get("notes") or [])
    problem = (report.get("previous") or {}).get("problem")
    return text + (" " + problem + "." if problem else "")


def gpu_cells(host: Mapping[str, Any], row: Mapping[str, Any]) -> list[str]:
    """The cells of one GPU row that both renderers show: the GPU and its model ("GPU 0 NVIDIA GeForce RTX 4090",
    "cpu", "-"), verdict, key figures (the model is in the GPU cell beside them), slowdowns, flags."""
    return [row["label"], gpu_verdict_text(host, row), ", ".join(figure_text(fig) for fig in row["figures"]) or "-",
            ", ".join(row["slow_reasons"]) or "-",
            ", ".join(sorted(set("%s %s" % (f["kind"], f["test"]) for f in row["flags"]))) or "-"]


def _multi_markdown(report):
    lines = []
    for name, text, header, rows in fleet_multi.host_views(report):
        lines += ["", "**%s**: %s" % (md_cell(name), md_cell(text))]
        if header:
            lines += ["", "| %s |" % " | ".join(md_cell(cell) for cell in header), "|%s" % ("---|" * len(header))]
            lines += ["| %s |" % " | ".join(md_cell(("FLAGGED " if flag else "") + cell) for cell, flag in row)
                      for row in rows]
    return ["", "## Multi-GPU: P2P copy per GPU pair (from row to column) and all-reduce"] + lines if lines else []


def _low_precision_markdown(report):
    """The recipes of each GPU (fleet_low_precision.table) and, below, the reasons of those that do not run, one
    line per recipe and reason."""
    header, rows = fleet_low_precision.table(report)
    if not header:
        return []
    lines = ["", "## Low precision: which recipes run on each GPU", "",
             "| %s |" % " | ".join(md_cell(text) for text in header), "|%s" % ("---|" * len(header))]
    lines += ["| %s |" % " | ".join(md_cell(text) for text, _title, _state in row) for row in rows]
    found = fleet_low_precision.reasons(report)
    return lines + ([""] + ["- %s" % md_cell(fleet_low_precision.reason_text(item)) for item in found] if found else [])


def markdown(report: Mapping[str, Any]) -> str:
    """The fleet document as Markdown: the summary, a row per GPU of each host, the flagged figures, the low-precision
    recipes of each GPU, the multi-GPU figures, the busy hosts and the failures."""
    require_fleet(report)
    lines = ["# Fleet verification report", "", md_cell(summary_text(report)), "",
             "| host | GPU | verdict | driver | CUDA | torch | key figures | slowdowns | flags |",
             "|---|---|---|---|---|---|---|---|---|"]
    for host in report["hosts"]:
        stack = host["stack"]
        for row in fleet_hosts.gpu_rows(host):
            gpu, verdict, figures, slow, flags = gpu_cells(host, row)
            cells = [host["host"], gpu, verdict, stack.get("driver") or "-", stack.get("cuda_toolkit") or "-",
                     stack.get("torch") or "-", figures, slow, flags]
            lines.append("| %s |" % " | ".join(md_cell(cell) for cell in cells))
    flagged = [host for host in report["hosts"] if host.get("flags")]
    if flagged:
        lines += ["", "## Flagged GPUs", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]), md_cell(item["detail"]))
                  for host in flagged for item in host["flags"]]
    lines += _low_precision_markdown(report)
    lines += _multi_markdown(report)
    busy = [host for host in report["hosts"] if host["status"] == "busy"]
    if busy:
        lines += ["", "## Busy: another process on a GPU, not verified", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]),
                                    md_cell("%s (deferred at %s)" % (verdict_text(host), host["written"])))
                  for host in busy]
    failed = [host for host in report["hosts"] if not host["passed"] and host["status"] not in NOT_JUDGED]
    if failed:
        lines += ["", "## Failures", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]), md_cell(host["message"])) for host in failed]
    return "\n".join(lines) + "\n"
