# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Low-precision tensor peaks per product: FP8 and FP4, dense, in TFLOP/s, each with where it comes from.

Kinds:
- "fp8": FP8 (e4m3/e5m2) dense with FP32 accumulate, what torch._scaled_mm runs;
- "fp8_fp16acc": FP8 dense with FP16 accumulate, listed only where it differs from "fp8" (GeForce, which
  runs FP8 with FP32 accumulate at half the FP16-accumulate rate);
- "fp4": NVFP4 (e2m1) dense.

Every figure has a `source` (the publication and how the figure was read from it) and a `derived` flag:
True when it was computed from another published figure (a sparse figure halved, a share of a system
total, SMs x boost clock x rate), False when the publication gives the dense per-GPU figure itself (the
data-center datasheets print the sparse figure and say the dense one is half of it). Products are keyed
by the exact name NVML and torch report (hardware.catalogue.PRODUCTS); a product or kind without a row
is derived from NVML's clocks by benchmark.gpu_peaks. docs/domain.md section 1 lists the same table.
Pure data and lookups, no Ansible import.
"""
from __future__ import annotations

from typing import Any

FP8, FP8_FP16_ACCUMULATE, FP4 = "fp8", "fp8_fp16acc", "fp4"
KINDS = (FP8, FP8_FP16_ACCUMULATE, FP4)
# NVFP4 tensor math from this compute capability on (Blackwell).
FP4_MIN_CAPABILITY = (10, 0)


def _figure(value, source, derived):
    return {"value": value, "source": source, "derived": derived}


_RTX_WHITEPAPER = "NVIDIA RTX Blackwell GPU architecture whitepaper, GeForce RTX 5090 table"
_GEFORCE_FP8 = ("FP8 dense with FP32 accumulate, which GeForce runs at half the FP16-accumulate rate "
                "(FP16 accumulate: %s TFLOP/s)")
_WORKSTATION_FP8 = "workstation parts accumulate FP8 in FP32 at full rate"
_HGX_B200 = "NVIDIA HGX B200 datasheet, per GPU"
_GB200 = "NVIDIA GB200 NVL72 datasheet, per GPU"
_HGX_B300 = "NVIDIA HGX B300 datasheet: %s PFLOPS %s dense for 8 GPUs, / 8"
_GB300 = "NVIDIA GB300 NVL72 datasheet: %s PFLOPS %s dense for 72 GPUs, / 72"
_HOPPER = "NVIDIA %s datasheet: FP8 %s TFLOP/s with sparsity; dense = sparse / 2"

PEAKS = {
    "NVIDIA GeForce RTX 5090": {
        FP8: _figure(419, "%s: %s" % (_RTX_WHITEPAPER, _GEFORCE_FP8 % 838), False),
        FP8_FP16_ACCUMULATE: _figure(838, "%s: FP8 dense with FP16 accumulate" % _RTX_WHITEPAPER, False),
        FP4: _figure(1676, "%s: FP4 dense" % _RTX_WHITEPAPER, False),
    },
    "NVIDIA GeForce RTX 5080": {
        FP8: _figure(225.1, "derived: the FP4 figure / 4; %s" % (_GEFORCE_FP8 % 450.2), True),
        FP8_FP16_ACCUMULATE: _figure(450.2, "derived: the FP4 figure / 2, FP8 dense with FP16 accumulate", True),
        FP4: _figure(900.4, "derived: NVIDIA's 1801 AI TOPS for the GeForce RTX 5080 (FP4 with sparsity) / 2", True),
    },
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": {
        FP8: _figure(1000, "derived: the FP4 figure / 2; %s" % _WORKSTATION_FP8, True),
        FP4: _figure(2000, "derived: NVIDIA RTX PRO 6000 Blackwell Workstation Edition datasheet, 4000 AI TOPS "
                           "(FP4 with sparsity) / 2; the datasheet gives no tensor TFLOP/s", True),
    },
    "NVIDIA RTX PRO 5000 Blackwell": {
        FP8: _figure(516, "derived: the FP4 figure / 2; %s" % _WORKSTATION_FP8, True),
        FP4: _figure(1032, "derived: NVIDIA RTX PRO 5000 Blackwell datasheet, 2064 AI TOPS (FP4 with sparsity) / 2",
                     True),
    },
    "NVIDIA RTX PRO 4500 Blackwell": {
        FP8: _figure(439.5, "derived: the FP4 figure / 2; %s" % _WORKSTATION_FP8, True),
        FP4: _figure(879.0, "derived: 82 SMs x 2617 MHz (boost clock) x 4096 dense FP4 FLOP/clock/SM", True),
    },
    "NVIDIA B200": {
        FP8: _figure(4500, "%s, FP8 dense (dense = sparse / 2)" % _HGX_B200, False),
        FP4: _figure(9000, "%s, FP4 dense (dense = sparse / 2)" % _HGX_B200, False),
    },
    "NVIDIA HGX GB200": {
        FP8: _figure(5000, "%s, FP8 dense (dense = sparse / 2)" % _GB200, False),
        FP4: _figure(10000, "%s, FP4 dense (dense = sparse / 2)" % _GB200, False),
    },
    "NVIDIA B300 SXM6 AC": {
        FP8: _figure(4500, "derived: %s" % (_HGX_B300 % (36, "FP8")), True),
        FP4: _figure(13500, "derived: %s" % (_HGX_B300 % (108, "FP4")), True),
    },
    "NVIDIA GB300": {
        FP8: _figure(5000, "derived: %s" % (_GB300 % (360, "FP8")), True),
        FP4: _figure(15000, "derived: %s" % (_GB300 % (1080, "FP4")), True),
    },
    "NVIDIA GB10": {
        FP4: _figure(500, "derived: NVIDIA DGX Spark, 1 PFLOP FP4 with sparsity / 2", True),
    },
    "NVIDIA H100 80GB HBM3": {FP8: _figure(1979, _HOPPER % ("H100 SXM", 3958), False)},
    "NVIDIA H100 PCIe": {FP8: _figure(1513, _HOPPER % ("H100 PCIe", 3026), False)},
    "NVIDIA H200": {FP8: _figure(1979, _HOPPER % ("H200 SXM", 3958), False)},
}


def low_precision_peak(name: str | None, kind: str) -> dict[str, Any] | None:
    """{value, source, derived} of `kind` for a product (exact model name, surrounding spaces ignored), or None."""
    figure = PEAKS.get((name or "").strip(), {}).get(kind)
    return dict(figure) if figure else None


def product_peaks(name: str) -> dict[str, dict[str, Any]]:
    """{kind: {value, source, derived}} of every low-precision figure a product has ({} for none)."""
    return dict((kind, dict(figure)) for kind, figure in PEAKS.get((name or "").strip(), {}).items())
