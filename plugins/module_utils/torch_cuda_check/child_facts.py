# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The facts child of torch_cuda_check: imports torch, reads the build facts and the GPUs.

main(argv, emit) takes no arguments and emits one result: torch / CUDA / cuDNN / NCCL versions,
whether CUDA is usable (and why not), every GPU's properties and the arch list, with the
seconds of its phases (import_torch, build_and_devices). A torch that does not import is
reported (torch_import_error, torch_missing), not raised.
Runs in the checked interpreter (Python 3.9+), shipped by common.child_program. No Ansible import.
"""
from __future__ import annotations

import time
import warnings
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child_base import (
    attempt, import_torch, since)


def device_facts(index: int, props: Any) -> dict[str, Any]:
    """One GPU's facts from torch.cuda.get_device_properties(index)."""
    uuid = str(getattr(props, "uuid", "") or "") or None
    bus = None
    if hasattr(props, "pci_bus_id"):
        bus = "%04x:%02x:%02x.0" % (props.pci_domain_id, props.pci_bus_id, props.pci_device_id)
    return {"index": index, "name": props.name, "capability": [props.major, props.minor],
            "uuid": uuid if not uuid or uuid.startswith("GPU-") else "GPU-" + uuid,
            "pci_bus_id": bus, "memory_total_mib": props.total_memory // 1048576,
            "multi_processor_count": props.multi_processor_count}


def nccl_version(torch: ModuleType) -> int | tuple[int, ...]:
    """The NCCL version torch was built with (raises where torch has no NCCL)."""
    return torch.cuda.nccl.version()


def no_cuda_reason(torch_version: str, hip: str | None) -> str:
    """Why a build without a CUDA runtime cannot use CUDA."""
    return "torch %s was built without CUDA%s" % (torch_version, " (a ROCm build)" if hip else "")


def build_facts(torch: ModuleType, phases: dict[str, float]) -> dict[str, Any]:
    """The build facts and the GPUs; `phases` is carried in the result."""
    facts = {"torch_version": torch.__version__, "git_version": getattr(torch.version, "git_version", None),
             "cuda": torch.version.cuda, "hip": getattr(torch.version, "hip", None),
             "cudnn": attempt(torch.backends.cudnn.version), "nccl": attempt(nccl_version, torch),
             "nccl_available": bool(torch.distributed.is_available() and torch.distributed.is_nccl_available()),
             "cuda_available": False, "cuda_unavailable_reason": None, "devices": [], "arch_list": [],
             "phases": phases}
    if facts["cuda"] is None:
        facts["cuda_unavailable_reason"] = no_cuda_reason(torch.__version__, facts["hip"])
        return facts
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        facts["cuda_available"] = torch.cuda.is_available()
    if facts["cuda_available"]:
        facts["devices"] = [device_facts(index, torch.cuda.get_device_properties(index))
                            for index in range(torch.cuda.device_count())]
        facts["arch_list"] = list(torch.cuda.get_arch_list())
    else:
        try:
            torch.cuda.init()
            facts["cuda_unavailable_reason"] = "torch.cuda.is_available() is False"
        except Exception as exc:
            facts["cuda_unavailable_reason"] = err_text(exc)
        flags = attempt(torch._C._cuda_getArchFlags)
        facts["arch_list"] = flags.split() if flags else []
    return facts


def main(argv: Sequence[str], emit: Callable[[dict[str, Any]], None]) -> None:
    torch, phases = import_torch(emit)
    if torch is None:
        return
    start = time.monotonic()
    facts = build_facts(torch, phases)
    phases["build_and_devices"] = since(start)
    emit(facts)
