from __future__ import annotations

import pytest

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import (
    BANDWIDTH_KINDS, COMPUTE_KINDS, derived_memory_gbps, derived_tflops, flop_per_clock_per_sm, pcie_gbps, peak,
    product_line)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import TESTS
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue, tensor_peaks
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import nvml_snapshot


def gpu_from_nvml(card, sm_count, name=None):
    """A GPU as the module sees it: NVML facts (fake, real values) plus torch's SM count."""
    (facts,) = nvml_snapshot(fake.FakeNVML([card]))["gpus"]
    return dict(facts, name=name or facts["name"], capability=facts["compute_capability"], sm_count=sm_count)


H100 = gpu_from_nvml(fake.H100, 132)
RTX_5090 = gpu_from_nvml(fake.RTX_5090, 170)
RTX_PRO_6000 = gpu_from_nvml(fake.RTX_PRO_6000, 188)


def test_hopper_memory_derivation_matches_the_datasheet():
    # 2619 MHz x 5120 bit / 8 x 2 = 3352 GB/s (datasheet 3350)
    assert derived_memory_gbps(2619, 5120) == pytest.approx(3352.32)


def test_hopper_bf16_derivation_sits_above_the_datasheet_boost_clock_figure():
    derived = derived_tflops(132, 1980, flop_per_clock_per_sm((9, 0), "datacenter", "bf16"))
    assert derived == pytest.approx(1070.5, abs=0.1)
    assert derived_tflops(132, 1830, 4096) == pytest.approx(989.4, abs=0.1)  # the datasheet's clock
    assert 1.07 < derived / 989 < 1.09


def test_h100_sxm_uses_the_table_where_it_has_the_figure():
    assert peak(H100, "bf16") == {"peak": 989.0, "peak_source": "table",
                                  "peak_note": "datasheet figure for NVIDIA H100 80GB HBM3"}
    assert peak(H100, "memory")["peak"] == 3350.0
    assert peak(H100, "fp32")["peak_source"] == "table"


@pytest.mark.parametrize("kind, expected", [("tf32", 535.3), ("fp64", 66.9)])
def test_h100_derives_what_the_table_lacks(kind, expected):
    result = peak(H100, kind)
    assert result["peak_source"] == "derived"
    assert result["peak"] == pytest.approx(expected, abs=0.1)
    assert result["peak_note"].startswith("estimate: 132 SMs x 1980 MHz")


def test_h100_fp8_is_the_datasheet_dense_figure_and_an_unlisted_hopper_derives_it():
    assert peak(H100, "fp8") == {"peak": 1979.0, "peak_source": "table", "peak_note": (
        "NVIDIA H100 SXM datasheet: FP8 3958 TFLOP/s with sparsity; dense = sparse / 2")}
    # 132 SMs x 1980 MHz x 8192 (2 x the 16-bit rate): 8% above the datasheet, whose boost clock is lower
    assert peak(dict(H100, name="NVIDIA H100 NVL"), "fp8") == {"peak": 2141.1, "peak_source": "derived", "peak_note": (
        "estimate: 132 SMs x 1980 MHz (max SM clock) x 8192 dense fp8 FLOP/clock/SM (compute capability 9.0, "
        "datacenter); datasheets use a boost clock that can be lower")}


def test_an_unlisted_hopper_is_derived_from_nvml():
    unlisted = dict(H100, name="NVIDIA H100 NVL")
    assert peak(unlisted, "bf16")["peak"] == pytest.approx(1070.5, abs=0.1)
    memory = peak(unlisted, "memory")
    assert (memory["peak"], memory["peak_source"]) == (3352.3, "derived")
    assert memory["peak_note"] == "2619 MHz (max memory clock) x 5120 bit / 8 x 2"


def test_rtx_5090_geforce_runs_fp16_with_fp32_accumulate_at_half_rate():
    assert flop_per_clock_per_sm((12, 0), "geforce", "bf16") == 512
    assert flop_per_clock_per_sm((12, 0), "workstation", "bf16") == 1024
    assert peak(RTX_5090, "bf16") == {"peak": 209.5, "peak_source": "table",
                                      "peak_note": "datasheet figure for NVIDIA GeForce RTX 5090"}
    # what the tables lack is derived at the GeForce rate: 170 SMs x 3090 MHz x 1024 (FP8) or 256 (TF32)
    assert flop_per_clock_per_sm((12, 0), "geforce", "fp8") == 1024
    assert peak(dict(RTX_5090, name="NVIDIA GeForce RTX 5090 D"), "fp8")["peak"] == 537.91  # no FP8 figure for it
    assert peak(RTX_5090, "tf32")["peak"] == pytest.approx(170 * 3090e6 * 256 / 1e12, abs=0.1)
    assert "geforce" in peak(RTX_5090, "tf32")["peak_note"]
    assert peak(RTX_5090, "memory")["peak"] == 1792.0
    assert derived_memory_gbps(14001, 512) == pytest.approx(1792.1, abs=0.1)


def test_rtx_pro_6000_blackwell_full_rate_and_its_table_figures():
    bf16 = peak(RTX_PRO_6000, "bf16")
    assert bf16["peak_source"] == "derived"  # the ~500 TF figure is not confirmed (docs/domain.md): not in the table
    assert bf16["peak"] == pytest.approx(188 * 2617e6 * 1024 / 1e12, abs=0.1)
    assert 495 < bf16["peak"] < 510
    assert peak(RTX_PRO_6000, "fp32") == {"peak": 125.0, "peak_source": "table",
                                          "peak_note": "datasheet figure for "
                                                       "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"}
    assert peak(RTX_PRO_6000, "memory")["peak"] == 1792.0
    assert peak(RTX_PRO_6000, "fp64")["peak"] == pytest.approx(188 * 2617e6 * 4 / 1e12, abs=0.01)


def test_b200_table():
    assert peak({"name": "NVIDIA B200", "capability": "10.0"}, "bf16")["peak"] == 2250.0


def test_rtx_5090_fp8_is_the_fp32_accumulate_figure_of_the_whitepaper():
    result = peak(RTX_5090, "fp8")
    assert (result["peak"], result["peak_source"]) == (419.0, "table")
    assert result["peak_note"] == (
        "NVIDIA RTX Blackwell GPU architecture whitepaper, GeForce RTX 5090 table: FP8 dense with FP32 accumulate, "
        "which GeForce runs at half the FP16-accumulate rate (FP16 accumulate: 838 TFLOP/s)")
    assert peak(RTX_5090, "fp4") == {"peak": 1676.0, "peak_source": "table", "peak_note": (
        "NVIDIA RTX Blackwell GPU architecture whitepaper, GeForce RTX 5090 table: FP4 dense")}


def test_rtx_pro_6000_low_precision_figures_are_derived_from_its_ai_tops():
    assert peak(RTX_PRO_6000, "fp8") == {"peak": 1000.0, "peak_source": "derived", "peak_note": (
        "derived: the FP4 figure / 2; workstation parts accumulate FP8 in FP32 at full rate")}
    fp4 = peak(RTX_PRO_6000, "fp4")
    assert (fp4["peak"], fp4["peak_source"]) == (2000.0, "derived")
    assert fp4["peak_note"].startswith("derived: NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet, "
                                       "4000 AI TOPS (FP4 with sparsity) / 2")


def test_data_center_low_precision_figures():
    b200 = peak({"name": "NVIDIA B200", "capability": "10.0"}, "fp4")
    assert b200 == {"peak": 9000.0, "peak_source": "table",
                    "peak_note": "NVIDIA HGX B200 datasheet, per GPU, FP4 dense (dense = sparse / 2)"}
    gb300 = peak({"name": "NVIDIA GB300", "capability": "10.3"}, "fp8")
    assert (gb300["peak"], gb300["peak_source"]) == (5000.0, "derived")
    assert peak({"name": "NVIDIA H200", "capability": "9.0"}, "fp8")["peak"] == 1979.0
    assert peak({"name": "NVIDIA H100 PCIe", "capability": "9.0"}, "fp8")["peak"] == 1513.0


@pytest.mark.parametrize("capability, line, expected", [
    ((12, 0), "geforce", 4096), ((12, 0), "workstation", 4096), ((10, 0), "datacenter", 32768),
    ((9, 0), "datacenter", None), ((8, 9), "geforce", None), ((10, 3), "datacenter", None),  # 10.3: rate not known
])
def test_fp4_rate_is_four_times_the_full_16_bit_rate_from_blackwell_on_every_line(capability, line, expected):
    assert flop_per_clock_per_sm(capability, line, "fp4") == expected


def test_fp4_of_an_unlisted_blackwell_is_derived_from_nvml():
    # RTX PRO 6000 Server Edition: in the catalogue, not in the low-precision table; 188 SMs x 2617 MHz x 4096
    server = dict(RTX_PRO_6000, name="NVIDIA RTX PRO 6000 Blackwell Server Edition")
    assert peak(server, "fp4") == {"peak": 2015.2, "peak_source": "derived", "peak_note": (
        "estimate: 188 SMs x 2617 MHz (max SM clock) x 4096 dense fp4 FLOP/clock/SM (compute capability 12.0, "
        "workstation); datasheets use a boost clock that can be lower")}
    # GeForce runs FP4 at the full rate too: 170 SMs x 3090 MHz x 4096
    assert peak(dict(RTX_5090, name="NVIDIA GeForce RTX 5090 D"), "fp4")["peak"] == 2151.6
    # 10.0: 148 SMs x 1965 MHz x 8192 x 4
    hgx = {"name": "NVIDIA HGX B200 168GB", "capability": "10.0", "sm_count": 148, "max_sm_clock_mhz": 1965}
    assert peak(hgx, "fp4") == {"peak": 9529.6, "peak_source": "derived", "peak_note": (
        "estimate: 148 SMs x 1965 MHz (max SM clock) x 32768 dense fp4 FLOP/clock/SM (compute capability 10.0, "
        "datacenter); datasheets use a boost clock that can be lower")}


def test_no_fp4_on_hopper_and_gb10_has_only_its_fp4_figure():
    assert peak(H100, "fp4") == {"peak": None, "peak_source": None,
                                 "peak_note": "no dense fp4 FLOP/clock/SM known for compute capability 9.0"}
    gb10 = {"name": "NVIDIA GB10", "capability": "12.1", "sm_count": 48, "max_sm_clock_mhz": 3003}
    assert peak(gb10, "fp4") == {"peak": 500.0, "peak_source": "derived",
                                 "peak_note": "derived: NVIDIA DGX Spark, 1 PFLOP FP4 with sparsity / 2"}
    assert peak(gb10, "fp8") == {"peak": None, "peak_source": None,
                                 "peak_note": "no dense fp8 FLOP/clock/SM known for compute capability 12.1"}


@pytest.mark.parametrize("name, line", [
    ("NVIDIA GeForce RTX 5090", "geforce"), ("NVIDIA GeForce RTX 4090", "geforce"),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "workstation"), ("NVIDIA RTX A6000", "workstation"),
    ("NVIDIA RTX 6000 Ada Generation", "workstation"), ("NVIDIA H100 80GB HBM3", "datacenter"),
    ("NVIDIA L40S", "datacenter"), ("NVIDIA A100-SXM4-80GB", "datacenter"),
])
def test_product_line(name, line):
    assert product_line(name) == line


@pytest.mark.parametrize("gpu, kind, note", [
    ({"name": "NVIDIA GeForce RTX 3090", "capability": "8.6", "sm_count": 82, "max_sm_clock_mhz": 2100}, "fp8",
     "no dense fp8 FLOP/clock/SM known for compute capability 8.6"),
    ({"name": "Tesla T4", "capability": "7.5", "sm_count": 40, "max_sm_clock_mhz": 1590}, "fp16",
     "no dense fp16 FLOP/clock/SM known for compute capability 7.5"),
    ({"name": "NVIDIA L40S", "capability": "8.9", "sm_count": 142}, "bf16",
     "no max SM clock (NVML) known to derive a bf16 peak"),
    ({"name": "NVIDIA L40S", "capability": "8.9"}, "memory", "no max memory clock and bus width known (NVML)"),
    ({"name": "NVIDIA L40S", "capability": "8.9"}, "pcie", "no PCIe link generation and width known (NVML)"),
])
def test_no_peak_when_it_cannot_be_known(gpu, kind, note):
    assert peak(gpu, kind) == {"peak": None, "peak_source": None, "peak_note": note}


def test_pcie_link_rates():
    assert pcie_gbps(5, 16) == pytest.approx(63.0, abs=0.01)
    assert pcie_gbps(4, 4) == pytest.approx(7.876)
    assert pcie_gbps(7, 16) is None
    result = peak(H100, "pcie")
    assert result["peak"] == pytest.approx(63.0, abs=0.01) and result["peak_source"] == "derived"


def test_every_list_of_peak_kinds_agrees():
    assert COMPUTE_KINDS + BANDWIDTH_KINDS == ("fp16", "bf16", "tf32", "fp32", "fp64", "fp8", "fp4", "memory", "pcie")
    assert set(COMPUTE_KINDS + BANDWIDTH_KINDS) == set(catalogue.PEAK_KINDS)
    # the low-precision table's kinds a test can ask for; fp8_fp16acc is for reading only (GeForce's other rate)
    assert set(tensor_peaks.KINDS) - set(COMPUTE_KINDS) == {"fp8_fp16acc"}
    for name, spec in TESTS.items():
        assert spec["peak_kind"] in COMPUTE_KINDS + BANDWIDTH_KINDS + (None,), name


def test_unknown_peak_kind_is_a_programming_error():
    with pytest.raises(ValueError):
        peak(H100, "int4")
