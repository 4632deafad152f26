# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which errors of a low-precision GEMM are a refusal (this GPU, torch and cuBLAS do not offer the recipe) and
how the refusal reads.

A refusal is an answer, not a failure: the figure is `skipped` with the reason, and fails only a gate that names
the test. What torch or cuBLAS says when it does not offer a recipe here:
- cuBLAS: `CUBLAS_STATUS_NOT_SUPPORTED` (no kernel for this type, scaling and layout on this GPU);
- torch: NotImplementedError, or a RuntimeError saying the recipe "is only supported" / "not supported" on some
  GPUs or layouts ("Only multiplication of row-major and column-major matrices is supported by cuBLASLt").
Anything else (a wrong result, an illegal memory access, no kernel image, any "CUDA error: ...") stays a failure. Where a public issue
tracks a refusal, its text names it. Pure functions, no Ansible import; runs in the benchmark's child.
"""
from __future__ import annotations

from collections.abc import Sequence

NOT_SUPPORTED = "CUBLAS_STATUS_NOT_SUPPORTED"
# Parts of torch's messages that say "not offered here" rather than "broken".
REFUSAL_WORDS = (NOT_SUPPORTED, "is only supported", "not supported", "only multiplication of row-major and "
                 "column-major", "not implemented for")
# (recipe, SM names or None for any, a part of the error) -> the public issue that tracks it.
KNOWN = (
    ("FP8 row-wise", ("sm_120", "sm_121"), NOT_SUPPORTED, "pytorch/pytorch#192707"),
    ("MXFP8 (NN)", ("sm_120", "sm_121"), NOT_SUPPORTED, "pytorch/pytorch#198126"),
)


def is_refusal(exc_type: str, text: str) -> bool:
    """True when an exception of this type name and message says the recipe is not offered here. A CUDA error
    ("CUDA error: operation not supported", an illegal access) is the device failing, never a refusal, whatever
    its words; cuBLAS's own status is one."""
    if exc_type == "NotImplementedError":
        return True
    lowered = (text or "").lower()
    if NOT_SUPPORTED.lower() in lowered:
        return True
    if "cuda error" in lowered:
        return False
    return any(word.lower() in lowered for word in REFUSAL_WORDS)


def known_issue(recipe: str, sm: str, text: str) -> str | None:
    """The public issue that tracks this refusal, or None."""
    for name, sms, part, issue in KNOWN:
        if name == recipe and (sms is None or sm in sms) and part.lower() in (text or "").lower():
            return issue
    return None


def refusal_text(recipe: str, sm: str, stack: str, text: str) -> str:
    """How a refusal reads: "cuBLAS returned CUBLAS_STATUS_NOT_SUPPORTED for FP8 row-wise on sm_120 with torch
    2.10.0+cu130 (pytorch/pytorch#192707)", or "torch 2.11.0+cu130 does not run MXFP8 (NN) on sm_90: <its
    message>". stack: "torch 2.11.0+cu130" (and cuBLAS where known)."""
    issue = known_issue(recipe, sm, text)
    tail = " (%s)" % issue if issue else ""
    if NOT_SUPPORTED in (text or ""):
        return "cuBLAS returned %s for %s on %s with %s%s" % (NOT_SUPPORTED, recipe, sm, stack, tail)
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else "no message"
    return "%s does not run %s on %s: %s%s" % (stack, recipe, sm, first[:240], tail)


def missing_text(stack: str, names: Sequence[str]) -> str:
    """A torch without what a recipe needs: "torch 2.7.1+cu128 has no float4_e2m1fn_x2"."""
    return "%s has no %s" % (stack, " or ".join(names))
