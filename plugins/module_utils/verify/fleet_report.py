# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report: every host's verification result as one document, and as Markdown.

fleet() gathers the hosts' result documents (blackwell.pytorch.verify/1) and the previous
report's fleet.json into one document: a host not in this play is shown from its stored result
(with its age), a host never seen is missing, and every GPU figure is checked against its peers,
its peak (fleet_outliers.py) and its own previous verification (fleet_history.py). markdown()
renders it; fleet_html.py renders the HTML page. Pure functions, no Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_history, fleet_outliers
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import figure_text, key_figures

SCHEMA = "blackwell.pytorch.fleet/1"
DEFAULTS = {"outlier_ratio": 0.9, "drop_ratio": 0.9, "peak_floor": 0.5}
SLOW_REASONS = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")
# ASCII punctuation that Markdown (CommonMark / GFM tables) gives a meaning inside a table cell:
# each is escaped with a backslash, which CommonMark defines for every ASCII punctuation character.
# An underscore between two letters or digits cannot open or close emphasis and stays as it is
# (hw_thermal_slowdown reads as written in the raw file too).
_MD_SPECIAL = re.compile(r"[\\`*{}\[\]()<>#!|&~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")


def md_cell(text):
    """Text for one Markdown table cell (or list item): punctuation that would format, link, open
    HTML or end the cell (|) is backslash-escaped, and line breaks become spaces."""
    return _MD_SPECIAL.sub(lambda match: "\\" + match.group(0), " ".join(str(text).splitlines()))


def _stack(document):
    fp = document.get("fingerprint") or {}
    torch = fp.get("torch") or {}
    return {"driver": fp.get("driver_version"), "cuda_toolkit": fp.get("cuda_toolkit"),
            "torch": torch.get("version"), "torch_cuda": torch.get("cuda"), "packages": len(fp.get("packages") or []),
            "collection": fp.get("collection_version")}


def host_entry(name, document):
    """One host of the fleet document (a host without a result is listed as missing)."""
    if not isinstance(document, dict) or "passed" not in document:
        return {"host": name, "status": "missing", "passed": False, "written": None, "source": "none",
                "message": "no verification result", "stack": {}, "figures": [], "measured": [], "failed_gates": [],
                "flags": []}
    figures = key_figures(document)
    slow = sorted(set(reason for row in figures for reason in row["reasons"] if reason in SLOW_REASONS))
    return {"host": name, "status": "passed" if document["passed"] else "failed", "passed": document["passed"],
            "written": document.get("written"), "source": "this run", "measured": fleet_outliers.measured(document),
            "message": document.get("message"), "stack": _stack(document), "figures": figures,
            "slow_reasons": slow, "failed_gates": document.get("failed_gates") or [],
            "results": document.get("results"), "flags": []}


def _entry(name, document, remembered, in_play):
    """A host's entry: its result of this run (compared later with the one before), else its stored result
    when it is not in this play, else missing (keeping what it had before as `last_result`)."""
    entry = host_entry(name, document)
    if entry["status"] != "missing":
        entry["previous"] = fleet_history.previous_of(entry["written"], remembered)
    elif remembered is not None and not in_play:
        entry = fleet_history.stored(remembered)
        entry["message"] = "not in this play: its stored result of %s" % remembered["written"]
    elif remembered is not None:
        entry["message"] = "no verification result in this run (last result %s)" % remembered["written"]
        entry["last_result"] = dict((key, value) for key, value in remembered.items() if key != "flags")
    elif not in_play:
        entry["message"] = "not in this play and never verified"
    return entry


def _settings(settings):
    values = dict(DEFAULTS)
    values.update((key, value) for key, value in (settings or {}).items() if value is not None)
    for key, value in sorted(values.items()):
        if key not in DEFAULTS:
            raise ValueError("unknown setting %s (known: %s)" % (key, ", ".join(sorted(DEFAULTS))))
        try:  # -e fleet_report_drop_ratio=0.8 arrives as text
            number = float(value) if isinstance(value, str) else value
        except ValueError:
            number = None
        if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 < number <= 1:
            raise ValueError("%s must be a number above 0 and at most 1, got %r" % (key, value))
        values[key] = float(number)
    return values


def _previous_report(prior, problem, created):
    """{created, problem} of the report compared with; the same report written again keeps what it said."""
    if prior is None:
        return {"created": None, "problem": problem}
    if prior.get("created") == created and isinstance(prior.get("previous"), dict):
        return prior["previous"]
    return {"created": prior.get("created"), "problem": None}


def fleet(documents, previous=None, play_hosts=None, settings=None):
    """{schema, created, hosts (sorted by name), passed, failed, stale, missing, flagged, flags, settings,
    previous} from {host: result document or None}, the previous report (fleet.json text or document) and
    the hosts of this play (None: every host is in it). `settings`: outlier_ratio, drop_ratio, peak_floor."""
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
    flags = fleet_outliers.outlier_flags(hosts, values["outlier_ratio"], values["peak_floor"])
    for host in hosts:
        flags += fleet_history.drop_flags(host, values["drop_ratio"])
    for item in flags:
        item["detail"] = fleet_outliers.flag_text(item)
    by_name = dict((host["host"], host) for host in hosts)
    for item in sorted(flags, key=lambda f: (f["host"], str(f["gpu"]), f["test"], f["kind"])):
        by_name[item["host"]]["flags"].append(item)
    return {"schema": SCHEMA, "created": created, "hosts": hosts, "settings": values,
            "previous": _previous_report(prior, problem, created),
            "passed": [h["host"] for h in hosts if h["passed"]],
            "failed": [h["host"] for h in hosts if not h["passed"]],
            "stale": [h["host"] for h in hosts if h["source"] == "stored"],
            "missing": [h["host"] for h in hosts if h["status"] == "missing"],
            "flagged": [h["host"] for h in hosts if h["flags"]]}


def verdict_text(host):
    """"passed", "failed", "missing", or "passed (stored result, 3 d old)"."""
    if host.get("source") == "stored":
        return "%s (stored result, %s old)" % (host["status"], fleet_history.age_text(host.get("age_seconds")))
    return host["status"]


def require_fleet(report):
    """Raise ValueError unless `report` is a fleet() document (the renderers' input)."""
    missing = [key for key in ("created", "hosts", "passed", "failed") if key not in (report or {})]
    if missing:
        raise ValueError("not a fleet report document (no %s): give the output of fleet_report_data" % ", ".join(missing))


def summary_text(report):
    """"Results up to <time>. Passed: 3, failed or missing: 1. ..." (history and flags where there are)."""
    text = "Results up to %s. Passed: %d, failed or missing: %d." % (
        report["created"] or "-", len(report["passed"]), len(report["failed"]))
    if report.get("stale"):
        text += " Not in this play, shown from their stored result: %d." % len(report["stale"])
    settings = report.get("settings") or DEFAULTS
    counts = (len(report.get("flagged") or []), settings["outlier_ratio"], settings["peak_floor"], settings["drop_ratio"])
    text += (" Flagged: %d (a GPU figure below %.2f of its peers' median, below %.2f of its peak, or below %.2f"
             " of its previous verification)." % counts)
    problem = (report.get("previous") or {}).get("problem")
    return text + (" " + problem + "." if problem else "")


def markdown(report):
    require_fleet(report)
    lines = ["# Fleet verification report", "", md_cell(summary_text(report)), "",
             "| host | verdict | driver | CUDA | torch | key figures | slowdowns | flags |",
             "|---|---|---|---|---|---|---|---|"]
    for host in report["hosts"]:
        stack = host["stack"]
        cells = [md_cell(cell) for cell in (
            host["host"], verdict_text(host), stack.get("driver") or "-",
            stack.get("cuda_toolkit") or "-", stack.get("torch") or "-")]
        cells.append("<br>".join(md_cell("GPU %s: %s" % ("cpu" if r["gpu"] is None else r["gpu"], figure_text(r)))
                                 for r in host["figures"]) or "-")
        cells.append(md_cell(", ".join(host.get("slow_reasons") or []) or "-"))
        cells.append(md_cell(", ".join(sorted(set("%s %s" % (f["kind"], f["test"]) for f in host.get("flags") or [])))
                             or "-"))
        lines.append("| %s |" % " | ".join(cells))
    flagged = [host for host in report["hosts"] if host.get("flags")]
    if flagged:
        lines += ["", "## Flagged GPUs", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]), md_cell(item["detail"]))
                  for host in flagged for item in host["flags"]]
    failed = [host for host in report["hosts"] if not host["passed"]]
    if failed:
        lines += ["", "## Failures", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]), md_cell(host["message"])) for host in failed]
    return "\n".join(lines) + "\n"
