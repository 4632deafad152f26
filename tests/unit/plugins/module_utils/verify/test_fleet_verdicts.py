"""Verdicts a lab can act on: no flag on a healthy GPU, a busy GPU is not a slow one, every GPU
judged as itself, multi-GPU figures against their link, and each key figure's trend."""
from __future__ import annotations

import copy
import json
import re

from markdown_it import MarkdownIt
from test_fleet_report import _parse

from fleet_lab_results import (H100, H200, PRO6000, RTX4090, busy_result, h200_pair_result, lab_fleet, lab_result,
                               measured_busy_result, mixed_gpu_result, with_value)

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_html, fleet_report, fleet_trend

NOW = "2026-11-28T05:00:00Z"


def flags_of(report):
    return [(f["host"], f["gpu"], f["test"], f["kind"]) for host in report["hosts"] for f in host["flags"]]


def by_host(report):
    return dict((host["host"], host) for host in report["hosts"])


def md_rows(text):
    return _parse(MarkdownIt("commonmark").enable("table").render(text)).rows


def test_32_healthy_hosts_give_no_flag_though_sdpa_and_softmax_are_far_below_half_their_peak():
    documents = lab_fleet(32)
    report = fleet_report.fleet(documents)
    assert flags_of(report) == [] and report["flagged"] == [] and len(report["passed"]) == 32
    measured = [row for host in report["hosts"] for row in host["measured"]]
    sdpa = [row["fraction_of_peak"] for row in measured if row["test"] == "sdpa"]
    softmax = dict((row["name"], row["fraction_of_peak"]) for row in measured if row["test"] == "softmax")
    # what the raw peak rule flagged on every host: SDPA 0.35 of peak, softmax 0.22 (H200) and 0.30 (H100)
    assert len(sdpa) == 32 and max(sdpa) < 0.37 and 0.21 < softmax[H200] < 0.23 and 0.29 < softmax[H100] < 0.32
    assert all(0.95 < row["fraction_of_expected"] < 1.05 for row in measured)
    assert "Flagged: 0 (a figure below 0.75 of the figure expected of its GPU model" in \
        fleet_report.summary_text(report)


def test_one_host_at_a_quarter_of_its_gemm_is_flagged_with_the_figure_and_nothing_else_is():
    documents = lab_fleet(32)
    documents["lab-07"] = with_value(documents["lab-07"], "gemm_bf16", 260.47)  # an H200 at 0.26 of its peak
    report = fleet_report.fleet(documents)
    assert flags_of(report) == [("lab-07", 0, "gemm_bf16", "expected"), ("lab-07", 0, "gemm_bf16", "peers")]
    assert report["flagged"] == ["lab-07"]
    expected, peers = by_host(report)["lab-07"]["flags"]
    assert expected["text"] == "gemm_bf16 260.5 TFLOP/s is 0.33 of the expected 791.2 TFLOP/s (below 0.75)"
    assert peers["text"] == "gemm_bf16 260.5 TFLOP/s is 0.32 of the median of 15 NVIDIA H200 on other hosts " \
                            "(803 TFLOP/s)"
    assert (peers["reference"], peers["ratio"], peers["size"]) == (802.99, 0.3244, "m=8192 n=8192 k=8192 bf16")
    assert expected["detail"] == ("GPU 0 NVIDIA H200: gemm_bf16 260.5 TFLOP/s is 0.33 of the expected 791.2 TFLOP/s "
                                  "(below 0.75); SM 1755 MHz; sustained SM 1755 MHz; sustained/first 0.98; clock "
                                  "events: sw_power_cap")


def test_a_figure_without_an_expected_figure_at_a_fifth_of_its_peak_is_not_flagged_when_its_peers_agree():
    documents = lab_fleet(32)
    for document in documents.values():  # an older verify.json: no expected figure, softmax at 0.20 of peak
        fig = document["benchmark"]["devices"][0]["figures"]["softmax"]
        fig.update(expected=None, fraction_of_expected=None)
        fig.update(value=round(fig["peak"] * 0.20 * fig["value"] / (fig["peak"] * fig["fraction_of_peak"]), 2))
        fig["fraction_of_peak"] = round(fig["value"] / fig["peak"], 4)
    report = fleet_report.fleet(documents)
    softmax = [row for host in report["hosts"] for row in host["measured"] if row["test"] == "softmax"]
    assert all(0.19 < row["fraction_of_peak"] < 0.21 and row["expected"] is None for row in softmax)
    assert flags_of(report) == []
    # and one of them at 0.6 of its peers is flagged against them
    documents["lab-04"] = with_value(documents["lab-04"], "softmax", 400.0)
    assert flags_of(fleet_report.fleet(documents)) == [("lab-04", 0, "softmax", "peers")]


def test_a_busy_host_is_neither_passed_nor_failed_and_says_who_holds_its_gpu():
    documents = lab_fleet(4)
    documents["lab-02"] = busy_result("lab-02")
    report = fleet_report.fleet(documents)
    assert report["busy"] == ["lab-02"] and report["passed"] == ["lab-00", "lab-01", "lab-03"]
    assert report["failed"] == [] and report["flagged"] == []
    host = by_host(report)["lab-02"]
    assert host["status"] == "busy" and host["passed"] is False
    assert host["busy"] == {"state": "busy", "mode": "wait", "waited_s": 60.2, "processes": [
        {"gpu": 0, "gpu_name": H200, "pid": 4242, "user": "alice", "command": "python3", "memory_mib": 20582}],
        "text": "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"}
    assert fleet_report.summary_text(report).startswith(
        "Results up to 2026-11-28T05:00:00Z. Passed: 3, failed or missing: 0, busy (another process on a GPU: not "
        "judged): 1. Flagged: 0 ")
    text = fleet_report.markdown(report)
    assert [row for row in md_rows(text) if row[0] == "lab-02"] == [
        ["lab-02", "-", "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)", "580.159.04", "13.0.2", "2.11.0+cu130",
         "-", "-", "-"]]
    assert "## Busy: another process on a GPU, not verified" in text and "## Failures" not in text
    page = fleet_html.html(report)
    assert page.count('<tr class="busy">') == 1 and "<b>0 failed or missing</b>, <b>1 busy</b>" in page


def test_a_busy_host_keeps_its_last_result_for_the_reports_after():
    first = fleet_report.fleet(lab_fleet(2, "2026-11-20T08:00:00Z"))
    busy = fleet_report.fleet(dict(lab_fleet(2), **{"lab-01": busy_result("lab-01")}), previous=json.dumps(first))
    assert by_host(busy)["lab-01"]["last_result"]["written"] == "2026-11-20T08:00:00Z"
    later = dict(lab_fleet(2, "2026-11-29T05:00:00Z"))
    later["lab-01"] = with_value(later["lab-01"], "memcpy", 3000.0)  # 0.70 of what it measured before it was busy
    report = fleet_report.fleet(later, previous=json.dumps(busy))
    assert [(f["test"], f["kind"], f.get("since")) for f in by_host(report)["lab-01"]["flags"]] == [
        ("memcpy", "dropped", "2026-11-20"), ("memcpy", "expected", None)]


def test_a_result_measured_while_busy_is_shown_with_the_note():
    documents = lab_fleet(4)
    documents["lab-03"] = measured_busy_result("lab-03")
    report = fleet_report.fleet(documents)
    host = by_host(report)["lab-03"]
    assert host["status"] == "passed" and report["busy"] == [] and "lab-03" in report["passed"]
    note = "measured while busy: GPU 0 pid 1099 (python3, user root, 874 MiB)"
    assert host["busy_note"] == note
    assert [item["detail"].endswith("; " + note) for item in host["flags"]] == [True, True]
    rows = [row for row in md_rows(fleet_report.markdown(report)) if row[0] == "lab-03"]
    assert rows[0][2] == "passed; " + note
    assert "passed; " + note in fleet_html.html(report)


def test_each_gpu_of_a_mixed_host_has_its_row_its_model_and_its_own_verdict():
    report = fleet_report.fleet({"ws-mixed": mixed_gpu_result("ws-mixed")})
    host = report["hosts"][0]
    assert [(gpu["gpu"], gpu["name"], gpu["product_line"], gpu["verdict"], gpu["failed_gates"])
            for gpu in host["gpus"]] == [(0, RTX4090, "geforce", "failed", ["memcpy min_gbps"]),
                                         (1, PRO6000, "workstation", "passed", [])]
    rows = md_rows(fleet_report.markdown(report))
    assert [row[:3] for row in rows[1:]] == [["ws-mixed", "GPU 0 NVIDIA GeForce RTX 4090", "failed: memcpy min_gbps"],
                                             ["ws-mixed", "GPU 1 %s" % PRO6000, "passed (the host failed)"]]
    assert rows[1][6].startswith("gemm_bf16 151.7 TFLOP/s (0.92 of peak, ")
    assert rows[2][6].startswith("gemm_bf16 390 TFLOP/s (0.99 of expected, 0.77 of peak, ")
    page = fleet_html.html(report)
    html_rows = [row for row in _parse(page).rows if len(row) == 8 and row[0] == "ws-mixed"]
    assert [row[1:3] for row in html_rows] == [["GPU 0 NVIDIA GeForce RTX 4090", "failed: memcpy min_gbps"],
                                               ["GPU 1 %s" % PRO6000, "passed (the host failed)"]]
    assert html_rows[1][4].startswith("gemm_bf16 390 TFLOP/s (0.99 of expected, 0.77 of peak)memcpy ")
    # the failed GPU's row is red, the GPU that passed is green: each judged as itself
    assert page.count('<tr class="fail">') == 1 and page.count('<tr class="pass">') == 1
    memcpy = page.split('<h2 id="memcpy">')[1].split("</svg>")[0]
    assert ">GPU 0 NVIDIA GeForce RTX 4090: memcpy 554.4 GB/s (0.55 of peak, SM 1755 MHz)<" in memcpy
    assert memcpy.count('fill="#c0392b"') == 1 and memcpy.count('fill="#2e86c1"') == 1  # red: the 4090's bar alone


def mixed_model_fleet():
    """An RTX 4090 host, an RTX PRO 6000 Blackwell host (gemm_bf16 165 against 799 TFLOP/s would read alike as
    "0.8 of peak"), and a host with both whose RTX PRO 6000 gave no figure (its benchmark child failed)."""
    both = lab_result("ws-both", (RTX4090, PRO6000))
    both["benchmark"]["devices"][1].update(figures={}, status="failed", error="CUDA error: an illegal memory access")
    return fleet_report.fleet({"ws-4090": lab_result("ws-4090", (RTX4090,)), "ws-pro": lab_result("ws-pro", (PRO6000,)),
                               "ws-both": both})


def test_a_mixed_fleet_names_each_gpus_model_beside_its_figures_in_every_row_bar_and_trend():
    report = mixed_model_fleet()
    models = [("ws-4090", "GPU 0 %s" % RTX4090), ("ws-both", "GPU 0 %s" % RTX4090), ("ws-both", "GPU 1 %s" % PRO6000),
              ("ws-pro", "GPU 0 %s" % PRO6000)]
    # Markdown: the GPU column names the model, on a GPU without figures too; the figures follow without repeating it
    rows = md_rows(fleet_report.markdown(report))
    assert rows[0][1] == "GPU" and sorted((row[0], row[1]) for row in rows[1:]) == sorted(models)
    by_gpu = dict(((row[0], row[1]), row) for row in rows[1:])
    assert by_gpu[("ws-4090", "GPU 0 %s" % RTX4090)][6].startswith("gemm_bf16 147.2 TFLOP/s (0.89 of peak, ")
    assert by_gpu[("ws-pro", "GPU 0 %s" % PRO6000)][6].startswith("gemm_bf16 406 TFLOP/s (1.03 of expected, 0.81 of ")
    assert by_gpu[("ws-both", "GPU 1 %s" % PRO6000)][6] == "-"
    page = fleet_html.html(report)
    seen = _parse(page)
    # HTML: a row per GPU with its model beside its figures
    assert sorted((row[0], row[1]) for row in seen.rows if len(row) == 8 and row[0] != "host") == sorted(models)
    # each bar's text names its GPU's model
    for test in ("gemm_bf16", "memcpy", "sustained"):
        chart = page.split('<h2 id="%s">' % test)[1].split("</svg>")[0]
        texts = re.findall(r'<text x="436" y="\d+">([^<]*)</text>', chart)
        assert [text.split(":")[0] for text in texts] == ["GPU 0 %s" % RTX4090, "GPU 0 %s" % RTX4090,
                                                          "GPU 0 %s" % PRO6000], (test, texts)
    # the trend's rows: a sparkline per host and GPU, the GPU named with its model
    trend = page.split('<h2 id="trend">')[1]
    assert [(row[0], row[1]) for row in _parse(trend).rows[1:]] == [
        ("ws-4090", "GPU 0 %s" % RTX4090), ("ws-both", "GPU 0 %s" % RTX4090), ("ws-pro", "GPU 0 %s" % PRO6000)]
    assert "<title>ws-pro GPU 0 %s gemm_bf16: " % PRO6000 in trend


def test_an_older_result_without_per_gpu_judgement_gives_each_gpu_the_hosts_verdict():
    document = mixed_gpu_result("ws-mixed")
    for device in document["benchmark"]["devices"]:
        del device["gates"]
    document["failed_gates"] = [{"test": "memcpy", "gate": "min_gbps"}]
    host = fleet_report.fleet({"ws-mixed": document})["hosts"][0]
    assert [(gpu["verdict"], gpu["failed_gates"]) for gpu in host["gpus"]] == [("failed", []), ("failed", [])]


def test_the_p2p_matrix_and_the_all_reduce_carry_their_expected_figure_and_a_slow_pair_is_flagged():
    report = fleet_report.fleet({"ws-nvl": h200_pair_result("ws-nvl", p2p=(387.88, 300.0))})
    multi = report["hosts"][0]["multi_gpu"]
    assert [(row["gpu"], row["value"], row["expected"], row["fraction_of_expected"], row["link"])
            for row in multi["p2p"]] == [("0->1", 387.88, 450.0, 0.862, "NVLink 4.0 x18"),
                                         ("1->0", 300.0, 450.0, 0.6667, "NVLink 4.0 x18")]
    allreduce = multi["allreduce"]
    assert (allreduce["value"], allreduce["expected"], allreduce["fraction_of_expected"], allreduce["ranks"]) == (
        294.79, 360.0, 0.8189, 2)
    assert flags_of(report) == [("ws-nvl", "1->0", "p2p", "expected")]
    item = report["hosts"][0]["flags"][0]
    assert item["detail"] == "GPU 1 -> GPU 0 (NVIDIA H200 -> NVIDIA H200): p2p 300 GB/s is 0.67 of the expected " \
                             "450 GB/s (below 0.75)"
    text = fleet_report.markdown(report)
    assert md_rows(text)[-3:] == [
        ["from \\ to", "GPU 0 NVIDIA H200", "GPU 1 NVIDIA H200"],
        ["GPU 0 NVIDIA H200", "-", "387.9 GB/s (0.86 of expected 450 GB/s, NVLink 4.0 x18)"],
        ["GPU 1 NVIDIA H200", "FLAGGED 300 GB/s (0.67 of expected 450 GB/s, NVLink 4.0 x18)", "-"]]
    page = fleet_html.html(report)
    assert '<td class="flag">FLAGGED 300 GB/s (0.67 of expected 450 GB/s, NVLink 4.0 x18)</td>' in page
    # an all-reduce below its expected figure is flagged too
    slow = fleet_report.fleet({"ws-nvl": h200_pair_result("ws-nvl", allreduce=200.0)})
    assert flags_of(slow) == [("ws-nvl", "0,1", "allreduce", "expected")]
    assert slow["hosts"][0]["flags"][0]["detail"].startswith("GPUs 0, 1 (2 x NVIDIA H200): allreduce 200 GB/s is ")
    assert "<p>FLAGGED (expected): all-reduce over GPUs 0, 1 (2 x NVIDIA H200): " in fleet_html.html(slow)


def test_a_host_without_multi_gpu_figures_has_no_matrix():
    report = fleet_report.fleet({"lab-00": lab_result("lab-00")})
    assert report["hosts"][0]["multi_gpu"] is None
    assert "Multi-GPU" not in fleet_report.markdown(report) and 'id="multi-gpu"' not in fleet_html.html(report)


def _report_at(day, previous, gemm=None):
    written = "2026-12-%02dT05:00:00Z" % day
    document = lab_result("lab-00", (H200, H200), written)
    if gemm is not None:
        document = with_value(document, "gemm_bf16", gemm)
    return fleet_report.fleet({"lab-00": document}, previous=previous)


def test_a_series_grows_across_two_reports_and_the_same_result_again_adds_nothing():
    first = _report_at(1, None)
    assert sorted(first["trend"]["lab-00"]) == ["GPU 0 gemm_bf16", "GPU 0 memcpy", "GPU 0 sustained",
                                                "GPU 1 gemm_bf16", "GPU 1 memcpy", "GPU 1 sustained"]
    second = _report_at(2, json.dumps(first), gemm=700.0)
    assert second["trend"]["lab-00"]["GPU 0 gemm_bf16"] == [
        ["2026-12-01T05:00:00Z", 819.13], ["2026-12-02T05:00:00Z", 700.0]]
    again = _report_at(2, json.dumps(second), gemm=700.0)
    assert again["trend"] == second["trend"]
    page = fleet_html.html(second)
    trend = page.split('<h2 id="trend">')[1]
    assert trend.count("<polyline") == 6 and "<script" not in page
    assert "<title>lab-00 GPU 0 NVIDIA H200 gemm_bf16: 819.1 on 2026-12-01T05:00:00Z, 700 on 2026-12-02T05:00:00Z</title>" in trend
    assert 'points="3.0,3.0 117.0,21.0"' in trend  # from the top (the higher figure) down to the lower one


def test_a_series_keeps_its_newest_20_points():
    report = None
    for day in range(1, 26):
        report = _report_at(day, json.dumps(report) if report else None, gemm=780.0 + day)
    series = report["trend"]["lab-00"]["GPU 0 gemm_bf16"]
    assert len(series) == fleet_trend.CAP == 20
    assert series[0] == ["2026-12-06T05:00:00Z", 786.0] and series[-1] == ["2026-12-25T05:00:00Z", 805.0]


def test_a_previous_report_without_a_trend_seeds_it_and_a_broken_trend_is_left_out():
    first = _report_at(1, None)
    old = copy.deepcopy(first)
    del old["trend"]  # a report written before the trend: what it remembers of the host is its first point
    assert _report_at(2, json.dumps(old))["trend"]["lab-00"]["GPU 1 memcpy"][0][0] == "2026-12-01T05:00:00Z"
    broken = dict(first, trend={"lab-00": {"GPU 0 memcpy": [["x"], [None, 5], "y"], "GPU 0 sdpa": "z"}, "gone": 3})
    trend = _report_at(2, json.dumps(broken))["trend"]
    # the broken points and series are left out, the host's result of the previous report seeds the series again
    assert trend["lab-00"]["GPU 0 memcpy"] == [["2026-12-01T05:00:00Z", 4167.74], ["2026-12-02T05:00:00Z", 4167.74]]
    assert "GPU 0 sdpa" not in trend["lab-00"] and sorted(trend) == ["lab-00"]


def test_the_busy_note_is_in_the_flag_table_and_the_busy_list_says_when():
    documents = lab_fleet(4)
    documents["lab-03"] = measured_busy_result("lab-03")
    documents["lab-02"] = busy_result("lab-02")
    report = fleet_report.fleet(documents)
    flag_rows = [row for row in _parse(fleet_html.html(report)).rows if len(row) == 7 and row[0] == "lab-03"]
    assert [row[4] for row in flag_rows] == [
        "gemm_bf16 260.5 TFLOP/s is 0.33 of the expected 791.2 TFLOP/s (below 0.75); measured while busy: GPU 0 pid "
        "1099 (python3, user root, 874 MiB)",
        "gemm_bf16 260.5 TFLOP/s is 0.32 of the median of 1 NVIDIA H200 on other hosts (823.2 TFLOP/s); measured "
        "while busy: GPU 0 pid 1099 (python3, user root, 874 MiB)"]
    assert "- **lab-02**: busy: GPU 0 pid 4242 \\(python3, user alice, 20.1 GiB\\) \\(deferred at " \
           "2026-11-28T05:00:00Z\\)" in fleet_report.markdown(report)
