# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark child program: the source run_child() hands to `python -c`.

The child code lives in ordinary modules (benchmark.timing, telemetry, ops, refusals, low_precision, sustained,
models, multi, main, hardware.nvml_gpus, topology and link_counters with the hardware modules they import, and
common.error_text and gpu_lock), shipped by common.child_program like every child.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import main as bench_main, models as bench_models, multi as bench_multi
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import ops as bench_ops, timing as bench_timing
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import low_precision as bench_low_precision
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import refusals as bench_refusals
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import sustained as bench_sustained
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import telemetry as bench_telemetry
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue, gpu_arch, nvml_gpus, pci_ids, sysfs_gpus
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import link_counters, topology
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import error_text, gpu_lock
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import child_program as _program

# Dependencies first: each module imports only modules listed before it.
CHILD_MODULES = (error_text, catalogue, gpu_arch, pci_ids, sysfs_gpus, nvml_gpus, topology, link_counters,
                 bench_timing, bench_telemetry, bench_ops, bench_refusals, bench_low_precision, bench_sustained,
                 bench_models, bench_multi, gpu_lock, bench_main)


def child_program() -> str:
    """Python source of the child: argv[1] is the JSON plan (see bench_main)."""
    return _program(CHILD_MODULES, bench_main, "benchmark child")


def plan_arg(plan: Mapping[str, Any]) -> str:
    """The plan as the child's one argument."""
    return json.dumps(plan, sort_keys=True)
