# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet report as one self-contained HTML page.

No external asset, no script: inline CSS and inline SVG. One bar chart per key figure, a bar per host
and GPU against its peak (fraction of peak, with a dark tick at the median of the same GPU model and a
green tick at the figure expected of the model; the value relative to the best host in CPU mode), each
bar's text naming the GPU and its model. The flagged figures come first (below the figure expected of
their model, below their peers, or dropped since their previous verification, with clock-event reasons
and clocks), then a row per host and GPU (each GPU with its own verdict; failed, flagged, slowed,
busy and stored results highlighted, each stored result with its age), the charts, the low-precision
recipes of each GPU (a cell per recipe, the reason of a refusal as its title), the P2P matrix and
all-reduce of each multi-GPU host, a sparkline per host and GPU (with its model) of each key figure over the reports,
and the failures. Every text from a result is escaped. Pure functions, no Ansible import.
"""
from __future__ import annotations

import html as _html
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.stats import median
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import (
    fleet_hosts, fleet_low_precision, fleet_multi)
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_hosts import SLOW_REASONS
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_report import (
    NOT_JUDGED, gpu_cells, require_fleet, summary_text)
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import (
    CPU_KEY_TESTS, KEY_TESTS, figure_text, gpu_text)

CSS = ("body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;margin:8px 0 24px}"
       "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left;font-size:14px}td:first-child{white-space:nowrap}"
       ".fail{background:#fdd}.warn{background:#fff3cd}.pass{background:#dfd}.flag{background:#ead7f5}"
       ".busy{background:#d6eaf8}.stale td{color:#666;font-style:italic}h2{margin-top:28px}"
       "td svg{vertical-align:middle;margin-right:6px}td.n{white-space:nowrap}td.w{min-width:10em}td.v{min-width:8em}"
       "td.s{min-width:15em}svg text{font-size:12px;font-family:sans-serif}")
COLORS = {"failed": "#c0392b", "flagged": "#8e44ad", "slowed": "#e67e22", "ok": "#2e86c1"}
EXPECTED_TICK = "#27ae60"
LEGEND = ("Bar colours: red, the GPU failed; purple, the figure is flagged; orange, a thermal or hardware "
          "slowdown; blue, none of these.")
TICK = " The dark tick is the median of the same GPU model."
GREEN_TICK = " The green tick is the figure expected of the GPU model (a flag below %.2f of it)."


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


def _flags_of(host, row):
    """The kinds of the host's flags on this GPU's figure, sorted."""
    return sorted(set(item["kind"] for item in host.get("flags") or []
                      if item["gpu"] == row["gpu"] and item["test"] == row["test"]))


def _model_medians(rows):
    by_model = {}
    for host, row in rows:
        if row["gpu"] is not None and row["fraction_of_peak"] is not None:
            by_model.setdefault(row["name"], []).append(row["fraction_of_peak"])
    return dict((name, median(values)) for name, values in by_model.items() if len(values) > 1)


def _label(host, row):
    label = "%s GPU %s" % (host["host"], "cpu" if row["gpu"] is None else row["gpu"])
    return label + (" (stored)" if host.get("source") == "stored" else "")


def _bar_text(host, row):
    """"FLAGGED (expected, peers): GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 587.5 TFLOP/s (...)": the text beside a
    bar."""
    flags = _flags_of(host, row)
    prefix = "FLAGGED (%s): " % ", ".join(flags) if flags else ""
    return prefix + "%s: %s" % (gpu_text(row["gpu"], row["name"]), figure_text(row))


def _share(value):
    return max(0.0, min(1.0, value or 0.0))


def svg_chart(report: Mapping[str, Any], test: str) -> str:
    """Inline SVG: one bar per host/GPU, its length the fraction of peak (or value / best value), its text the
    GPU, its model and the figure."""
    rows = _bar_rows(report, test)
    if not rows:
        return ""
    use_peak = all(row["fraction_of_peak"] is not None for host, row in rows)
    best = max([row["value"] or 0 for host, row in rows] + [1e-12])
    medians = _model_medians(rows) if use_peak else {}
    height, label_w, bar_w = 26, 170, 260
    texts = [_bar_text(host, row) for host, row in rows]
    width = label_w + bar_w + 12 + int(6.4 * max(len(text) for text in texts))  # 12 px sans-serif: ~6 px a character
    parts = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">'
             % (width, height * len(rows) + 24, _esc(test))]
    for position, (host, row) in enumerate(rows):
        y = position * height + 4
        share = _share(row["fraction_of_peak"] if use_peak else (row["value"] or 0) / best)
        flags = _flags_of(host, row)
        failed = fleet_hosts.gpu_verdict(host, row["gpu"]) != "passed"  # each GPU judged as itself
        color = COLORS["failed"] if failed else COLORS["flagged"] if flags else \
            COLORS["slowed"] if (set(row["reasons"]) & set(SLOW_REASONS)) else COLORS["ok"]
        parts.append('<text x="0" y="%d">%s</text>' % (y + 15, _esc(_label(host, row))))
        parts.append('<rect x="%d" y="%d" width="%d" height="18" fill="#eee"/>' % (label_w, y, bar_w))
        parts.append('<rect x="%d" y="%d" width="%.1f" height="18" fill="%s"/>' % (label_w, y, bar_w * share, color))
        if row["name"] in medians and row["gpu"] is not None:
            x = label_w + bar_w * _share(medians[row["name"]])
            parts.append('<rect x="%.1f" y="%d" width="2" height="22" fill="#222"/>' % (x - 1, y - 2))
        if use_peak and row.get("expected") and row.get("peak"):
            x = label_w + bar_w * _share(row["expected"] / row["peak"])
            parts.append('<rect x="%.1f" y="%d" width="2" height="22" fill="%s"/>' % (x - 1, y - 2, EXPECTED_TICK))
        parts.append('<text x="%d" y="%d">%s</text>' % (label_w + bar_w + 6, y + 15, _esc(texts[position])))
    axis = "fraction of peak (bar end = 1.0)" if use_peak else "relative to the best host"
    parts.append('<text x="%d" y="%d">%s</text></svg>' % (label_w, height * len(rows) + 18, axis))
    return "".join(parts)


def _row_class(host, row):
    if host["status"] in NOT_JUDGED:
        return "busy"
    cls = "pass" if row["verdict"] == "passed" else "fail"
    if cls == "pass" and row["flags"]:
        cls = "flag"
    elif cls == "pass" and row["slow_reasons"]:
        cls = "warn"
    return cls + (" stale" if host.get("source") == "stored" else "")


def _short_figure(row):
    """"gemm_bf16 795 TFLOP/s (0.98 of expected, 0.80 of peak)": a figure with its fractions alone (the charts
    carry clocks and reasons)."""
    return figure_text(dict(row, ratio=None, sm_clock_mhz=None, reasons=[]))


def _stack_lines(stack):
    """["driver 580.159.04, CUDA toolkit 13.0.2", "torch 2.11.0+cu130 (CUDA 13.0), 2 packages"], or ["-"]."""
    if not stack:
        return ["-"]
    packages = stack.get("packages") or 0
    return ["driver %s, CUDA toolkit %s" % (stack.get("driver") or "-", stack.get("cuda_toolkit") or "-"),
            "torch %s (CUDA %s), %s package%s" % (stack.get("torch") or "-", stack.get("torch_cuda") or "-", packages,
                                                  "" if packages == 1 else "s")]


def _host_rows(host):
    """One table row per GPU of the host (one for a host without figures): the GPU and its model beside its
    figures, one figure a line."""
    rows = []
    for row in fleet_hosts.gpu_rows(host):
        gpu, verdict, figures, slow, flags = gpu_cells(host, row)
        cells = ["<td>%s</td>" % _esc(host["host"]), '<td class="w">%s</td>' % _esc(row["label"]),
                 '<td class="v">%s</td>' % _esc(verdict),
                 '<td class="s">%s</td>' % "<br>".join(_esc(line) for line in _stack_lines(host["stack"])),
                 '<td class="n">%s</td>' % ("<br>".join(_esc(_short_figure(fig)) for fig in row["figures"]) or "-"),
                 "<td>%s</td>" % _esc(slow), "<td>%s</td>" % _esc(flags), "<td>%s</td>" % _esc(host["written"] or "-")]
        rows.append('<tr class="%s">%s</tr>' % (_row_class(host, row), "".join(cells)))
    return rows


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


def flag_table(report: Mapping[str, Any]) -> str:
    """The flagged figures: host, GPU, model, figure, what it was compared with, clock events, clocks."""
    rows = []
    for host in report["hosts"]:
        for item in host.get("flags") or []:
            sustained = item.get("sustained") or {}
            reasons = sorted(set(item.get("reasons") or []) | set(sustained.get("reasons") or []))
            figure = item["text"] + ("; " + item["busy_note"] if item.get("busy_note") else "")
            cells = [host["host"] + (" (stored)" if host.get("source") == "stored" else ""), item["gpu"],
                     item["model"], item["kind"], figure, ", ".join(reasons) or "none", _clock_cell(item)]
            rows.append('<tr class="flag">%s</tr>' % "".join("<td>%s</td>" % _esc(cell) for cell in cells))
    if not rows:
        return "<p>No GPU flagged.</p>"
    return ("<table><tr><th>host</th><th>GPU</th><th>model</th><th>flag</th><th>figure</th><th>clock events</th>"
            "<th>clocks</th></tr>%s</table>" % "".join(rows))


def multi_gpu_section(report: Mapping[str, Any]) -> str:
    """Per multi-GPU host: its all-reduce and its P2P matrix (a row per source GPU, a column per destination;
    flagged pairs purple), or ""."""
    parts = []
    for name, text, header, rows in fleet_multi.host_views(report):
        parts.append("<h3>%s</h3><p>%s</p>" % (_esc(name), _esc(text)))
        if header:
            cells = ["<tr>%s</tr>" % "".join(
                '<td%s>%s</td>' % (' class="flag"' if flag else "", _esc(("FLAGGED " if flag else "") + cell))
                for cell, flag in row) for row in rows]
            head = "".join("<th>%s</th>" % _esc(cell) for cell in header)
            parts.append("<table><tr>%s</tr>%s</table>" % (head, "".join(cells)))
    if not parts:
        return ""
    return '<h2 id="multi-gpu">Multi-GPU: P2P copy per GPU pair (from row to column) and all-reduce</h2>' + \
        "".join(parts)


# the class of a recipe's cell by its state (a refused or unmeasured recipe is not marked)
RECIPE_CLASSES = {"runs": "pass", "failed": "fail", "wrong_result": "fail"}


def _recipe_cell(text, title, state):
    attributes = (' class="%s"' % RECIPE_CLASSES[state] if state in RECIPE_CLASSES else "") + (
        ' title="%s"' % _esc(title) if title else "")
    return "<td%s>%s</td>" % (attributes, _esc(text))


def low_precision_section(report: Mapping[str, Any]) -> str:
    """The recipes of each GPU (fleet_low_precision.table: a row per host and GPU, a column per recipe; a cell's
    title is its reason or exact figure) and the reasons of those that do not run, one item per recipe and
    reason; or ""."""
    header, rows = fleet_low_precision.table(report)
    if not header:
        return ""
    head = "".join("<th>%s</th>" % _esc(text) for text in header)
    body = "".join("<tr>%s</tr>" % "".join(_recipe_cell(*cell) for cell in row) for row in rows)
    found = fleet_low_precision.reasons(report)
    items = "".join("<li>%s</li>" % _esc(fleet_low_precision.reason_text(item)) for item in found)
    return ('<h2 id="low-precision">Low precision: which recipes run on each GPU</h2><table><tr>%s</tr>%s</table>%s'
            % (head, body, "<ul>%s</ul>" % items if items else ""))


def sparkline(points: Sequence[Sequence[Any]], title: str) -> str:
    """Inline SVG of a series' points ([[written, value], ...], oldest first): a line over its range, a dot at
    its newest point, `title` as its tooltip."""
    values = [value for _written, value in points]
    width, height, low, high = 120, 24, min(values), max(values)
    coords = []
    for position, value in enumerate(values):
        x = 3 + (width - 6) * (position / float(len(values) - 1) if len(values) > 1 else 1.0)
        y = 3 + (height - 6) * ((high - value) / float(high - low) if high > low else 0.5)
        coords.append("%.1f,%.1f" % (x, y))
    return ('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img" aria-label="%s">'
            '<title>%s</title><polyline fill="none" stroke="%s" stroke-width="1.5" points="%s"/>'
            '<circle cx="%s" cy="%s" r="2.5" fill="%s"/></svg>' % (
                width, height, _esc(title), _esc(title), COLORS["ok"], " ".join(coords),
                coords[-1].split(",")[0], coords[-1].split(",")[1], COLORS["ok"]))


def _series_labels(report):
    """{host: {"GPU 0": "GPU 0 NVIDIA H200", "cpu": "cpu"}}: the GPU of each trend series named with its model, from
    the host's entry, else from the result it last had (a host without a result this run)."""
    labels = {}
    for host in report["hosts"]:
        found = labels.setdefault(host["host"], {})
        for entry in (host, host.get("last_result")):
            for row in fleet_hosts.gpu_rows(entry) if isinstance(entry, dict) else []:
                if row["label"] != "-":
                    found.setdefault("cpu" if row["gpu"] is None else "GPU %s" % row["gpu"], row["label"])
    return labels


def trend_section(report: Mapping[str, Any]) -> str:
    """A row per host and GPU (named with its model), a sparkline per key figure over the reports (the document's
    `trend`), or ""."""
    trend = report.get("trend") if isinstance(report.get("trend"), dict) else {}
    labels = _series_labels(report)
    rows, tests = [], [test for test in KEY_TESTS + CPU_KEY_TESTS if any(
        name.endswith(" " + test) for series in trend.values() for name in series)]
    tests = sorted(set(tests), key=tests.index)
    for host in sorted(trend):
        by_gpu = {}
        for name, points in sorted(trend[host].items()):
            gpu, test = name.rsplit(" ", 1)
            by_gpu.setdefault(gpu, {})[test] = points
        for gpu, series in sorted(by_gpu.items()):
            gpu = labels.get(host, {}).get(gpu, gpu)
            cells = ["<td>%s</td><td>%s</td>" % (_esc(host), _esc(gpu))]
            for test in tests:
                points = series.get(test)
                if not points:
                    cells.append("<td>-</td>")
                    continue
                title = "%s %s %s: %s" % (host, gpu, test, ", ".join(
                    "%.4g on %s" % (value, written) for written, value in points))
                cells.append("<td>%s%s</td>" % (sparkline(points, title), _esc("%.4g (%d point%s)" % (
                    points[-1][1], len(points), "" if len(points) == 1 else "s"))))
            rows.append("<tr>%s</tr>" % "".join(cells))
    if not rows:
        return ""
    return ('<h2 id="trend">Trend over the reports</h2><table><tr><th>host</th><th>GPU</th>%s</tr>%s</table>' % (
        "".join("<th>%s</th>" % _esc(test) for test in tests), "".join(rows)))


def html(report: Mapping[str, Any]) -> str:
    """The fleet document as one self-contained HTML page."""
    require_fleet(report)
    hosts = report["hosts"]
    tests = [test for test in KEY_TESTS + ("gemm_fp32",) if any(_bar_rows(report, test))]
    body = ["<h1>Fleet verification report</h1>",
            "<p>%s</p>" % _esc(summary_text(report)),
            "<p><b>%d passed</b>, <b>%d failed or missing</b>, <b>%d busy</b>, <b>%d flagged</b>.</p>" % (
                len(report["passed"]), len(report["failed"]), len(report.get("busy") or []),
                len(report.get("flagged") or [])),
            '<h2 id="flagged">Flagged GPUs</h2>', flag_table(report), "<h2>Hosts</h2>",
            "<table><tr><th>host</th><th>GPU</th><th>verdict</th><th>stack</th><th>key figures</th><th>slowdowns</th>"
            "<th>flags</th><th>written</th></tr>"]
    for host in hosts:
        body += _host_rows(host)
    body.append("</table>")
    charts = [svg_chart(report, test) for test in tests]
    if charts:
        floor = (report.get("settings") or {}).get("expected_floor", 0.75)
        body.append("<p>%s</p>" % _esc(LEGEND + (TICK if any('fill="#222"' in chart for chart in charts) else "") + (
            GREEN_TICK % floor if any(EXPECTED_TICK in chart for chart in charts) else "")))
    for test, chart in zip(tests, charts):
        body.append('<h2 id="%s">%s</h2>%s' % (_esc(test), _esc(test), chart))
    body += [section for section in (low_precision_section(report), multi_gpu_section(report), trend_section(report))
             if section]
    failed = [host for host in hosts if not host["passed"] and host["status"] not in NOT_JUDGED]
    if failed:
        body.append("<h2>Failures</h2><ul>")
        body += ['<li class="fail"><b>%s</b>: %s</li>' % (_esc(h["host"]), _esc(h["message"])) for h in failed]
        body.append("</ul>")
    return ('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Fleet verification report</title>'
            "<style>%s</style></head><body>%s</body></html>\n" % (CSS, "\n".join(body)))
