"""The low-precision peak table: every figure has a source and a derived flag, names a catalogue product, holds the
published values, and docs/domain.md section 1 lists the same table."""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue, tensor_peaks

DOMAIN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "docs", "domain.md")

# product -> {kind: (TFLOP/s dense, derived)}
EXPECTED = {
    "NVIDIA GeForce RTX 5090": {"fp8": (419, False), "fp8_fp16acc": (838, False), "fp4": (1676, False)},
    "NVIDIA GeForce RTX 5080": {"fp8": (225.1, True), "fp8_fp16acc": (450.2, True), "fp4": (900.4, True)},
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": {"fp8": (1000, True), "fp4": (2000, True)},
    "NVIDIA RTX PRO 5000 Blackwell": {"fp8": (516, True), "fp4": (1032, True)},
    "NVIDIA RTX PRO 4500 Blackwell": {"fp8": (439.5, True), "fp4": (879.0, True)},
    "NVIDIA B200": {"fp8": (4500, False), "fp4": (9000, False)},
    "NVIDIA HGX GB200": {"fp8": (5000, False), "fp4": (10000, False)},
    "NVIDIA B300 SXM6 AC": {"fp8": (4500, True), "fp4": (13500, True)},
    "NVIDIA GB300": {"fp8": (5000, True), "fp4": (15000, True)},
    "NVIDIA GB10": {"fp4": (500, True)},
    "NVIDIA H100 80GB HBM3": {"fp8": (1979, False)},
    "NVIDIA H100 PCIe": {"fp8": (1513, False)},
    "NVIDIA H200": {"fp8": (1979, False)},
}


def test_the_table_holds_the_published_figures():
    assert dict((name, dict((kind, (figure["value"], figure["derived"])) for kind, figure in kinds.items()))
                for name, kinds in tensor_peaks.PEAKS.items()) == EXPECTED


def test_every_figure_has_a_source_a_derived_flag_and_a_positive_value():
    assert tensor_peaks.KINDS == ("fp8", "fp8_fp16acc", "fp4")
    for name, kinds in tensor_peaks.PEAKS.items():
        assert kinds and set(kinds) <= set(tensor_peaks.KINDS), name
        for kind, figure in kinds.items():
            assert sorted(figure) == ["derived", "source", "value"], (name, kind)
            value = figure["value"]
            assert isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0, (name, kind)
            assert isinstance(figure["derived"], bool), (name, kind)
            assert isinstance(figure["source"], str) and figure["source"].strip(), (name, kind)
            # a derived figure says so first; a published one does not
            assert figure["source"].startswith("derived: ") == figure["derived"], (name, kind)


def test_every_product_is_in_the_catalogue_and_fp4_only_from_blackwell():
    for name, kinds in tensor_peaks.PEAKS.items():
        row = catalogue.product(name)
        assert row is not None, name
        assert ("fp4" in kinds) == (row["capability"] >= tensor_peaks.FP4_MIN_CAPABILITY), name


def test_the_fp16_accumulate_figure_only_on_geforce_and_its_fp8_figure_names_the_accumulate():
    for name, kinds in tensor_peaks.PEAKS.items():
        geforce = catalogue.product_line(name) == catalogue.GEFORCE
        assert ("fp8_fp16acc" in kinds) == geforce, name
        if geforce:
            assert kinds["fp8_fp16acc"]["value"] == 2 * kinds["fp8"]["value"], name
            assert "FP32 accumulate" in kinds["fp8"]["source"], name
            assert "(FP16 accumulate: %s TFLOP/s)" % kinds["fp8_fp16acc"]["value"] in kinds["fp8"]["source"], name


def test_the_rtx_pro_4500_figure_is_its_sms_x_boost_clock_x_fp4_rate():
    assert round(82 * 2617e6 * 4096 / 1e12, 1) == tensor_peaks.PEAKS["NVIDIA RTX PRO 4500 Blackwell"]["fp4"]["value"]


def test_lookups():
    assert tensor_peaks.low_precision_peak("NVIDIA GeForce RTX 5090", "fp8") == {
        "value": 419, "derived": False,
        "source": "NVIDIA RTX Blackwell GPU architecture whitepaper, GeForce RTX 5090 table: FP8 dense with FP32 "
                  "accumulate, which GeForce runs at half the FP16-accumulate rate (FP16 accumulate: 838 TFLOP/s)"}
    assert tensor_peaks.low_precision_peak(" NVIDIA B300 SXM6 AC ", "fp4") == {
        "value": 13500, "derived": True,
        "source": "derived: NVIDIA HGX B300 datasheet: 108 PFLOPS FP4 dense for 8 GPUs, / 8"}
    assert tensor_peaks.low_precision_peak("NVIDIA H100 80GB HBM3", "fp8")["source"] == (
        "NVIDIA H100 SXM datasheet: FP8 3958 TFLOP/s with sparsity; dense = sparse / 2")
    assert tensor_peaks.low_precision_peak("NVIDIA H100 80GB HBM3", "fp4") is None
    assert tensor_peaks.low_precision_peak("NVIDIA H100 80GB HBM3", "bf16") is None
    assert tensor_peaks.low_precision_peak("NVIDIA GeForce RTX 5090 D", "fp8") is None
    assert tensor_peaks.low_precision_peak(None, "fp8") is None
    assert sorted(tensor_peaks.product_peaks("NVIDIA GB10")) == ["fp4"]
    assert tensor_peaks.product_peaks("NVIDIA L40S") == {}
    # answers are copies: changing one leaves the table as it was
    tensor_peaks.low_precision_peak("NVIDIA B200", "fp8")["value"] = 1
    tensor_peaks.product_peaks("NVIDIA B200")["fp4"]["value"] = 1
    assert tensor_peaks.PEAKS["NVIDIA B200"]["fp8"]["value"] == 4500
    assert tensor_peaks.PEAKS["NVIDIA B200"]["fp4"]["value"] == 9000


def _documented_table():
    """{product: {kind: (value, derived)}} of docs/domain.md's low-precision peak table."""
    with open(DOMAIN, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    header = "| product | FP8 (FP32 accumulate) | FP8 (FP16 accumulate) | FP4 | source | derived |"
    table = {}
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("|"):
            break
        name, fp8, fp8_fp16acc, fp4, _source, derived = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert derived in ("yes", "no"), name
        table[name] = dict((kind, (float(value), derived == "yes")) for kind, value in (
            ("fp8", fp8), ("fp8_fp16acc", fp8_fp16acc), ("fp4", fp4)) if value != "-")
    return table


def test_docs_list_the_same_table():
    assert _documented_table() == EXPECTED
