# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report as one self-contained HTML page.

No external asset: inline CSS and one inline SVG bar chart per key figure, a bar per host and GPU
against its peak (fraction of peak, with a tick at the median of the same GPU model; the value
relative to the best host in CPU mode). The flagged GPUs come first (slow against their peers or
their peak, or dropped since their previous verification, with clock-event reasons and clocks),
then a row per host (failed, flagged, slowed and stored results highlighted, each stored result
with its age), the charts and the failures. Pure functions, no Ansible import.
"""
from __future__ import annotations

import html as _html

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_outliers import median
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_report import (
    SLOW_REASONS, require_fleet, summary_text, verdict_text)
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import KEY_TESTS, figure_text

CSS = ("body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}"
       "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}td:first-child{white-space:nowrap}"
       ".fail{background:#fdd}.warn{background:#fff3cd}.pass{background:#dfd}.flag{background:#ead7f5}"
       ".stale td{color:#666;font-style:italic}h2{margin-top:28px}"
       "svg text{font-size:12px;font-family:sans-serif}")
COLORS = {"failed": "#c0392b", "flagged": "#8e44ad", "slowed": "#e67e22", "ok": "#2e86c1"}
LEGEND = ("Bar colours: red, the host failed; purple, the figure is flagged; orange, a thermal or hardware "
          "slowdown; blue, none of these.")
TICK = " The dark tick is the median of the same GPU model."


def _esc(text):
    """Text for HTML element content or a quoted attribute: & < > " and ' escaped."""
    return _html.escape(str(text), quote=True)


def _bar_rows(report, test):
    rows = []
    for host in report["hosts"]:
        for row in host["figures"]:
            if row["test"] == test:
                rows.append((host, row))
    return rows


def _flag_of(host, row):
    for item in host.get("flags") or []:
        if item["gpu"] == row["gpu"] and item["test"] == row["test"]:
            return item
    return None


def _model_medians(rows):
    by_model = {}
    for host, row in rows:
        if row["gpu"] is not None and row["fraction_of_peak"] is not None:
            by_model.setdefault(row["name"], []).append(row["fraction_of_peak"])
    return dict((name, median(values)) for name, values in by_model.items() if len(values) > 1)


def _label(host, row):
    label = "%s GPU %s" % (host["host"], "cpu" if row["gpu"] is None else row["gpu"])
    return label + (" (stored)" if host.get("source") == "stored" else "")


def svg_chart(report, test):
    """Inline SVG: one bar per host/GPU, its length the fraction of peak (or value / best value)."""
    rows = _bar_rows(report, test)
    if not rows:
        return ""
    use_peak = all(row["fraction_of_peak"] is not None for host, row in rows)
    best = max([row["value"] or 0 for host, row in rows] + [1e-12])
    medians = _model_medians(rows) if use_peak else {}
    height, label_w, bar_w = 26, 240, 300
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">'
             % (label_w + bar_w + 600, height * len(rows) + 24, _esc(test))]
    for position, (host, row) in enumerate(rows):
        y = position * height + 4
        share = row["fraction_of_peak"] if use_peak else (row["value"] or 0) / best
        share = max(0.0, min(1.0, share or 0.0))
        flagged = _flag_of(host, row)
        color = COLORS["failed"] if not host["passed"] else COLORS["flagged"] if flagged else \
            COLORS["slowed"] if (set(row["reasons"]) & set(SLOW_REASONS)) else COLORS["ok"]
        parts.append('<text x="0" y="%d">%s</text>' % (y + 15, _esc(_label(host, row))))
        parts.append('<rect x="%d" y="%d" width="%d" height="18" fill="#eee"/>' % (label_w, y, bar_w))
        parts.append('<rect x="%d" y="%d" width="%.1f" height="18" fill="%s"/>' % (label_w, y, bar_w * share, color))
        if row["name"] in medians and row["gpu"] is not None:
            x = label_w + bar_w * max(0.0, min(1.0, medians[row["name"]]))
            parts.append('<rect x="%.1f" y="%d" width="2" height="22" fill="#222"/>' % (x - 1, y - 2))
        text = ("FLAGGED (%s): " % flagged["kind"] if flagged else "") + figure_text(row)
        parts.append('<text x="%d" y="%d">%s</text>' % (label_w + bar_w + 6, y + 15, _esc(text)))
    axis = "fraction of peak (bar end = 1.0)" if use_peak else "relative to the best host"
    parts.append('<text x="%d" y="%d">%s</text></svg>' % (label_w, height * len(rows) + 18, axis))
    return "".join(parts)


def _host_row(host):
    cls = "pass" if host["passed"] else "fail"
    if host["passed"] and host.get("flags"):
        cls = "flag"
    elif host["passed"] and host.get("slow_reasons"):
        cls = "warn"
    if host.get("source") == "stored":
        cls += " stale"
    stack = host["stack"]
    cells = [host["host"], verdict_text(host), stack.get("driver") or "-", stack.get("cuda_toolkit") or "-",
             "%s (CUDA %s)" % (stack.get("torch") or "-", stack.get("torch_cuda") or "-"),
             stack.get("packages") or "-", ", ".join(host.get("slow_reasons") or []) or "-",
             len(host.get("flags") or []) or "-", host["written"] or "-"]
    return '<tr class="%s">%s</tr>' % (cls, "".join("<td>%s</td>" % _esc(cell) for cell in cells))


def _clock_cell(item):
    sustained = item.get("sustained") or {}
    parts = []
    if item.get("sm_clock_mhz") is not None:
        parts.append("SM %.0f MHz" % item["sm_clock_mhz"])
    if sustained.get("sm_clock_mhz") is not None:
        parts.append("sustained SM %.0f MHz" % sustained["sm_clock_mhz"])
    if sustained.get("ratio") is not None:
        parts.append("sustained/first %.2f" % sustained["ratio"])
    return ", ".join(parts) or "-"


def flag_table(report):
    """The flagged figures: host, GPU, model, figure, what it was compared with, clock events, clocks."""
    rows = []
    for host in report["hosts"]:
        for item in host.get("flags") or []:
            sustained = item.get("sustained") or {}
            reasons = sorted(set(item.get("reasons") or []) | set(sustained.get("reasons") or []))
            cells = [host["host"] + (" (stored)" if host.get("source") == "stored" else ""), item["gpu"],
                     item["model"], item["kind"], item["text"], ", ".join(reasons) or "none", _clock_cell(item)]
            rows.append('<tr class="flag">%s</tr>' % "".join("<td>%s</td>" % _esc(cell) for cell in cells))
    if not rows:
        return "<p>No GPU flagged.</p>"
    return ("<table><tr><th>host</th><th>GPU</th><th>model</th><th>flag</th><th>figure</th><th>clock events</th>"
            "<th>clocks</th></tr>%s</table>" % "".join(rows))


def html(report):
    require_fleet(report)
    hosts = report["hosts"]
    tests = [test for test in KEY_TESTS + ("gemm_fp32",) if any(_bar_rows(report, test))]
    body = ["<h1>Fleet verification report</h1>",
            "<p>%s</p>" % _esc(summary_text(report)),
            "<p><b>%d passed</b>, <b>%d failed or missing</b>, <b>%d flagged</b>.</p>" % (
                len(report["passed"]), len(report["failed"]), len(report.get("flagged") or [])),
            '<h2 id="flagged">Flagged GPUs</h2>', flag_table(report), "<h2>Hosts</h2>",
            "<table><tr><th>host</th><th>verdict</th><th>driver</th><th>CUDA toolkit</th><th>torch</th>"
            "<th>packages</th><th>slowdowns</th><th>flags</th><th>written</th></tr>"]
    body += [_host_row(host) for host in hosts]
    body.append("</table>")
    charts = [svg_chart(report, test) for test in tests]
    if charts:
        body.append("<p>%s</p>" % _esc(LEGEND + (TICK if any('fill="#222"' in chart for chart in charts) else "")))
    for test, chart in zip(tests, charts):
        body.append('<h2 id="%s">%s</h2>%s' % (_esc(test), _esc(test), chart))
    failed = [host for host in hosts if not host["passed"]]
    if failed:
        body.append("<h2>Failures</h2><ul>")
        body += ['<li class="fail"><b>%s</b>: %s</li>' % (_esc(h["host"]), _esc(h["message"])) for h in failed]
        body.append("</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fleet verification report</title>'
            "<style>%s</style></head><body>%s</body></html>\n" % (CSS, "\n".join(body)))
