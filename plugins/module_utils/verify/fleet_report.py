# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report: every host's verification result as JSON, Markdown and one self-contained HTML page.

fleet() gathers the hosts' result documents (blackwell.pytorch.verify/1) into one
document; markdown() and html() render it. The HTML has no external asset: inline CSS,
one inline SVG bar chart per key figure with a bar per host and GPU against its peak
(fraction of peak; the value itself in CPU mode), throttle reasons and failed gates
highlighted, and the stack versions per host. Pure functions, no Ansible import.
"""
from __future__ import annotations

import html as _html
import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import (
    KEY_TESTS, figure_text, key_figures)

SCHEMA = "blackwell.pytorch.fleet/1"
SLOW_REASONS = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")
CSS = ("body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}"
       "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}"
       ".fail{background:#fdd}.warn{background:#fff3cd}.pass{background:#dfd}h2{margin-top:28px}"
       "svg text{font-size:12px;font-family:sans-serif}")


def _esc(text):
    """Text for HTML element content or a quoted attribute: & < > " and ' escaped."""
    return _html.escape(str(text), quote=True)


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
        return {"host": name, "status": "missing", "passed": False, "written": None,
                "message": "no verification result", "stack": {}, "figures": [], "failed_gates": []}
    figures = key_figures(document)
    slow = sorted(set(reason for row in figures for reason in row["reasons"] if reason in SLOW_REASONS))
    return {"host": name, "status": "passed" if document["passed"] else "failed", "passed": document["passed"],
            "written": document.get("written"),
            "message": document.get("message"), "stack": _stack(document), "figures": figures,
            "slow_reasons": slow, "failed_gates": document.get("failed_gates") or [],
            "results": document.get("results")}


def newest(documents):
    """The newest `written` among the results ("" when none): the report's time and its directory's name.
    Reporting the same results twice gives the same report."""
    stamps = [doc.get("written") for doc in documents.values() if isinstance(doc, dict) and doc.get("written")]
    return max(stamps) if stamps else ""


def fleet(documents):
    """{schema, created, hosts (sorted by name), passed, failed} from {host: result document or None}."""
    hosts = [host_entry(name, documents[name]) for name in sorted(documents)]
    return {"schema": SCHEMA, "created": newest(documents), "hosts": hosts,
            "passed": [h["host"] for h in hosts if h["passed"]],
            "failed": [h["host"] for h in hosts if not h["passed"]]}


def require_fleet(report):
    """Raise ValueError unless `report` is a fleet() document (the renderers' input)."""
    missing = [key for key in ("created", "hosts", "passed", "failed") if key not in (report or {})]
    if missing:
        raise ValueError("not a fleet report document (no %s): give the output of fleet_report_data" % ", ".join(missing))


def markdown(report):
    require_fleet(report)
    lines = ["# Fleet verification report", "", "Results up to %s. Passed: %d, failed or missing: %d." % (
        report["created"], len(report["passed"]), len(report["failed"])), "",
        "| host | verdict | driver | CUDA | torch | key figures | slowdowns |", "|---|---|---|---|---|---|---|"]
    for host in report["hosts"]:
        stack = host["stack"]
        cells = [md_cell(cell) for cell in (
            host["host"], host["status"], stack.get("driver") or "-",
            stack.get("cuda_toolkit") or "-", stack.get("torch") or "-")]
        cells.append("<br>".join(md_cell("GPU %s: %s" % ("cpu" if r["gpu"] is None else r["gpu"], figure_text(r)))
                                 for r in host["figures"]) or "-")
        cells.append(md_cell(", ".join(host.get("slow_reasons") or []) or "-"))
        lines.append("| %s |" % " | ".join(cells))
    failed = [host for host in report["hosts"] if not host["passed"]]
    if failed:
        lines += ["", "## Failures", ""]
        lines += ["- **%s**: %s" % (md_cell(host["host"]), md_cell(host["message"])) for host in failed]
    return "\n".join(lines) + "\n"


def _bar_rows(report, test):
    rows = []
    for host in report["hosts"]:
        for row in host["figures"]:
            if row["test"] == test:
                rows.append((host, row))
    return rows


def svg_chart(report, test):
    """Inline SVG: one bar per host/GPU, its length the fraction of peak (or value / best value)."""
    rows = _bar_rows(report, test)
    if not rows:
        return ""
    use_peak = all(row["fraction_of_peak"] is not None for host, row in rows)
    best = max([row["value"] or 0 for host, row in rows] + [1e-12])
    height, label_w, bar_w = 26, 330, 420
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">'
             % (label_w + bar_w + 520, height * len(rows) + 24, _esc(test))]
    for position, (host, row) in enumerate(rows):
        y = position * height + 4
        share = row["fraction_of_peak"] if use_peak else (row["value"] or 0) / best
        share = max(0.0, min(1.0, share or 0.0))
        color = "#c0392b" if not host["passed"] else "#e67e22" if (set(row["reasons"]) & set(SLOW_REASONS)) \
            else "#2e86c1"
        label = "%s GPU %s" % (host["host"], "cpu" if row["gpu"] is None else row["gpu"])
        parts.append('<text x="0" y="%d">%s</text>' % (y + 15, _esc(label)))
        parts.append('<rect x="%d" y="%d" width="%d" height="18" fill="#eee"/>' % (label_w, y, bar_w))
        parts.append('<rect x="%d" y="%d" width="%.1f" height="18" fill="%s"/>' % (label_w, y, bar_w * share, color))
        parts.append('<text x="%d" y="%d">%s</text>' % (label_w + bar_w + 6, y + 15, _esc(figure_text(row))))
    axis = "fraction of peak (bar end = 1.0)" if use_peak else "relative to the best host"
    parts.append('<text x="%d" y="%d">%s</text></svg>' % (label_w, height * len(rows) + 18, axis))
    return "".join(parts)


def _host_row(host):
    cls = "pass" if host["passed"] else "fail"
    if host["passed"] and host.get("slow_reasons"):
        cls = "warn"
    stack = host["stack"]
    cells = [host["host"], host["status"], stack.get("driver") or "-",
             stack.get("cuda_toolkit") or "-", "%s (CUDA %s)" % (stack.get("torch") or "-", stack.get("torch_cuda") or "-"),
             stack.get("packages") or "-", ", ".join(host.get("slow_reasons") or []) or "-", host["written"] or "-"]
    return '<tr class="%s">%s</tr>' % (cls, "".join("<td>%s</td>" % _esc(cell) for cell in cells))


def html(report):
    require_fleet(report)
    hosts = report["hosts"]
    tests = [test for test in KEY_TESTS + ("gemm_fp32",) if any(_bar_rows(report, test))]
    body = ["<h1>Fleet verification report</h1>",
            "<p>Results up to %s. <b>%d passed</b>, <b>%d failed or missing</b>.</p>" % (
                _esc(report["created"]), len(report["passed"]), len(report["failed"])),
            "<table><tr><th>host</th><th>verdict</th><th>driver</th><th>CUDA toolkit</th><th>torch</th>"
            "<th>packages</th><th>slowdowns</th><th>written</th></tr>"]
    body += [_host_row(host) for host in hosts]
    body.append("</table>")
    for test in tests:
        body.append('<h2 id="%s">%s</h2>%s' % (_esc(test), _esc(test), svg_chart(report, test)))
    failed = [host for host in hosts if not host["passed"]]
    if failed:
        body.append("<h2>Failures</h2><ul>")
        body += ['<li class="fail"><b>%s</b>: %s</li>' % (_esc(h["host"]), _esc(h["message"])) for h in failed]
        body.append("</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fleet verification report</title>'
            "<style>%s</style></head><body>%s</body></html>\n" % (CSS, "\n".join(body)))
