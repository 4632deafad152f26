# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Theoretical peaks of a GPU: published figures for known models, a derivation for any other.

Compute kinds (TFLOP/s, dense, FP32 accumulate for the 16-bit and 8-bit types): fp16,
bf16, tf32, fp32, fp64, fp8, fp4 (NVFP4). Bandwidth kinds (GB/s, 1e9 bytes/s): memory,
pcie (one direction).

Where a figure comes from, first found wins:
- fp8 and fp4: the low-precision table (hardware/tensor_peaks.py), "table" for a published
  dense figure, "derived" for one computed from another published figure; its source is the note;
- the catalogue's datasheet figure ("table");
- a derivation from NVML ("derived").

Derivation:
- FLOP/s = SMs x max SM clock (NVML) x dense FLOP per clock per SM, keyed by compute
  capability, product line and dtype.
- memory bytes/s = max memory clock (NVML) x bus width / 8 x 2 (NVML reports the clock
  whose double is the data rate, on HBM and GDDR alike: H100 2619 MHz x 5120 bit -> 3352 GB/s).
- PCIe = per-lane rate of the link generation x lanes (after line encoding, one direction).
Two traps, both kept visible in `peak_note`:
- datasheets quote a boost clock that can sit below NVML's max SM clock, so a derived peak
  can read ~8% above the datasheet (H100 SXM: 1070 derived vs 989 TFLOP/s bf16);
- GeForce parts run FP16/BF16 (and TF32, FP8) with FP32 accumulate at half the tensor rate
  of workstation and data-center parts of the same architecture; FP4 runs at full rate on
  every line (4 x the full 16-bit rate, from compute capability 10.0).
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import (
    FP8_MIN_CAPABILITY, datasheet_peak, product_line, rate as arch_rate)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.tensor_peaks import (
    FP4_MIN_CAPABILITY, low_precision_peak)

COMPUTE_KINDS = ("fp16", "bf16", "tf32", "fp32", "fp64", "fp8", "fp4")
BANDWIDTH_KINDS = ("memory", "pcie")
# The datasheet figures (by exact model name), the FLOP per clock per SM of each compute capability
# and the product line of a name are the catalogue's (hardware/catalogue.py, docs/domain.md section 1).

# GB/s per lane, one direction, after line encoding (8b/10b to gen 2, 128b/130b gen 3-5,
# FLIT 242/256 gen 6). Protocol overhead leaves roughly 80-90% of it to data.
_PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def flop_per_clock_per_sm(capability: tuple[int, int], line: str, kind: str) -> int | None:
    """Dense FLOP per clock per SM for a compute kind, or None where unknown/unsupported."""
    capability = parse_capability(capability)
    if kind in ("fp32", "fp64"):
        return arch_rate(capability, kind)
    full = arch_rate(capability, "tensor")
    if full is None or kind not in ("fp16", "bf16", "tf32", "fp8", "fp4"):
        return None
    if kind == "fp4":
        return full * 4 if capability >= FP4_MIN_CAPABILITY else None
    per_sm = full // 2 if line == "geforce" else full
    if kind == "tf32":
        return per_sm // 2
    if kind == "fp8":
        return per_sm * 2 if capability >= FP8_MIN_CAPABILITY else None
    return per_sm


def derived_tflops(sm_count: int, max_sm_clock_mhz: float, rate: int) -> float:
    """SMs x clock (MHz) x FLOP/clock/SM, in TFLOP/s."""
    return sm_count * max_sm_clock_mhz * 1e6 * rate / 1e12


def derived_memory_gbps(max_mem_clock_mhz: float, bus_width_bits: int, data_rate: int = 2) -> float:
    """Memory clock (MHz) x bus width / 8 x data rate, in GB/s."""
    return max_mem_clock_mhz * 1e6 * bus_width_bits / 8.0 * data_rate / 1e9


def pcie_gbps(generation: int | None, width: int | None) -> float | None:
    """One-direction PCIe link rate in GB/s, or None for an unknown generation."""
    lane = _PCIE_LANE_GBPS.get(generation)
    return lane * width if lane is not None and width else None


def _result(peak, source, note):
    return {"peak": float("%.5g" % peak) if peak is not None else None, "peak_source": source, "peak_note": note}


def _derive_compute(gpu, kind):
    line = product_line(gpu.get("name"))
    try:
        capability = parse_capability(gpu.get("capability"))
    except ValueError:
        return _result(None, None, "no compute capability known")
    per_sm = flop_per_clock_per_sm(capability, line, kind)
    if per_sm is None:
        return _result(None, None, "no dense %s FLOP/clock/SM known for compute capability %d.%d"
                       % (kind, capability[0], capability[1]))
    sms, clock = gpu.get("sm_count"), gpu.get("max_sm_clock_mhz")
    if not sms or not clock:
        return _result(None, None, "no %s known to derive a %s peak" % (
            "SM count" if not sms else "max SM clock (NVML)", kind))
    note = ("estimate: %d SMs x %d MHz (max SM clock) x %d dense %s FLOP/clock/SM "
            "(compute capability %d.%d, %s); datasheets use a boost clock that can be lower"
            % (sms, clock, per_sm, kind, capability[0], capability[1], line))
    return _result(derived_tflops(sms, clock, per_sm), "derived", note)


def _derive_bandwidth(gpu, kind):
    if kind == "pcie":
        gen, width = gpu.get("pcie_gen_max"), gpu.get("pcie_width_max")
        value = pcie_gbps(gen, width)
        if value is None:
            return _result(None, None, "no PCIe link generation and width known (NVML)")
        return _result(value, "derived", "PCIe gen %s x%s link rate, one direction, after line "
                       "encoding (protocol overhead leaves ~80-90%% to data)" % (gen, width))
    clock, bus = gpu.get("max_mem_clock_mhz"), gpu.get("memory_bus_width_bits")
    if not clock or not bus:
        return _result(None, None, "no max memory clock and bus width known (NVML)")
    return _result(derived_memory_gbps(clock, bus), "derived",
                   "%d MHz (max memory clock) x %d bit / 8 x 2" % (clock, bus))


def peak(gpu: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """{peak, peak_source: "table" | "derived" | None, peak_note} for one GPU and kind.

    gpu: name, capability, sm_count, max_sm_clock_mhz, max_mem_clock_mhz,
    memory_bus_width_bits, pcie_gen_max, pcie_width_max (missing values are tolerated).
    """
    if kind not in COMPUTE_KINDS + BANDWIDTH_KINDS:
        raise ValueError("unknown peak kind %r" % (kind,))
    low_precision = low_precision_peak(gpu.get("name"), kind)
    if low_precision is not None:
        return _result(float(low_precision["value"]), "derived" if low_precision["derived"] else "table",
                       low_precision["source"])
    figure = datasheet_peak(gpu.get("name"), kind)
    if figure is not None:
        return _result(float(figure), "table", "datasheet figure for %s" % gpu["name"].strip())
    if kind in COMPUTE_KINDS:
        return _derive_compute(gpu, kind)
    return _derive_bandwidth(gpu, kind)
