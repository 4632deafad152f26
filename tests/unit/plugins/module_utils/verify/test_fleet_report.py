from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import pytest
from markdown_it import MarkdownIt

from verify_results import cpu_result, h100_result, hot_result

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_html, fleet_report


def report():
    return fleet_report.fleet({"ws-h100-01": h100_result(), "ws-pro6000-02": hot_result(), "ws-down-03": None})


def test_fleet_document_lists_every_host_with_verdict_stack_and_slowdowns():
    got = report()
    assert got["schema"] == "blackwell.pytorch.fleet/1" and got["created"] == "2026-11-23T03:40:00Z"
    assert [h["host"] for h in got["hosts"]] == ["ws-down-03", "ws-h100-01", "ws-pro6000-02"]
    assert got["passed"] == ["ws-h100-01"] and got["failed"] == ["ws-down-03", "ws-pro6000-02"]
    down, h100, hot = got["hosts"]
    assert down["status"] == "missing" and down["figures"] == []
    assert h100["stack"] == {"driver": "580.159.04", "cuda_toolkit": "13.0.2", "torch": "2.11.0+cu130",
                             "torch_cuda": "13.0", "packages": 2, "collection": "0.2.0"}
    assert h100["slow_reasons"] == [] and hot["slow_reasons"] == ["hw_thermal_slowdown"]
    json.dumps(got)  # serialisable as fleet.json


def test_same_results_give_the_same_report():
    assert report() == report()
    assert fleet_report.fleet({})["created"] == ""


def test_markdown_has_a_row_per_host_and_the_failures():
    text = fleet_report.markdown(report())
    assert "| ws-h100-01 | GPU 0 NVIDIA H100 80GB HBM3 | passed | 580.159.04 | 13.0.2 | 2.11.0+cu130 | gemm_bf16 " \
           "795.2 TFLOP/s \\(0.80 of peak, SM 1755 MHz, sw_power_cap\\), " in text
    assert "hw_thermal_slowdown" in text and "## Failures" in text
    assert "- **ws-down-03**: no verification result" in text


def test_html_is_self_contained_with_an_svg_per_figure_and_highlights():
    page = fleet_html.html(report())
    assert page.startswith("<!DOCTYPE html>") and "</html>" in page
    assert not re.search(r'(src|href)=|@import|url\(', page)  # no external asset
    charts = re.findall(r'<svg [^>]*aria-label="(gemm_bf16|memcpy|sustained)">', page)
    assert charts == ["gemm_bf16", "memcpy", "sustained"] and page.count('height="18" fill="#eee"') == 3 * 2
    assert page.count("<polyline") == 6  # the trend: 2 hosts with figures, 3 key figures each
    assert page.count('<tr class="fail">') == 2 and page.count('<tr class="pass">') == 1
    sustained = page.split('<h2 id="sustained">')[1].split("</svg>")[0]
    assert "ws-h100-01 GPU 0" in sustained and "ws-pro6000-02 GPU 0" in sustained
    assert 'fill="#c0392b"' in sustained  # the failed host's bar is red
    assert "hw_thermal_slowdown" in page and "0.69 of peak" in page


def test_cpu_hosts_are_drawn_relative_to_the_best_host():
    page = fleet_html.html(fleet_report.fleet({"bw-verify-a": cpu_result("bw-verify-a"),
                                               "bw-verify-b": cpu_result("bw-verify-b")}))
    chart = page.split('<h2 id="gemm_fp32">')[1]
    assert "bw-verify-a GPU cpu" in chart and "bw-verify-b GPU cpu" in chart and "relative to the best host" in chart
    assert "Bar colours: " in page and "dark tick" not in page  # no tick in CPU mode
    assert "&lt;" not in fleet_report.markdown(fleet_report.fleet({"h<1>": cpu_result("x")}))


def test_renderers_refuse_what_is_not_a_fleet_document():
    for render in (fleet_report.markdown, fleet_html.html):
        with pytest.raises(ValueError, match="not a fleet report document .no created, hosts, failed."):
            render(h100_result())
        with pytest.raises(ValueError, match="no created, hosts, passed, failed"):
            render(None)


HOSTILE_HOST = "ws|07 <script>alert('x')</script> *b* _u_ [l](http://x) `c` &amp;"
HOSTILE_MESSAGE = "gate gemm_bf16 | failed: 'bad' <img src=x onerror=alert(1)>\nsecond line | again"


def hostile_report():
    bad = hot_result(HOSTILE_HOST)
    bad["message"] = HOSTILE_MESSAGE
    return fleet_report.fleet({HOSTILE_HOST: bad, "ws-h100-01": h100_result()})


class _Cells(HTMLParser):
    """Rows of <td>/<th> texts, and every element and attribute seen, from rendered HTML."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.rows, self.tags, self.attrs, self.items, self._cell, self._item = [], [], [], [], None, None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs += [pair[0] for pair in attrs]
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = ""
        elif tag == "li":
            self._item = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append(self._cell)
            self._cell = None
        elif tag == "li" and self._item is not None:
            self.items.append(self._item)
            self._item = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell += data
        if self._item is not None:
            self._item += data


def _parse(page):
    cells = _Cells()
    cells.feed(page)
    return cells


def test_html_report_escapes_hostile_host_names_and_messages():
    page = fleet_html.html(hostile_report())
    seen = _parse(page)
    assert "script" not in seen.tags and "img" not in seen.tags and "onerror" not in seen.attrs
    assert "<script>" not in page and "'x'" not in page  # both quote kinds escaped
    host_cells = [row[0] for row in seen.rows if row and row[0] != "host"]
    assert HOSTILE_HOST in host_cells  # shown exactly as named, as text
    assert any(item.startswith(HOSTILE_HOST + ": gate gemm_bf16 | failed: 'bad' <img") for item in seen.items)


def test_markdown_report_keeps_one_cell_per_column_with_hostile_host_names_and_messages():
    text = fleet_report.markdown(hostile_report())
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    seen = _parse(rendered)
    assert "script" not in seen.tags and "img" not in seen.tags and "a" not in seen.tags
    assert "em" not in seen.tags and "code" not in seen.tags
    header, *rows = seen.rows
    assert len(header) == 9 and all(len(row) == 9 for row in rows) and len(rows) == 2
    assert sorted(row[0] for row in rows) == sorted([HOSTILE_HOST, "ws-h100-01"])
    failure = [item for item in seen.items if item.startswith(HOSTILE_HOST) and "gate" in item]
    assert failure == [HOSTILE_HOST + ": " + HOSTILE_MESSAGE.replace("\n", " ")]


@pytest.mark.parametrize("text", ["a|b", "x\ny", "_lead", "trail_", "in_word", "* [a](b) <i> `c` \\ & ~ # !"])
def test_markdown_cell_renders_back_to_its_text(text):
    rendered = MarkdownIt("commonmark").enable("table").render("| h |\n|---|\n| %s |\n" % fleet_report.md_cell(text))
    rows = _parse(rendered).rows
    assert rows[1] == [" ".join(text.splitlines())]


def mixed_report(count=8):
    from fleet_results import mixed_fleet
    documents, earlier, play = mixed_fleet(count)
    previous = json.dumps(fleet_report.fleet(earlier))
    return fleet_report.fleet(documents, previous=previous, play_hosts=play)


def test_the_mixed_fleet_has_each_kind_of_host():
    report = mixed_report()
    assert report["flagged"] == ["ws-001", "ws-002"] and report["stale"] == ["ws-003"]
    assert report["failed"] == ["ws-004", "ws-new"] and report["missing"] == ["ws-new"]
    assert report["busy"] == ["ws-busy"] and "ws-busy" not in report["passed"]


def test_markdown_carries_the_flags_and_the_stored_results():
    text = fleet_report.markdown(mixed_report())
    assert "Flagged: 2 (a figure below 0.75 of the figure expected of its GPU model, below 0.90 of the median of " \
           "the same model and size on other hosts, or below 0.90 of its previous verification)" in \
        text.replace("\\", "")
    assert "Not in this play, shown from their stored result: 1." in text
    assert "## Flagged GPUs" in text
    assert "| ws-003 | GPU 0 NVIDIA RTX PRO 6000 Blackwell Workstation Edition | passed \\(stored result, 2 d old\\) |" in text
    flagged = text.split("## Flagged GPUs")[1].split("## Multi-GPU")[0]
    # ws-001's H100 is below the figure expected of its model and below its peers: two flags on one figure
    assert "- **ws-001**: GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 587.5 TFLOP/s is 0.74 of the expected 791.2 " \
           "TFLOP/s \\(below 0.75\\); SM 1400 MHz; " in flagged
    assert "- **ws-001**: GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 587.5 TFLOP/s is 0.74 of the median of 1 " in flagged
    assert "clock events: hw_thermal_slowdown, sw_power_cap" in flagged
    assert "- **ws-002**: GPU 0 NVIDIA L40S: memcpy dropped since 2026-11-20: " in flagged
    rows = _parse(MarkdownIt("commonmark").enable("table").render(text)).rows
    assert [row[8] for row in rows if row[0] in ("ws-001", "ws-002")] == [
        "expected gemm_bf16, peers gemm_bf16", "dropped memcpy"]


def test_markdown_has_a_row_per_gpu_of_a_multi_gpu_host_and_its_p2p_matrix():
    text = fleet_report.markdown(mixed_report())
    rows = _parse(MarkdownIt("commonmark").enable("table").render(text)).rows
    nvl = [row for row in rows if row[0] == "ws-nvl"]
    assert [row[1:3] for row in nvl] == [["GPU 0 NVIDIA H200", "passed"], ["GPU 1 NVIDIA H200", "passed"]]
    assert nvl[1][6].startswith("gemm_bf16 823.2 TFLOP/s (1.04 of expected, 0.83 of peak, ")
    assert rows[-2:] == [["GPU 0 NVIDIA H200", "-", "387.9 GB/s (0.86 of expected 450 GB/s, NVLink 4.0 x18)"],
                         ["GPU 1 NVIDIA H200", "388 GB/s (0.86 of expected 450 GB/s, NVLink 4.0 x18)", "-"]]
    assert "**ws-nvl**: all-reduce over GPUs 0, 1 \\(2 x NVIDIA H200\\): bus bandwidth 294.8 GB/s \\(0.82 of " \
           "expected 360 GB/s\\), mib=256, 2 ranks" in text


def test_html_carries_the_flags_and_the_stored_results():
    page = fleet_html.html(mixed_report())
    seen = _parse(page)
    flag_rows = [row for row in seen.rows if len(row) == 7 and row[0] != "host"]
    assert [row[:4] for row in flag_rows] == [["ws-001", "0", "NVIDIA H100 80GB HBM3", "expected"],
                                              ["ws-001", "0", "NVIDIA H100 80GB HBM3", "peers"],
                                              ["ws-002", "0", "NVIDIA L40S", "dropped"]]
    assert flag_rows[0][5] == "hw_thermal_slowdown, sw_power_cap" and "SM 1400 MHz" in flag_rows[0][6]
    assert "sustained SM 1900 MHz" in flag_rows[0][6]
    assert page.count('<tr class="pass stale">') == 1 and page.count('<tr class="flag">') == 3 + 2
    assert "passed (stored result, 2 d old)" in [row[2] for row in seen.rows if row and row[0] == "ws-003"]
    gemm = page.split('<h2 id="gemm_bf16">')[1].split("</svg>")[0]
    assert 'fill="#8e44ad"' in gemm and "ws-003 GPU 0 (stored)" in gemm
    assert ">FLAGGED (expected, peers): GPU 0 NVIDIA H100 80GB HBM3: gemm_bf16 587.5 TFLOP/s (0.74 of expected, " \
           "0.59 of peak, SM 1400 MHz, sw_power_cap,hw_thermal_slowdown)<" in gemm
    assert ">GPU 1 NVIDIA H200: gemm_bf16 823.2 TFLOP/s (1.04 of expected, 0.83 of peak, SM 1755 MHz, " in gemm
    assert 'width="2" height="22" fill="#222"' in gemm  # the tick at the median of the model
    assert 'width="2" height="22" fill="#27ae60"' in gemm  # the tick at the figure expected of the model
    assert "The dark tick is the median of the same GPU model. The green tick is the figure expected of the GPU " \
           "model (a flag below 0.75 of it)." in page
    assert not re.search(r'(src|href)=|@import|url\(|<script', page)
    assert "<p>No GPU flagged.</p>" in fleet_html.html(fleet_report.fleet({"ws-h100-01": h100_result()}))


def test_html_has_a_row_per_gpu_the_busy_host_and_the_p2p_matrix():
    page = fleet_html.html(mixed_report())
    seen = _parse(page)
    hosts = [row for row in seen.rows if len(row) == 8]  # the hosts table (the trend table has 5 columns)
    nvl = [row for row in hosts if row[0] == "ws-nvl"]
    assert [row[1:3] for row in nvl] == [["GPU 0 NVIDIA H200", "passed"], ["GPU 1 NVIDIA H200", "passed"]]
    busy = [row for row in hosts if row[0] == "ws-busy"]
    assert busy == [["ws-busy", "-", "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)",
                     "driver 580.159.04, CUDA toolkit 13.0.2torch 2.11.0+cu130 (CUDA 13.0), 1 package", "-", "-", "-",
                     "2026-11-23T03:40:00Z"]]
    assert page.count('<tr class="busy">') == 1 and "<b>1 busy</b>" in page
    matrix = page.split('<h2 id="multi-gpu">')[1].split("</table>")[0]
    assert "<h3>ws-nvl</h3><p>all-reduce over GPUs 0, 1 (2 x NVIDIA H200): bus bandwidth 294.8 GB/s (0.82 of " \
           "expected 360 GB/s), mib=256, 2 ranks</p>" in matrix
    assert "<td>387.9 GB/s (0.86 of expected 450 GB/s, NVLink 4.0 x18)</td>" in matrix


def test_a_check_run_preview_is_neither_passed_nor_failed_nor_damaged():
    """site.yml --check on a fresh host publishes a preview verdict: the report says so, not "damaged" or "failed"."""
    text = ("check mode: /opt/pytorch/current/bin/python is not there yet (a run without --check makes the stack in the "
            "pytorch stage), so it is neither checked nor benchmarked now; a run without --check checks it with "
            "torch_cuda_check, benchmarks it and stores verify.json")
    preview = {"passed": False, "preview": True, "deferred": False, "results": "/var/lib/blackwell-pytorch/verify.json",
               "message": text, "summary": [text]}
    report = fleet_report.fleet({"ws-new": preview}, None, None, {})
    host = report["hosts"][0]
    assert (host["status"], host["passed"], host["message"]) == ("preview", False, text)
    assert (report["failed"], report["preview"], report["missing"]) == ([], ["ws-new"], [])
    assert "Passed: 0, failed or missing: 0, check mode (the stack not there yet: not verified): 1." in (
        fleet_report.summary_text(report))
    assert "## Failures" not in fleet_report.markdown(report)
