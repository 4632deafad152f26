# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which kernel image of a torch build a GPU can execute: native SASS, PTX after JIT, or none.

The rule of docs/domain.md section 4, as pure functions over `torch.cuda.get_arch_list()`:
- `sm_XY` is SASS. It runs natively on a GPU of the same major and a minor >= Y (cubins
  are binary compatible within a major, never across majors). `sm_XYa` (arch-specific)
  runs only on exactly X.Y; `sm_XYf` (family) within major X from minor Y up.
- `compute_XY` is PTX. It JIT-compiles for any GPU of capability >= X.Y, across majors;
  `compute_XYa` only for exactly X.Y, `compute_XYf` within major X from minor Y up.
- forward_compatible: plain `compute_XY` PTX is present, so the build also runs on GPUs
  newer than any it was built for.

No Ansible import.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

VERDICTS = ("native", "ptx_jit", "none")  # best first


def parse_image(entry: str) -> dict[str, Any] | None:
    """"sm_90a" -> {"name", "kind": "sass"|"ptx", "capability": (9, 0), "variant": ""|"a"|"f"}.

    Returns None for entries that are not CUDA images (ROCm gfx names, typos).
    """
    name = str(entry).strip().lower()
    if name.startswith("sm_"):
        kind = "sass"
    elif name.startswith("compute_"):
        kind = "ptx"
    else:
        return None
    variant = name[-1] if name[-1] in "af" else ""
    try:
        capability = parse_capability(name)
    except ValueError:
        return None
    return {"name": name, "kind": kind, "capability": capability, "variant": variant}


def images_by_kind(arch_list: Iterable[str]) -> dict[str, list[str]]:
    """torch.cuda.get_arch_list() sorted by kind: {"sass": [...], "ptx": [...], "other": [...]}, each in
    the order torch lists them."""
    split = {"sass": [], "ptx": [], "other": []}
    for entry in arch_list or ():
        image = parse_image(entry)
        split[image["kind"] if image else "other"].append(image["name"] if image else str(entry))
    return split


def image_runs_on(image: Mapping[str, Any], capability: tuple[int, int]) -> bool:
    """Whether `image` (from parse_image) can run on a GPU of `capability` (major, minor)."""
    major, minor = capability
    img_major, img_minor = image["capability"]
    if image["variant"] == "a":
        return (img_major, img_minor) == (major, minor)
    if image["kind"] == "sass" or image["variant"] == "f":
        return img_major == major and img_minor <= minor
    return (img_major, img_minor) <= (major, minor)


def _best(images, capability):
    usable = [image for image in images if image_runs_on(image, capability)]
    # Closest capability first; at equal capability the arch-specific image is the best fit.
    usable.sort(key=lambda image: (image["capability"], image["variant"] == "a"), reverse=True)
    return usable[0]["name"] if usable else None


def kernel_image_verdict(arch_list: Sequence[str], capability: str | tuple[int, int] | None) -> dict[str, Any]:
    """Verdict for a GPU of `capability` ("12.0", "sm_120" or (12, 0)) and a torch arch list.

    Returns {"verdict": native|ptx_jit|none, "image": matched entry or None,
    "exact": the image is built for exactly this capability, "ptx_image": the best PTX this
    GPU can JIT-compile (what runs under CUDA_FORCE_PTX_JIT=1) or None,
    "forward_compatible": plain PTX present, "reason": one sentence}.
    """
    capability = parse_capability(capability)
    images = [image for image in (parse_image(entry) for entry in arch_list or ()) if image]
    sass = [image for image in images if image["kind"] == "sass"]
    ptx = [image for image in images if image["kind"] == "ptx"]
    forward = any(image["variant"] == "" for image in ptx)
    sm = "sm_%d%d" % capability
    match, ptx_match = _best(sass, capability), _best(ptx, capability)
    if match:
        verdict = "native"
        reason = ("%s SASS runs natively on %s" % (match, sm) if parse_capability(match) != capability
                  else "the build has %s SASS" % match)
    elif ptx_match:
        match, verdict = ptx_match, "ptx_jit"
        reason = "no %s SASS; PTX %s is JIT-compiled by the driver at first use" % (sm, match)
    else:
        verdict = "none"
        reason = "no %s SASS and no PTX <= compute_%d%d" % (sm, capability[0], capability[1])
    return {
        "verdict": verdict, "image": match,
        "exact": bool(match) and parse_capability(match) == capability,
        "ptx_image": ptx_match, "forward_compatible": forward, "reason": reason,
    }


def verdict_at_least(verdict: str, minimum: str) -> bool:
    """Whether `verdict` is as good as `minimum` (native > ptx_jit > none)."""
    return VERDICTS.index(verdict) <= VERDICTS.index(minimum)
