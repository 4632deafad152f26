# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which low-precision recipes run on a GPU with this torch, CUDA, cuBLASLt and driver, and at what rate: the
answer to "can this workstation train in FP8 / MXFP8 / NVFP4?".

block() builds a GPU entry's `low_precision` from its figures: {"libraries": {torch, cuda, cublaslt, driver},
"recipes": [{recipe, test, state, value, unit, fraction_of_peak, sm_clock_mhz, reason}]}, one row per recipe in RECIPES.
state: runs (a checked figure), refused (what this GPU, torch or cuBLAS does not offer, with the reason: from
the figure, or from the GPU's compute capability for a recipe this run did not measure), failed, wrong_result,
not_measured (not among this run's tests). line() is the play summary's line of one GPU.
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import skip_reason

RECIPES = (("gemm_fp8", "FP8 per-tensor"), ("gemm_fp8_rowwise", "FP8 row-wise"), ("gemm_mxfp8", "MXFP8 (TN)"),
           ("gemm_mxfp8_nn", "MXFP8 (NN)"), ("gemm_nvfp4", "NVFP4"), ("gemm_grouped_fp8", "grouped FP8"))
STATES = {"ok": "runs", "skipped": "refused", "failed": "failed", "wrong_result": "wrong_result",
          "not_run": "failed"}
NOT_MEASURED = "not measured in this run (the standard and full profiles measure it)"


def _row(test, recipe, fig, capability):
    row = {"recipe": recipe, "test": test, "state": "not_measured", "value": None, "unit": "TFLOP/s",
           "fraction_of_peak": None, "sm_clock_mhz": None, "reason": NOT_MEASURED}
    if fig is None:
        refused = skip_reason(test, "cuda", capability) if capability else None
        if refused:
            row.update(state="refused", reason=refused)
        return row
    row.update(state=STATES.get(fig.get("status"), "failed"), unit=fig.get("unit") or "TFLOP/s",
               reason=fig.get("error"))
    if row["state"] == "runs":
        clock = ((fig.get("telemetry") or {}).get("sm_clock_mhz") or {}).get("median")
        row.update(value=fig.get("value"), fraction_of_peak=fig.get("fraction_of_peak"), reason=None,
                   sm_clock_mhz=clock)
    return row


def block(figures: Mapping[str, Any], capability: Sequence[int] | None, torch_facts: Mapping[str, Any],
          cublaslt: str | None, driver: str | None) -> dict[str, Any]:
    """A GPU's `low_precision` from its figures ({test: figure}; a test this run did not measure is absent),
    its compute capability ((major, minor) or None), the probe's torch facts ({version, cuda}), the cuBLASLt
    version the child loaded and the driver version."""
    torch_facts = torch_facts or {}
    return {"libraries": {"torch": torch_facts.get("version"), "cuda": torch_facts.get("cuda"),
                          "cublaslt": cublaslt, "driver": driver},
            "recipes": [_row(test, recipe, (figures or {}).get(test), capability) for test, recipe in RECIPES]}


def _rate(row):
    """"FP8 per-tensor 1447 TFLOP/s (0.73 of peak)"; above the peak, the SM clock it ran at says why ("(1.04 of
    peak, SM 2850 MHz)": datasheets rate the tensor cores at a boost clock the GPU may exceed)."""
    text = "%s %.4g %s" % (row["recipe"], row["value"], row["unit"])
    fraction = row.get("fraction_of_peak")
    if fraction is None:
        return text
    clock = row.get("sm_clock_mhz")
    above = ", SM %.0f MHz" % clock if fraction > 1.0 and clock else ""
    return text + " (%.2f of peak%s)" % (fraction, above)


def line(gpu_label: str, low_precision: Mapping[str, Any] | None) -> str | None:
    """"GPU 0 NVIDIA H200 low precision: FP8 per-tensor 1447 TFLOP/s (0.73 of peak); refused: MXFP8 (TN) (not
    supported on sm_90: ...), ...; not measured: FP8 row-wise", or None when nothing was measured or refused."""
    rows = [row for row in (low_precision or {}).get("recipes") or [] if isinstance(row, dict)]
    if not [row for row in rows if row.get("state") != "not_measured"]:
        return None
    parts = []
    runs = [_rate(row) for row in rows if row.get("state") == "runs" and row.get("value") is not None]
    if runs:
        parts.append(", ".join(runs))
    for state, label in (("refused", "refused"), ("failed", "failed"), ("wrong_result", "wrong result")):
        named = ["%s (%s)" % (row.get("recipe"), row.get("reason")) for row in rows if row.get("state") == state]
        if named:
            parts.append("%s: %s" % (label, ", ".join(named)))
    skipped = [str(row.get("recipe")) for row in rows if row.get("state") == "not_measured"]
    if skipped:
        parts.append("not measured: %s" % ", ".join(skipped))
    return "%s low precision: %s" % (gpu_label, "; ".join(parts))
