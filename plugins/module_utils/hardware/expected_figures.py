# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Expected figures: the fraction of its peak a healthy GPU of a model reaches in each benchmark test.

A theoretical peak is the wrong floor for many tests: SDPA, softmax and LayerNorm never come near it
on a healthy GPU (on an H200, softmax over 8192 bf16 columns reaches 0.22 of the memory peak while a
plain copy of the same tensor reaches 0.85). So each benchmark figure is compared with what the
same model reached when it was healthy, measured the same way, at the same size.

A row of REFERENCES: the model (the exact name NVML and torch report, as the catalogue's PRODUCTS),
the test, its size (the figure's size text, e.g. "m=8192 n=8192 k=8192 bf16"), the backend for tests
that name one (sdpa: the backend torch picks by default), the profile it was measured with (a standard
run's 20 repetitions let power and clocks settle lower than a quick run's 10; the sustained test's
figure is its last 5 seconds whatever the profile, so its rows hold for every profile: None), the
fraction of the model's peak (the peak torch_benchmark gives it: the catalogue's datasheet figure, else
derived from NVML) and its source (a SOURCES key: where, on what, and how it was measured).
There is no row for a model, test or size that was not measured: such a figure is compared with its
peers only, never with the raw peak. benchmarks/expected_reference.py measures new rows.
Pure data and functions, no Ansible import; runs in the benchmark's parent.
"""
from __future__ import annotations

from typing import Any

# How every row was measured: the benchmark's own code (torch_benchmark), so a figure is compared with
# a reference taken by the same method.
METHOD = ("torch_benchmark's method: CUDA events, 25 ms warm-up, median of >= 10 repetitions, inputs "
          "rotated past L2; the row is the median over runs and cards (benchmarks/expected_reference.py)")
SOURCES = {
    "h200": "measured on 2 x NVIDIA H200, driver 580.159.04, torch 2.11.0+cu130 (cuDNN 9.19), 2026-11-28: one quick run "
            "of each card, the lower (benchmarks/lab_readings.py; SDPA through cuDNN from its own measurement)",
    "h100": "measured on NVIDIA H100 80GB HBM3 (700 W), driver 580.159.04, torch 2.11.0+cu130 (cuDNN 9.19), "
            "2026-11-28",
}
_QUICK = {
    "gemm_fp16": "m=8192 n=8192 k=8192 fp16", "gemm_bf16": "m=8192 n=8192 k=8192 bf16",
    "gemm_tf32": "m=8192 n=8192 k=8192 tf32", "gemm_fp32": "m=4096 n=4096 k=4096 fp32",
    "gemm_fp64": "m=4096 n=4096 k=4096 fp64", "gemm_fp8": "m=8192 n=8192 k=8192 fp8",
    "gemm_batched": "batch=32 m=1024 n=1024 k=1024 bf16", "memcpy": "mib=1024",
    "sdpa": "batch=8 heads=16 seq=2048 head_dim=128 bf16",
    "conv2d": "batch=32 channels=256 height=56 width=56 kernel=3 bf16",
    "layernorm": "rows=16384 cols=8192 bf16", "softmax": "rows=16384 cols=8192 bf16",
    "sustained": "m=8192 n=8192 k=8192 seconds=25 bf16",
}
_BACKENDS = {"sdpa": "CUDNN_ATTENTION"}


ANY_PROFILE = ("sustained",)


def _rows(model, source, fractions):
    """One row per test of the quick profile's sizes: (model, test, size, backend, profile) -> (fraction, source)."""
    return dict(((model, test, _QUICK[test], _BACKENDS.get(test), None if test in ANY_PROFILE else "quick"),
                 (fraction, source)) for test, fraction in fractions.items())


# gemm_fp8's rows are against the datasheet's FP8 peak (1979 TFLOP/s dense, hardware/tensor_peaks.py): the same
# measurements read 0.64 (H100) and 0.67 (H200) of the 2141 TFLOP/s derived from NVML's clock before the table had it.
# h2d and d2h have no rows: a copy over PCIe depends on the host (its slot, CPU, IOMMU) as much as on the GPU,
# so those figures are compared with the same model on other hosts only.
REFERENCES = {}
REFERENCES.update(_rows("NVIDIA H100 80GB HBM3", "h100", {
    "gemm_fp16": 0.76, "gemm_bf16": 0.79, "gemm_tf32": 0.75, "gemm_fp32": 0.73, "gemm_fp64": 0.89,
    "gemm_fp8": 0.69, "gemm_batched": 0.60, "memcpy": 0.89, "sdpa": 0.66, "conv2d": 0.77, "layernorm": 0.56,
    "softmax": 0.30, "sustained": 0.68}))
REFERENCES.update(_rows("NVIDIA H200", "h200", {
    "gemm_fp16": 0.76, "gemm_bf16": 0.79, "gemm_tf32": 0.75, "gemm_fp32": 0.72, "gemm_fp64": 0.90,
    "gemm_fp8": 0.72, "gemm_batched": 0.62, "memcpy": 0.88, "sdpa": 0.57, "conv2d": 0.77, "layernorm": 0.49,
    "softmax": 0.22}))


def reference(model: str | None, test: str, size: str, backend: str | None = None,
              profile: str = "quick") -> dict[str, Any] | None:
    """{fraction_of_peak, source, basis} of a healthy `model` in `test` at `size` (the figure's size text)
    through `backend` (tests that name one) in `profile`, or None where nothing was measured."""
    key = ((model or "").strip(), test, size, backend)
    row = REFERENCES.get(key + (profile,)) or REFERENCES.get(key + (None,))
    if row is None:
        return None
    fraction, source = row
    return {"fraction_of_peak": fraction, "source": SOURCES[source], "basis": METHOD}


def models() -> list[str]:
    """The models with at least one reference row, sorted."""
    return sorted(set(key[0] for key in REFERENCES))
