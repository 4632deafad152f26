# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Python source of the children torch_cuda_check runs with the checked interpreter.

Modules travel as AnsiballZ zips, so child code is held here as text and run with
`python -c`. Every child reports the seconds of its phases (import_torch, ...).
- facts_source(): imports torch, reads the build facts and the GPUs.
- companions_source(): imports torchvision and torchaudio (slow, and a mismatched one can
  kill the process: kept apart from the facts, and run beside the other children).
- gpu_source(parts): argv = GPU index, comma-separated parts. Initialises CUDA on that GPU,
  then runs each part (`ops`, `probes`, `sass`, `compile`) and emits everything gathered so
  far after each one, so a crash in a later part keeps the earlier results.
The parent sets CUDA_DISABLE_PTX_JIT / CUDA_FORCE_PTX_JIT in the environment, which must
happen before CUDA initialises: hence one child per mode.

Child code stays Python 3.9 compatible. No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import emit_result_source
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.probes import PROBES_SOURCE
from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check.native_sass import SASS_SOURCE

PRELUDE = r'''
import os, sys, time


def err_text(exc):
    """"Type: first line of the message"."""
    lines = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, lines[0]) if lines else type(exc).__name__


def since(start):
    return round(time.monotonic() - start, 3)
'''

_IMPORT_TORCH = r'''
PHASES = {}
_start = time.monotonic()
try:
    import torch
except BaseException as exc:
    emit({"torch_import_error": err_text(exc), "phases": {"import_torch": since(_start)},
          "torch_missing": isinstance(exc, ImportError) and getattr(exc, "name", None) == "torch"})
    sys.exit(0)
PHASES["import_torch"] = since(_start)


def attempt(fn):
    try:
        return fn()
    except Exception:
        return None
'''

_FACTS = r'''
import warnings


def device_facts(index):
    props = torch.cuda.get_device_properties(index)
    uuid = str(getattr(props, "uuid", "") or "") or None
    bus = None
    if hasattr(props, "pci_bus_id"):
        bus = "%04x:%02x:%02x.0" % (props.pci_domain_id, props.pci_bus_id, props.pci_device_id)
    return {"index": index, "name": props.name, "capability": [props.major, props.minor],
            "uuid": uuid if not uuid or uuid.startswith("GPU-") else "GPU-" + uuid,
            "pci_bus_id": bus, "memory_total_mib": props.total_memory // 1048576,
            "multi_processor_count": props.multi_processor_count}


_start = time.monotonic()
facts = {"torch_version": torch.__version__, "git_version": getattr(torch.version, "git_version", None),
         "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
         "cudnn": attempt(torch.backends.cudnn.version), "nccl": attempt(lambda: torch.cuda.nccl.version()),
         "nccl_available": bool(torch.distributed.is_available() and torch.distributed.is_nccl_available()),
         "cuda_available": False, "cuda_unavailable_reason": None, "devices": [], "arch_list": [],
         "phases": PHASES}
if facts["cuda"] is None:
    facts["cuda_unavailable_reason"] = "torch %s was built without CUDA%s" % (
        torch.__version__, " (a ROCm build)" if facts["hip"] else "")
else:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        facts["cuda_available"] = torch.cuda.is_available()
    if facts["cuda_available"]:
        facts["devices"] = [device_facts(index) for index in range(torch.cuda.device_count())]
        facts["arch_list"] = list(torch.cuda.get_arch_list())
    else:
        try:
            torch.cuda.init()
            facts["cuda_unavailable_reason"] = "torch.cuda.is_available() is False"
        except Exception as exc:
            facts["cuda_unavailable_reason"] = err_text(exc)
        flags = attempt(torch._C._cuda_getArchFlags)
        facts["arch_list"] = flags.split() if flags else []
PHASES["build_and_devices"] = since(_start)
emit(facts)
'''

_COMPANIONS = r'''
import importlib
import importlib.metadata

companions = {"phases": PHASES}
for name in ("torchvision", "torchaudio"):
    _start = time.monotonic()
    found = {"version": attempt(lambda: importlib.metadata.version(name)), "import_error": None}
    try:
        found["version"] = importlib.import_module(name).__version__
    except BaseException as exc:
        found["import_error"] = err_text(exc)
    companions[name] = found
    PHASES["import_" + name] = since(_start)
    emit(companions)
'''

_OPS = r'''
def part_ops(index, capability, out):
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
        for step, fn in steps:
            got, want = fn(ga, gb).cpu(), fn(a, b)
            if not torch.allclose(got, want, rtol=1e-3, atol=1e-3):
                return {"status": "failed", "failed_op": step, "seconds": since(start),
                        "error": "%s: wrong result (max abs error %.3g)" % (step, (got - want).abs().max())}
    except Exception as exc:
        return {"status": "failed", "failed_op": step, "seconds": since(start), "error": err_text(exc)}
    return {"status": "ok", "failed_op": None, "seconds": since(start), "error": None}
'''

_GPU_MAIN = r'''
index, parts = int(sys.argv[1]), [part for part in sys.argv[2].split(",") if part]
out = {"index": index, "phases": {}}
start = time.monotonic()
try:
    import torch
    out["phases"]["import_torch"] = since(start)
    start = time.monotonic()
    torch.cuda.init()
    torch.cuda.set_device(index)
    capability = tuple(torch.cuda.get_device_capability(index))
    out["init"] = {"status": "ok", "error": None}
except Exception as exc:
    out["init"] = {"status": "failed", "error": err_text(exc)}
out["phases"]["cuda_init"] = since(start)
emit(out)
if out["init"]["status"] != "ok":
    sys.exit(0)
for part in parts:
    start = time.monotonic()
    out[part] = globals()["part_" + part](index, capability, out)
    out["phases"][part] = since(start)
    emit(out)
'''

GPU_PARTS = ("ops", "probes", "sass", "compile")


def facts_source():
    """Source of the facts child: build facts and GPUs."""
    return emit_result_source() + PRELUDE + _IMPORT_TORCH + _FACTS


def companions_source():
    """Source of the companions child: torchvision and torchaudio versions and imports."""
    return emit_result_source() + PRELUDE + _IMPORT_TORCH + _COMPANIONS


def gpu_source(parts):
    """Source of a GPU child that can run `parts` (a subset of GPU_PARTS)."""
    unknown = set(parts) - set(GPU_PARTS)
    if unknown:
        raise ValueError("unknown GPU child part(s): %s" % ", ".join(sorted(unknown)))
    pieces = [emit_result_source(), PRELUDE, _OPS]
    if "probes" in parts or "compile" in parts:
        pieces.append(PROBES_SOURCE)
    if "sass" in parts:
        pieces.append(SASS_SOURCE)
    pieces.append(_GPU_MAIN)
    return "".join(pieces)
