# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A GPU child of torch_cuda_check: CUDA on one GPU, then the parts it was asked for.

main(argv, emit): argv = GPU index, comma-separated parts (see PARTS), and optionally the host's
GPU lock file and the seconds to wait for it. Imports torch, takes the lock shared, initialises CUDA on that GPU
(common.gpu_lock: a benchmark never measures while these parts run), then runs each part and emits everything gathered so far after each one, so a crash in a
later part keeps the earlier results: {"index", "init": {"status", "error"}, "phases", <part>: ...}.
The parent sets CUDA_DISABLE_PTX_JIT / CUDA_FORCE_PTX_JIT, which must happen before CUDA
initialises: hence one child per mode.

A part is a function (index, capability, out) of a module of this package; a part's module is
imported only when the part runs, so a child ships only the modules of its parts.
Runs in the checked interpreter (Python 3.9+), shipped by common.child_program. No Ansible import.
"""
from __future__ import annotations

import importlib
import time
from collections.abc import Callable, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.gpu_lock import acquire
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child_base import since

# part -> (module of this package, function)
PARTS = {
    "ops": ("child_gpu", "part_ops"),
    "probes": ("probes", "part_probes"),
    "sass": ("native_sass", "part_sass"),
    "compile": ("probes", "part_compile"),
}
_PACKAGE = __name__.rsplit(".", 1)[0]


def parse_parts(text: str) -> list[str]:
    """"ops,probes" -> ["ops", "probes"] (empty names dropped)."""
    return [part for part in text.split(",") if part]


def part_function(part: str) -> Callable[[int, tuple[int, int], dict[str, Any]], dict[str, Any]]:
    """The function that runs `part`."""
    module, function = PARTS[part]
    return getattr(importlib.import_module("%s.%s" % (_PACKAGE, module)), function)


def ops_failure(step: str, seconds: float, error: str) -> dict[str, Any]:
    return {"status": "failed", "failed_op": step, "seconds": seconds, "error": error}


def part_ops(index: int, capability: tuple[int, int], out: dict[str, Any]) -> dict[str, Any]:
    """matmul, elementwise and reduction on the GPU, each compared with the CPU."""
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    gen = torch.Generator().manual_seed(0)
    a, b = torch.randn(256, 256, generator=gen), torch.randn(256, 256, generator=gen)
    steps = (("elementwise", lambda x, y: torch.sin(x) * 2.0 + y),
             ("reduction", lambda x, y: x.sum(dim=1)),
             ("matmul", lambda x, y: x @ y))
    step, start = "copy to the GPU", time.monotonic()
    try:
        ga, gb = a.to(torch.device("cuda", index)), b.to(torch.device("cuda", index))
        for step, func in steps:
            got, want = func(ga, gb).cpu(), func(a, b)
            if not torch.allclose(got, want, rtol=1e-3, atol=1e-3):
                return ops_failure(step, since(start), "%s: wrong result (max abs error %.3g)" % (
                    step, (got - want).abs().max()))
    except Exception as exc:
        return ops_failure(step, since(start), err_text(exc))
    return {"status": "ok", "failed_op": None, "seconds": since(start), "error": None}


def import_torch(out: dict[str, Any]) -> bool:
    """Import torch, timed in out["phases"]; False when it does not import (out["init"] says why)."""
    start = time.monotonic()
    try:
        import torch  # noqa: F401 pylint: disable=unused-import
    except Exception as exc:
        out["init"] = {"status": "failed", "error": err_text(exc)}
        return False
    finally:
        out["phases"]["import_torch"] = since(start)
    return True


def init_cuda(index: int, out: dict[str, Any]) -> tuple[int, ...] | None:
    """Initialise CUDA on GPU `index` (torch imported); the capability, or None (out["init"] says why)."""
    start, capability = time.monotonic(), None
    try:
        import torch
        torch.cuda.init()
        torch.cuda.set_device(index)
        capability = tuple(torch.cuda.get_device_capability(index))
        out["init"] = {"status": "ok", "error": None}
    except Exception as exc:
        out["init"] = {"status": "failed", "error": err_text(exc)}
    out["phases"]["cuda_init"] = since(start)
    return capability


def main(argv: Sequence[str], emit: Callable[[dict[str, Any]], None]) -> None:
    index, parts = int(argv[0]), parse_parts(argv[1])
    out = {"index": index, "phases": {}}
    if not import_torch(out):  # the import (seconds) runs beside other children's GPU work
        emit(out)
        return
    # The lock comes before CUDA starts: making the context (cudaSetDevice) is GPU work a measurement must not see.
    if len(argv) > 2 and argv[2]:
        out["gpu_lock"] = acquire(argv[2], True, float(argv[3]) if len(argv) > 3 else 30.0)
        out["phases"]["gpu_lock_wait"] = out["gpu_lock"]["waited_s"]
    capability = init_cuda(index, out)
    emit(out)
    if out["init"]["status"] != "ok":
        return
    for part in parts:
        start = time.monotonic()
        out[part] = part_function(part)(index, capability, out)
        out["phases"][part] = since(start)
        emit(out)
