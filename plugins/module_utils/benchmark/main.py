# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: entry point. argv[1] is a JSON plan whose `mode` says what to do.

- probe: torch build, CUDA availability, every GPU's properties, NVML facts (through
  nvml_gpus, when nvidia-ml-py imports) with each GPU's NVLink links and NVLink peers (topology);
  a torch that does not import is reported, not raised. With a second argument "-", the child then
  reads its next plan (the first device's) from stdin: one process and one torch import for both.
- device: the per-device tests of the plan on one device ("cuda:N" or "cpu"); on a GPU, its PCIe
  replay and AER counters before the first test and after the last (link_counters), and the power
  limits beside the sustained tests' telemetry.
- multi: allreduce then p2p over the plan's GPUs (or gloo CPU ranks).
device and multi emit everything gathered so far after each test, so a crash or a
timeout keeps the earlier figures. Runs inside the child, no Ansible import.
"""
from __future__ import annotations

import json
import platform
import sys
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.low_precision import OPS as LOW_PRECISION_OPS
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.low_precision import cublaslt_version
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.models import OPS as MODEL_OPS
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.multi import allreduce, p2p
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.ops import OPS, Bench
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.sustained import OPS as SUSTAINED_OPS
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.sustained import LAST_S
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import (
    open_sampler, read_power_limits, summarize)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import CPU_CACHE_BYTES
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.gpu_lock import acquire
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.link_counters import (
    counter_changes, read_counters)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import (
    nvml_error_text, nvml_session, read_snapshot)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import read_topology


def _attempt(func):
    try:
        return func()
    except Exception:
        return None


def _uuid(props):
    text = str(getattr(props, "uuid", "") or "")
    return (text if text.startswith("GPU-") else "GPU-" + text) if text else None


def _links(nvml):
    """topology.read_topology(), or None when it fails (the facts stand without it)."""
    try:
        return read_topology(nvml)
    except Exception:  # NVMLError, or an nvidia-ml-py that answers in another shape
        return None


def _nvml():
    """(NVML's GPUs with their links, error text, driver version)."""
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed for %s" % sys.executable, None
    try:
        snapshot, links = nvml_session(pynvml, read_snapshot, _links)
    except pynvml.NVMLError as err:
        return None, nvml_error_text(err), None
    for gpu, extra in zip(snapshot["gpus"], links or []):
        gpu.update(extra)
    return snapshot["gpus"], None, snapshot.get("driver_version")


def _counters(sampler, root="/sys"):
    """The GPU's link counters (link_counters.read_counters), None without NVML."""
    if sampler is None:
        return None
    try:
        return read_counters(sampler.nvml, sampler.handle, root)
    except Exception:  # an NVML or sysfs answer in an unexpected shape: the figures stand without it
        return None


def probe(plan: Mapping[str, Any], emit: Callable[[dict[str, Any]], None]) -> None:
    try:
        import torch
    except BaseException as exc:  # ImportError, or a broken install failing while it loads
        emit({"torch_error": err_text(exc),
              "torch_missing": isinstance(exc, ImportError) and getattr(exc, "name", None) == "torch"})
        return
    facts = {"torch": {"version": torch.__version__, "cuda": torch.version.cuda,
                       "cudnn": _attempt(torch.backends.cudnn.version), "python": platform.python_version()},
             "cpu": {"name": platform.processor() or platform.machine(), "threads": torch.get_num_threads()},
             "cuda_available": False, "cuda_error": None, "devices": [], "nvml": None, "nvml_error": None}
    if plan["device"] == "cuda":
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            facts["cuda_available"] = torch.cuda.is_available()
        if not facts["cuda_available"]:
            facts["cuda_error"] = str(caught[0].message).strip() if caught else (
                "torch %s was built without CUDA" % torch.__version__ if torch.version.cuda is None
                else "torch.cuda.is_available() is False")
        else:
            for index in range(torch.cuda.device_count()):
                props = torch.cuda.get_device_properties(index)
                facts["devices"].append({
                    "index": index, "name": props.name, "capability": [props.major, props.minor],
                    "sm_count": props.multi_processor_count, "l2_bytes": getattr(props, "L2_cache_size", None),
                    "memory_total_mib": props.total_memory // (1024 * 1024), "uuid": _uuid(props)})
            facts["nvml"], facts["nvml_error"], facts["driver_version"] = _nvml()
    emit(facts)


def run_device(plan: Mapping[str, Any], emit: Callable[[dict[str, Any]], None]) -> None:
    import torch
    device = torch.device(plan["device"])
    # GPU work of other checks on this host waits while figures are taken (common.gpu_lock); taken before CUDA
    # starts here, as they take theirs: making a context (cudaSetDevice) is GPU work a measurement must not see.
    lock = acquire(plan.get("gpu_lock"), False, plan.get("gpu_lock_wait_s", 30.0)) if device.type == "cuda" else None
    if device.type == "cuda":
        torch.cuda.set_device(device)
        cache = torch.cuda.get_device_properties(device).L2_cache_size
    else:
        cache = CPU_CACHE_BYTES
    bench = Bench(torch, device, plan["settings"], cache)
    ops = dict(OPS, **MODEL_OPS)
    ops.update(SUSTAINED_OPS)
    ops.update(LOW_PRECISION_OPS)
    sampler, telemetry_error = None, "CPU mode: no GPU telemetry"
    if device.type == "cuda":
        sampler, telemetry_error = open_sampler(_uuid(torch.cuda.get_device_properties(device)))
    results = {}
    before = _counters(sampler)
    with torch.no_grad():
        for test in plan["tests"]:
            start = time.monotonic()
            if sampler is not None:
                sampler.start()
            try:
                result = ops[test["op"]](bench, test["size"], test.get("dtype"))
            except Exception as exc:
                result = {"error": err_text(exc)}
            if sampler is not None:
                tail = LAST_S if test["op"] == "sustained" else None
                result["telemetry"] = summarize(sampler.stop(), tail)
                if tail is not None:
                    result["telemetry"].update(read_power_limits(sampler.nvml, sampler.handle))
            else:
                result["telemetry_error"] = telemetry_error
            result["wall_s"] = round(time.monotonic() - start, 3)
            results[test["name"]] = result
            if device.type == "cuda":
                torch.cuda.empty_cache()
            emit({"tests": results, "gpu_lock": lock})
    libraries = {"cublaslt": cublaslt_version()} if device.type == "cuda" else {}
    if before is not None or libraries:
        emit({"tests": results, "gpu_lock": lock, "libraries": libraries,
              "counters": counter_changes(before, _counters(sampler)) if before is not None else None})


def run_multi(plan: Mapping[str, Any], emit: Callable[[dict[str, Any]], None]) -> None:
    import torch
    gpus = plan.get("gpus")
    results = {}
    lock = acquire(plan.get("gpu_lock"), False, plan.get("gpu_lock_wait_s", 30.0)) if gpus else None
    # allreduce forks its ranks, which must happen before this process initialises CUDA.
    for test in sorted(plan["tests"], key=lambda test: test["op"] != "allreduce"):
        start = time.monotonic()
        try:
            if test["op"] == "allreduce":
                result = allreduce(torch, gpus, test["size"], plan["settings"], plan["collective_timeout_s"])
            else:
                result = p2p(torch, gpus, test["size"], plan["settings"])
        except Exception as exc:
            result = {"error": err_text(exc)}
        result["wall_s"] = round(time.monotonic() - start, 3)
        results[test["name"]] = result
        emit({"tests": results, "gpu_lock": lock})


MODES = {"probe": probe, "device": run_device, "multi": run_multi}


def main(argv: Sequence[str], emit: Callable[[dict[str, Any]], None]) -> None:
    """argv: [plan] runs the plan. [probe plan, "-"]: the probe, then the plan stdin gives (the first device child:
    one torch import for both; empty input ends it; common.staged_child is the other side)."""
    plan = json.loads(argv[0])
    MODES[plan["mode"]](plan, emit)
    if argv[1:] == ["-"]:
        text = sys.stdin.read()
        if text.strip():
            plan = json.loads(text)
            MODES[plan["mode"]](plan, emit)
