"""The fleet report's low-precision section: which FP8 / MXFP8 / NVFP4 recipes run on each GPU, with its
libraries, and how fast; the reasons of those that do not, one line per recipe and reason."""
from __future__ import annotations

import copy
import json

from markdown_it import MarkdownIt
from test_fleet_report import _parse

from fleet_lab_results import H200, busy_result, lab_result
from fleet_results import (H200_LOW_PRECISION, LIBRARIES, ROWWISE_REFUSED, RTX5090_LOW_PRECISION, mixed_fleet, result,
                           with_low_precision)

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import (
    fleet_html, fleet_low_precision, fleet_report)

RTX5090 = "NVIDIA GeForce RTX 5090"
HEADER = ["host", "GPU", "torch / CUDA / cuBLASLt / driver", "FP8 per-tensor", "FP8 row-wise", "MXFP8 (TN)",
          "MXFP8 (NN)", "NVFP4", "grouped FP8"]
STACK = "2.11.0+cu130 / 13.0 / 13.1.0 / 580.159.04"
SM90_MXFP8 = "not supported on sm_90: MXFP8 needs compute capability 10.0+"
SM90_NVFP4 = "not supported on sm_90: NVFP4 needs compute capability 10.0+"
NOT_IN_QUICK = "not in profile quick (standard and full run it)"
WRONG = "max abs error 0.32 above the tolerance 0.05 of the bf16 reference"


def h200(host="ws-h200"):
    return with_low_precision(lab_result(host), H200_LOW_PRECISION)


def rtx5090(host="ws-5090"):
    return with_low_precision(result(host, RTX5090), RTX5090_LOW_PRECISION)


def mixed():
    """An RTX 5090 (NVFP4 runs, FP8 row-wise refused by cuBLASLt), an H200 and a host with an older result."""
    return fleet_report.fleet({"ws-5090": rtx5090(), "ws-h200": h200(), "ws-old": lab_result("ws-old")})


def section(text):
    """The lines of the Markdown's low-precision section (to the next section or the end)."""
    lines = text.split("## Low precision: which recipes run on each GPU\n")[1].split("\n## ")[0]
    return lines.rstrip("\n").split("\n")


def test_a_host_entry_carries_each_gpu_block_with_its_recipes_as_they_are():
    report = fleet_report.fleet({"ws-h200": h200()})
    expected = [{"gpu": 0, "name": H200, "libraries": LIBRARIES, "recipes": H200_LOW_PRECISION["recipes"]}]
    assert fleet_low_precision.block(h200()) == expected
    assert report["hosts"][0]["low_precision"] == expected
    assert json.loads(json.dumps(report))["hosts"][0]["low_precision"] == expected  # fleet.json carries it
    pair = with_low_precision(lab_result("ws-pair", (H200, H200)), H200_LOW_PRECISION, gpus=[1])
    assert [(row["gpu"], row["name"]) for row in fleet_low_precision.block(pair)] == [(1, H200)]
    assert fleet_low_precision.block(h200())[0]["recipes"][4] == {
        "recipe": "NVFP4", "test": "gemm_nvfp4", "state": "refused", "value": None, "unit": "TFLOP/s",
        "fraction_of_peak": None, "reason": SM90_NVFP4}


def test_an_older_result_a_busy_and_a_missing_host_have_no_block_and_no_section():
    report = fleet_report.fleet({"ws-old": lab_result("ws-old"), "ws-busy": busy_result("ws-busy"), "ws-gone": None})
    assert [host["low_precision"] for host in report["hosts"]] == [None, None, None]
    for document in (lab_result("ws-old"), None, {}, {"benchmark": "x"}, {"benchmark": {"devices": "x"}},
                     {"benchmark": {"devices": [1, {"index": 0, "low_precision": "x"}]}}):
        assert fleet_low_precision.block(document) is None
    assert fleet_low_precision.table(report) == (None, [])
    assert "Low precision" not in fleet_report.markdown(report)
    assert "Low precision" not in fleet_html.html(report) and 'id="low-precision"' not in fleet_html.html(report)


def test_a_block_with_missing_keys_is_taken_as_it_is():
    document = lab_result("ws-x")
    document["benchmark"]["devices"][0]["low_precision"] = {"recipes": [{"test": "gemm_fp8"}, "x", {}]}
    assert fleet_low_precision.block(document) == [
        {"gpu": 0, "name": H200, "libraries": {}, "recipes": [{"test": "gemm_fp8"}, {}]}]


def test_cell_and_title_of_each_state():
    runs, refused, wrong = H200_LOW_PRECISION["recipes"][0], H200_LOW_PRECISION["recipes"][2], \
        RTX5090_LOW_PRECISION["recipes"][3]
    assert (fleet_low_precision.cell(runs), fleet_low_precision.title(runs)) == (
        "1447 TFLOP/s (0.73)", "gemm_fp8: 1446.7 TFLOP/s, 0.7312 of peak")
    assert (fleet_low_precision.cell(refused), fleet_low_precision.title(refused)) == ("refused", SM90_MXFP8)
    assert (fleet_low_precision.cell(wrong), fleet_low_precision.title(wrong)) == ("wrong result", WRONG)
    cells = [fleet_low_precision.cell(recipe) for recipe in (
        {"state": "runs", "value": 1446.7, "unit": "TFLOP/s"}, {"state": "runs", "value": 45.27, "unit": "TFLOP/s"},
        {"state": "runs", "value": None}, {"value": 912.4, "unit": "TFLOP/s", "fraction_of_peak": 0.4612},
        {"state": "failed", "reason": "CUDA error: an illegal memory access"}, {"state": "not_measured"},
        {"state": "later"}, {}, None, {"state": "runs", "value": True})]
    assert cells == ["1447 TFLOP/s", "45.3 TFLOP/s", "runs", "912 TFLOP/s (0.46)", "failed", "not measured", "later",
                     "-", "-", "runs"]
    titles = [fleet_low_precision.title(recipe) for recipe in (
        {"state": "failed", "test": "gemm_nvfp4"}, {"state": "runs", "value": 12.5}, {"test": "gemm_fp8"}, None)]
    assert titles == ["gemm_nvfp4: failed", "12.5", None, None]


def test_the_table_of_a_mixed_fleet_has_a_row_per_gpu_and_a_column_per_recipe():
    header, rows = fleet_low_precision.table(mixed())
    assert header == HEADER
    assert [[text for text, _title, _state in row] for row in rows] == [
        ["ws-5090", "0 NVIDIA GeForce RTX 5090", STACK, "331 TFLOP/s (0.79)", "refused", "318 TFLOP/s (0.76)",
         "wrong result", "1184 TFLOP/s (0.71)", "not measured"],
        ["ws-h200", "0 NVIDIA H200", STACK, "1447 TFLOP/s (0.73)", "1398 TFLOP/s (0.71)", "refused", "refused",
         "refused", "not measured"]]
    assert rows[0][4] == ("refused", ROWWISE_REFUSED, "refused")
    assert rows[0][7] == ("1184 TFLOP/s (0.71)", "gemm_nvfp4: 1184.3 TFLOP/s, 0.7066 of peak", "runs")
    assert rows[1][:3] == [("ws-h200", None, None), ("0 NVIDIA H200", None, None), (STACK, None, None)]


def test_recipe_columns_follow_the_order_first_seen_and_a_gpu_without_a_recipe_shows_a_dash():
    short = {"libraries": {"torch": "2.10.0+cu128"}, "recipes": [
        {"recipe": "NVFP4", "state": "runs", "value": 2950.0, "unit": "TFLOP/s"},
        {"recipe": "block FP8", "test": "gemm_fp8_block", "state": "refused", "reason": "no kernel"}]}
    report = fleet_report.fleet({"ws-a": with_low_precision(lab_result("ws-a"), short), "ws-b": h200("ws-b")})
    header, rows = fleet_low_precision.table(report)
    assert header[3:] == ["NVFP4", "block FP8", "FP8 per-tensor", "FP8 row-wise", "MXFP8 (TN)", "MXFP8 (NN)",
                          "grouped FP8"]
    assert [text for text, _title, _state in rows[0]] == ["ws-a", "0 NVIDIA H200", "2.10.0+cu128 / - / - / -",
                                                          "2950 TFLOP/s", "refused", "-", "-", "-", "-", "-"]
    assert rows[1][4] == ("-", None, None)


def test_markdown_section_lists_the_table_and_the_reasons():
    text = fleet_report.markdown(mixed())
    assert section(text) == [
        "",
        "| host | GPU | torch / CUDA / cuBLASLt / driver | FP8 per-tensor | FP8 row-wise | MXFP8 \\(TN\\) | "
        "MXFP8 \\(NN\\) | NVFP4 | grouped FP8 |",
        "|---|---|---|---|---|---|---|---|---|",
        "| ws-5090 | 0 NVIDIA GeForce RTX 5090 | 2.11.0+cu130 / 13.0 / 13.1.0 / 580.159.04 | 331 TFLOP/s \\(0.79\\) | "
        "refused | 318 TFLOP/s \\(0.76\\) | wrong result | 1184 TFLOP/s \\(0.71\\) | not measured |",
        "| ws-h200 | 0 NVIDIA H200 | 2.11.0+cu130 / 13.0 / 13.1.0 / 580.159.04 | 1447 TFLOP/s \\(0.73\\) | "
        "1398 TFLOP/s \\(0.71\\) | refused | refused | refused | not measured |",
        "",
        "- ws-5090 GPU 0 FP8 row-wise: cuBLASLt 13.1.0 has no row-wise scaled FP8 GEMM for sm_120 "
        "\\(CUBLAS_STATUS_NOT_SUPPORTED from cublasLtMatmulAlgoGetHeuristic\\)",
        "- ws-h200 GPU 0 MXFP8 \\(TN\\): not supported on sm_90: MXFP8 needs compute capability 10.0+",
        "- ws-5090 GPU 0 MXFP8 \\(NN\\): max abs error 0.32 above the tolerance 0.05 of the bf16 reference",
        "- ws-h200 GPU 0 MXFP8 \\(NN\\): not supported on sm_90: MXFP8 needs compute capability 10.0+",
        "- ws-h200 GPU 0 NVFP4: not supported on sm_90: NVFP4 needs compute capability 10.0+"]  # not measured: no line
    rows = _parse(MarkdownIt("commonmark").enable("table").render(text)).rows
    table = [row for row in rows if len(row) == 9 and row[2] in (HEADER[2], STACK)]  # not the hosts' table
    assert table[0] == HEADER and [row[:2] for row in table[1:]] == [["ws-5090", "0 NVIDIA GeForce RTX 5090"],
                                                                     ["ws-h200", "0 NVIDIA H200"]]


def test_32_identical_hosts_give_one_reason_line_per_recipe_with_the_gpu_count():
    report = fleet_report.fleet(dict(("lab-%02d" % number, h200("lab-%02d" % number)) for number in range(32)))
    lines = section(fleet_report.markdown(report))
    assert len([line for line in lines if line.startswith("| lab-")]) == 32
    assert lines[-4:] == [
        "",
        "- MXFP8 \\(TN\\): not supported on sm_90: MXFP8 needs compute capability 10.0+ \\(32 GPUs\\)",
        "- MXFP8 \\(NN\\): not supported on sm_90: MXFP8 needs compute capability 10.0+ \\(32 GPUs\\)",
        "- NVFP4: not supported on sm_90: NVFP4 needs compute capability 10.0+ \\(32 GPUs\\)"]  # not measured: no line
    assert [(item["recipe"], len(item["gpus"])) for item in fleet_low_precision.reasons(report)] == [
        ("MXFP8 (TN)", 32), ("MXFP8 (NN)", 32), ("NVFP4", 32)]


def test_html_section_has_the_table_with_each_reason_as_the_cell_title_escaped():
    hostile = copy.deepcopy(RTX5090_LOW_PRECISION)
    hostile["recipes"][1]["reason"] = 'cuBLASLt said "no" <b>sm_120</b> & \'row-wise\''
    report = fleet_report.fleet({"ws-5090": with_low_precision(result("ws-5090", RTX5090), hostile),
                                 "ws-h200": h200()})
    page = fleet_html.html(report)
    part = page.split('<h2 id="low-precision">Low precision: which recipes run on each GPU</h2>')[1].split("<h2")[0]
    escaped = "cuBLASLt said &quot;no&quot; &lt;b&gt;sm_120&lt;/b&gt; &amp; &#x27;row-wise&#x27;"
    assert '<td title="%s">refused</td>' % escaped in part
    assert '<td title="%s">refused</td>' % SM90_NVFP4 in part
    assert '<td class="pass" title="gemm_nvfp4: 1184.3 TFLOP/s, 0.7066 of peak">1184 TFLOP/s (0.71)</td>' in part
    assert '<td class="fail" title="%s">wrong result</td>' % WRONG in part
    assert "<th>torch / CUDA / cuBLASLt / driver</th><th>FP8 per-tensor</th>" in part
    seen = _parse(part)
    assert "b" not in seen.tags
    assert seen.rows == [HEADER, ["ws-5090", "0 NVIDIA GeForce RTX 5090", STACK, "331 TFLOP/s (0.79)", "refused",
                                  "318 TFLOP/s (0.76)", "wrong result", "1184 TFLOP/s (0.71)", "not measured"],
                         ["ws-h200", "0 NVIDIA H200", STACK, "1447 TFLOP/s (0.73)", "1398 TFLOP/s (0.71)", "refused",
                          "refused", "refused", "not measured"]]
    assert seen.items[0] == "ws-5090 GPU 0 FP8 row-wise: cuBLASLt said \"no\" <b>sm_120</b> & 'row-wise'"
    assert seen.items[-1] == "ws-h200 GPU 0 NVFP4: %s" % SM90_NVFP4 and len(seen.items) == 5
    assert page.index('id="low-precision"') < page.index('id="trend"')


def test_a_stored_host_keeps_its_block_and_a_damaged_block_is_drawn_as_far_as_it_goes():
    earlier = fleet_report.fleet({"ws-5090": rtx5090(), "ws-h200": h200()})
    report = fleet_report.fleet({"ws-5090": None, "ws-h200": h200()}, previous=json.dumps(earlier),
                                play_hosts=["ws-h200"])
    stored = report["hosts"][0]
    assert (stored["host"], stored["source"]) == ("ws-5090", "stored")
    assert stored["low_precision"] == fleet_low_precision.block(rtx5090())
    assert [row[0][0] for row in fleet_low_precision.table(report)[1]] == ["ws-5090", "ws-h200"]
    damaged = json.loads(json.dumps(earlier))
    damaged["hosts"][0]["low_precision"] = [1, {"gpu": 0, "recipes": "x", "libraries": "y"},
                                            {"recipes": [{"recipe": "NVFP4", "state": "runs", "value": "fast"}, 7]}]
    damaged["hosts"][1]["low_precision"] = "x"
    report = fleet_report.fleet({"ws-5090": None, "ws-h200": None}, previous=json.dumps(damaged), play_hosts=[])
    header, rows = fleet_low_precision.table(report)
    assert header == ["host", "GPU", "torch / CUDA / cuBLASLt / driver", "NVFP4"]
    assert [[text for text, _title, _state in row] for row in rows] == [
        ["ws-5090", "0", "-", "-"], ["ws-5090", "-", "-", "runs"]]
    assert "| ws-5090 | - | - | runs |" in fleet_report.markdown(report)
    assert 'id="low-precision"' in fleet_html.html(report)


def test_the_mixed_fleet_of_the_fleet_tests_shows_its_three_blocks():
    documents, earlier, play = mixed_fleet(8)
    report = fleet_report.fleet(documents, previous=json.dumps(fleet_report.fleet(earlier)), play_hosts=play)
    header, rows = fleet_low_precision.table(report)
    assert header == HEADER
    assert [row[1][0] for row in rows] == ["0 NVIDIA GeForce RTX 5090",
                                           "0 NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
                                           "0 NVIDIA H100 80GB HBM3"]
    assert [row[0][0] for row in rows] == ["ws-000", "ws-003", "ws-005"]  # ws-003: its stored result's block
    lines = section(fleet_report.markdown(report))
    assert "- FP8 row-wise: %s \\(2 GPUs\\)" % fleet_report.md_cell(ROWWISE_REFUSED) in lines
