# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Theoretical peaks of a GPU: a spec table for known models, a derivation for any other.

Compute kinds (TFLOP/s, dense, FP32 accumulate for the 16-bit and 8-bit types): fp16,
bf16, tf32, fp32, fp64, fp8. Bandwidth kinds (GB/s, 1e9 bytes/s): memory, pcie (one
direction).

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
  of workstation and data-center parts of the same architecture.
Pure functions, no Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

COMPUTE_KINDS = ("fp16", "bf16", "tf32", "fp32", "fp64", "fp8")
BANDWIDTH_KINDS = ("memory", "pcie")

# Exact model name (as NVML and torch report it) -> datasheet figures (docs/domain.md, section 1).
# Only confirmed values; a kind missing here is derived.
SPEC_TABLE = {
    "NVIDIA GeForce RTX 5090": {"memory": 1792, "fp32": 104.8, "fp16": 209.5, "bf16": 209.5},
    "NVIDIA GeForce RTX 5080": {"memory": 960, "fp32": 56.3, "fp16": 112.6, "bf16": 112.6},
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": {"memory": 1792, "fp32": 125},
    "NVIDIA B200": {"memory": 8000, "fp32": 80, "fp16": 2250, "bf16": 2250},
    "NVIDIA H100 80GB HBM3": {"memory": 3350, "fp32": 67, "fp16": 989, "bf16": 989},
    "NVIDIA H100 PCIe": {"memory": 2000, "fp32": 51, "fp16": 756, "bf16": 756},
    "NVIDIA H200": {"memory": 4800, "fp32": 67, "fp16": 989, "bf16": 989},
}

# Dense FP16/BF16 tensor FLOP per clock per SM with FP32 accumulate, at full rate
# (workstation and data center). GeForce runs half of it. A100 312 TF = 108 x 1.41 GHz x 2048;
# H100 989 TF = 132 x 1.83 GHz x 4096; RTX 5090 209.5 TF = 170 x 2.41 GHz x 512 (GeForce).
_TENSOR_FULL_RATE = {(8, 0): 2048, (8, 6): 1024, (8, 9): 1024, (9, 0): 4096, (10, 0): 8192, (12, 0): 1024}
# Non-tensor FP32 (FFMA = 2 FLOP per lane per clock).
_FP32_RATE = {(8, 0): 128, (8, 6): 256, (8, 9): 256, (9, 0): 256, (10, 0): 256, (12, 0): 256}
# FP64 as cuBLAS runs it: tensor-core DMMA on A100/H100/B200, 1/64 of FP32 elsewhere.
_FP64_RATE = {(8, 0): 128, (8, 6): 4, (8, 9): 4, (9, 0): 256, (10, 0): 128, (12, 0): 4}
_FP8_MIN_CAPABILITY = (8, 9)

# GB/s per lane, one direction, after line encoding (8b/10b to gen 2, 128b/130b gen 3-5,
# FLIT 242/256 gen 6). Protocol overhead leaves roughly 80-90% of it to data.
_PCIE_LANE_GBPS = {1: 0.25, 2: 0.5, 3: 0.985, 4: 1.969, 5: 3.938, 6: 7.563}


def product_line(name):
    """"geforce", "workstation" (RTX PRO, RTX A/Ada, Quadro) or "datacenter"."""
    text = (name or "").lower()
    if "geforce" in text:
        return "geforce"
    if "rtx" in text or "quadro" in text:
        return "workstation"
    return "datacenter"


def flop_per_clock_per_sm(capability, line, kind):
    """Dense FLOP per clock per SM for a compute kind, or None where unknown/unsupported."""
    capability = parse_capability(capability)
    if kind == "fp32":
        return _FP32_RATE.get(capability)
    if kind == "fp64":
        return _FP64_RATE.get(capability)
    full = _TENSOR_FULL_RATE.get(capability)
    if full is None or kind not in ("fp16", "bf16", "tf32", "fp8"):
        return None
    rate = full // 2 if line == "geforce" else full
    if kind == "tf32":
        return rate // 2
    if kind == "fp8":
        return rate * 2 if capability >= _FP8_MIN_CAPABILITY else None
    return rate


def derived_tflops(sm_count, max_sm_clock_mhz, rate):
    """SMs x clock (MHz) x FLOP/clock/SM, in TFLOP/s."""
    return sm_count * max_sm_clock_mhz * 1e6 * rate / 1e12


def derived_memory_gbps(max_mem_clock_mhz, bus_width_bits, data_rate=2):
    """Memory clock (MHz) x bus width / 8 x data rate, in GB/s."""
    return max_mem_clock_mhz * 1e6 * bus_width_bits / 8.0 * data_rate / 1e9


def pcie_gbps(generation, width):
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
    rate = flop_per_clock_per_sm(capability, line, kind)
    if rate is None:
        return _result(None, None, "no dense %s FLOP/clock/SM known for compute capability %d.%d"
                       % (kind, capability[0], capability[1]))
    sms, clock = gpu.get("sm_count"), gpu.get("max_sm_clock_mhz")
    if not sms or not clock:
        return _result(None, None, "no %s known to derive a %s peak" % (
            "SM count" if not sms else "max SM clock (NVML)", kind))
    note = ("estimate: %d SMs x %d MHz (max SM clock) x %d dense %s FLOP/clock/SM "
            "(compute capability %d.%d, %s); datasheets use a boost clock that can be lower"
            % (sms, clock, rate, kind, capability[0], capability[1], line))
    return _result(derived_tflops(sms, clock, rate), "derived", note)


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


def peak(gpu, kind):
    """{peak, peak_source: "table" | "derived" | None, peak_note} for one GPU and kind.

    gpu: name, capability, sm_count, max_sm_clock_mhz, max_mem_clock_mhz,
    memory_bus_width_bits, pcie_gen_max, pcie_width_max (missing values are tolerated).
    """
    if kind not in COMPUTE_KINDS + BANDWIDTH_KINDS:
        raise ValueError("unknown peak kind %r" % (kind,))
    entry = SPEC_TABLE.get((gpu.get("name") or "").strip())
    if entry is not None and kind in entry:
        return _result(float(entry[kind]), "table", "datasheet figure for %s" % gpu["name"].strip())
    if kind in COMPUTE_KINDS:
        return _derive_compute(gpu, kind)
    return _derive_bandwidth(gpu, kind)
