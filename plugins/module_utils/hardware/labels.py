# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How messages name a GPU: one function per meaning, one format each.

- gpu_label(): one GPU of a host and what code runs on it, "GPU 0 (NVIDIA GeForce RTX 5090, sm_120)":
  where the answer is per GPU (the PyTorch plan's channel and version checks, torch_cuda_check's
  requirements).
- model_label(): the model and its capability, "NVIDIA GeForce RTX 5090 (sm_120)": where the
  decision depends on the model alone (the driver flavor and branch, the toolkit's targets).
- slot_label(): one GPU and where it sits, "GPU 0 (NVIDIA H100 80GB HBM3, 0000:18:00.0)": where
  someone has to find the card (the health gates).

Each takes a gpu_facts entry (or any dict with the keys it reads) and tolerates missing keys.
No Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability, sm_string


def _sm(gpu):
    """"sm_120" from compute_capability "12.0" or sm "sm_120"; None when the entry has neither."""
    value = gpu.get("compute_capability") or gpu.get("sm")
    return sm_string(*parse_capability(value)) if value else None


def gpu_label(gpu: Mapping[str, Any]) -> str:
    """"GPU 0 (NVIDIA GeForce RTX 5090, sm_120)"; the PCI bus id stands in for a missing index."""
    where = gpu.get("index") if gpu.get("index") is not None else gpu.get("pci_bus_id", "?")
    return "GPU %s (%s, %s)" % (where, gpu.get("name") or "unknown GPU", _sm(gpu) or "capability unknown")


def model_label(gpu: Mapping[str, Any]) -> str:
    """"NVIDIA GeForce RTX 5090 (sm_120)"."""
    return "%s (%s)" % (gpu.get("name") or "GPU", _sm(gpu) or "capability unknown")


def slot_label(gpu: Mapping[str, Any]) -> str:
    """"GPU 0 (NVIDIA H100 80GB HBM3, 0000:18:00.0)"."""
    return "GPU %s (%s, %s)" % (gpu.get("index"), gpu.get("name") or "unknown model", gpu.get("pci_bus_id") or "?")
