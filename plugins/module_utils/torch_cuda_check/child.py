# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The child programs torch_cuda_check runs with the checked interpreter (see torch_cuda_check.run).

The child code lives in ordinary modules of this package, shipped by common.child_program like
every child, common.error_text and child_base first; each child reports the seconds of its phases
(import_torch, ...):
- facts_source(): child_facts, imports torch, reads the build facts and the GPUs.
- companions_source(): child_companions, imports torchvision and torchaudio (slow, and a
  mismatched one can kill the process: kept apart from the facts, run beside the other children).
- gpu_source(parts): child_gpu with the modules of `parts` (ops, probes, native_sass) and
  common.gpu_lock; argv = GPU index, comma-separated parts, the GPU lock file and its wait.
"""
from __future__ import annotations

from collections.abc import Iterable
from types import ModuleType

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import error_text, gpu_lock
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import child_program
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import child_base, child_companions
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import child_facts, child_gpu
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check import native_sass, probes

GPU_PARTS = tuple(child_gpu.PARTS)
# The modules a GPU part can need, by their name in child_gpu.PARTS.
_PART_MODULES = dict((module.__name__.rsplit(".", 1)[1], module) for module in (child_gpu, probes, native_sass))


def facts_source() -> str:
    """Source of the facts child: build facts and GPUs."""
    return child_program((error_text, child_base, child_facts), child_facts, "facts child")


def companions_source() -> str:
    """Source of the companions child: torchvision and torchaudio versions and imports."""
    return child_program((error_text, child_base, child_companions), child_companions, "companions child")


def gpu_modules(parts: Iterable[str]) -> tuple[ModuleType, ...]:
    """The modules a GPU child that runs `parts` (a subset of GPU_PARTS) ships, dependencies first."""
    unknown = set(parts) - set(GPU_PARTS)
    if unknown:
        raise ValueError("unknown GPU child part(s): %s" % ", ".join(sorted(unknown)))
    needed = set(child_gpu.PARTS[part][0] for part in parts)
    parts_modules = tuple(module for name, module in sorted(_PART_MODULES.items())
                          if name in needed and module is not child_gpu)
    return (error_text, child_base, gpu_lock) + parts_modules + (child_gpu,)


def gpu_source(parts: Iterable[str]) -> str:
    """Source of a GPU child that can run `parts` (a subset of GPU_PARTS)."""
    return child_program(gpu_modules(parts), child_gpu, "GPU child")
