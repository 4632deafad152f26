# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the benchmark: validate the options, probe the interpreter, run one child per device
(one after the other, each with its own timeout) and one child between GPUs, then assemble
the result document with its gate verdict. The first device child is the probe: it answers the
probe, then reads its device plan from stdin (common.staged_child), so torch is imported once for both.

Bad input is refused before any child starts; what only the probe can tell (no GPU, a GPU
too old for a gated test, a single GPU for a multi-GPU gate) is refused before any test
runs. No Ansible import: the module shell calls run(params, host).
"""
from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.capability import block as capability_block
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.child import child_program, plan_arg
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, p2p_figures, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.expected import with_expectation
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import pcie_gbps
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gates import (
    evaluate, gates_for, validate, validate_gpu_gates)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.link_expectation import expectations, judged
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.results import SCHEMA
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import (
    MIN_REP_S, MIN_REPS, PROFILES, TESTS, WARMUP_S, resolve_sizes, select_tests, skip_reason, spec_of)
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import check_interpreter, run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.staged_child import StagedChild
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import capability_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product_line
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import topology as link_topology

# Every child: torch's CUDA indices in PCI bus order (as nvidia-smi and NVML number them);
# no override forcing TF32 into the fp32 GEMM; NVLink multicast off in NCCL, PyTorch and
# NVSHMEM (on shared hosts a program using it can put every GPU out of service), unless the
# option `nvls` asks the multi-GPU child to measure with it (NVLS_ON: the variables removed).
NVLS_OFF = {"NCCL_NVLS_ENABLE": "0", "TORCH_SYMM_MEM_DISABLE_MULTICAST": "1", "NVSHMEM_DISABLE_NVLS": "1"}
NVLS_ON = dict((key, None) for key in NVLS_OFF)
CHILD_ENV = dict({"CUDA_DEVICE_ORDER": "PCI_BUS_ID", "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE": None}, **NVLS_OFF)
PROBE_TIMEOUT = 120
# The probe's NVML facts each device entry keeps (`nvml`); the NVLink keys feed multi_gpu.topology.
NVML_KEYS = ("max_sm_clock_mhz", "max_mem_clock_mhz", "memory_bus_width_bits", "pcie_gen_current",
             "pcie_gen_max", "pcie_width_current", "pcie_width_max", "power_limit_w", "enforced_power_limit_w",
             "pci_bus_id", "nvlink", "nvlink_p2p", "nvlink_remote_gpus")


class BenchmarkError(Exception):
    """Bad input, or an interpreter that cannot run the benchmark: the module fails with it."""


def settings_for(params: Mapping[str, Any]) -> dict[str, Any]:
    profile = PROFILES[params["profile"]]
    return {"reps": params.get("reps") or profile["reps"], "warmup_s": WARMUP_S, "min_rep_s": MIN_REP_S,
            "timeout": params.get("timeout") or profile["timeout"], "nvls": bool(params.get("nvls"))}


def _not_selected(names, params):
    why = "not in tests" if params.get("tests") else "not in profile %s" % params["profile"]
    return dict((name, why) for name in TESTS if name not in names)


def static_plan(params: Mapping[str, Any]) -> tuple[list[str], dict[str, dict[str, Any]], dict[str, Any]]:
    """(test names, sizes, settings) from the options alone; BenchmarkError lists every problem."""
    device = params["device"]
    names, errors = select_tests(params["profile"], params.get("tests"))
    sizes, size_errors = resolve_sizes(names, params["profile"], device, params.get("sizes"))
    errors.extend(size_errors if names else [])
    if params.get("reps") is not None and params["reps"] < MIN_REPS:
        errors.append("reps must be at least %d (the median of >= %d repetitions), got %d"
                      % (MIN_REPS, MIN_REPS, params["reps"]))
    if params.get("timeout") is not None and params["timeout"] <= 0:
        errors.append("timeout must be positive, got %s" % params["timeout"])
    if device == "cpu" and params.get("gpus"):
        errors.append("gpus applies to device cuda only")
    not_run = _not_selected(names, params)
    for name in names:
        reason = skip_reason(name, device)
        if reason:
            not_run[name] = reason
    errors.extend(validate(params.get("gates") or {}, not_run, device))
    errors.extend(validate_gpu_gates(params.get("gpu_gates"), not_run, device))
    if errors:
        raise BenchmarkError("; ".join(errors))
    return names, sizes, settings_for(params)


def _probe(child, python):
    """The probe's facts from the first device child (its first stage); BenchmarkError when torch cannot answer."""
    result = child.first(PROBE_TIMEOUT)
    if result["status"] != "ok":
        raise BenchmarkError("probing torch in %s: child %s: %s" % (python, result["status"], result["error"]))
    facts = result["result"]
    if "torch_error" in facts:
        if facts["torch_missing"]:
            raise BenchmarkError("torch is not installed in %s" % python)
        raise BenchmarkError("torch does not import in %s: %s" % (python, facts["torch_error"]))
    return facts


def _gpus(facts, wanted, python):
    """The selected GPUs, each with its NVML facts (matched by UUID) under `nvml`."""
    if not facts["cuda_available"] or not facts["devices"]:
        raise BenchmarkError("device cuda: torch %s in %s sees no CUDA GPU (%s); use device cpu to run the "
                             "benchmark without one" % (facts["torch"]["version"], python, facts["cuda_error"]))
    by_index = dict((gpu["index"], gpu) for gpu in facts["devices"])
    unknown = [index for index in wanted or [] if index not in by_index]
    if unknown:
        raise BenchmarkError("gpus %s not found: torch sees GPU(s) %s" % (unknown, sorted(by_index)))
    nvml = dict((gpu.get("uuid"), gpu) for gpu in facts.get("nvml") or [])
    selected = []
    for index in sorted(set(wanted)) if wanted else sorted(by_index):
        gpu = dict(by_index[index])
        entry = nvml.get(gpu["uuid"])
        gpu["nvml"] = dict((key, entry.get(key)) for key in NVML_KEYS) if entry else None
        selected.append(gpu)
    return selected


def _peak_gpu(gpu):
    """What gpu_peaks needs, from torch's and NVML's facts."""
    result = {"name": gpu["name"], "capability": gpu["capability"], "sm_count": gpu["sm_count"]}
    result.update(gpu["nvml"] or {})
    return result


def _skips(names, device, gpus):
    """{test: {gpu index (None on CPU): reason}} for selected tests that cannot run."""
    skips = {}
    for name in names:
        for gpu in gpus or [None]:
            reason = skip_reason(name, device, gpu["capability"] if gpu else None, len(gpus) if gpus else None)
            if reason:
                skips.setdefault(name, {})[gpu["index"] if gpu else None] = reason
    return skips


def _check_gates_after_probe(params, names, skips, gpus):
    not_run = _not_selected(names, params)
    for name, where in skips.items():
        reason = sorted(set(where.values()))[0]
        if gpus and spec_of(name)["scope"] == "device":
            reason = "%s on GPU(s) %s" % (reason, ", ".join(str(index) for index in sorted(where)))
        not_run[name] = reason
    errors = validate(params.get("gates") or {}, not_run, params["device"])
    errors.extend(validate_gpu_gates(params.get("gpu_gates"), not_run, params["device"]))
    if errors:
        raise BenchmarkError("; ".join(errors))


def _child(python, program, plan, timeout, env=None):
    if not plan["tests"]:
        return {"status": "ok", "error": None, "seconds": 0.0, "result": {"tests": {}}}
    return run_child(python, program, [plan_arg(plan)], env=dict(CHILD_ENV, **(env or {})), timeout=timeout)


P2P_OFF = {"NCCL_P2P_DISABLE": "1"}
# A child waits for the host's GPU lock (common.gpu_lock) at most this share of its timeout.
LOCK_WAIT_SHARE = 0.25


def lock_plan(params: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """The plan keys that make a child take the host's GPU lock before measuring."""
    return {"gpu_lock": params.get("gpu_lock") or None, "gpu_lock_wait_s": settings["timeout"] * LOCK_WAIT_SHARE}


def _multi_with_retry(python, program, plan, timeout, env=None):
    """(result, modes): the multi-GPU child (with `env` added to CHILD_ENV); when it hangs (times out) on
    GPUs, once more with NCCL_P2P_DISABLE=1. modes lists each attempt: {env, status, error, seconds}."""
    result = _child(python, program, plan, timeout, env=env)
    modes = [{"env": {}, "status": result["status"], "error": result["error"], "seconds": result["seconds"]}]
    if result["status"] == "timeout" and plan["gpus"]:
        modes[0]["error"] = "hang: no result within %s s (%s)" % (timeout, result["error"])
        retry = _child(python, program, plan, timeout, env=dict(env or {}, **P2P_OFF))
        modes.append({"env": dict(P2P_OFF), "status": retry["status"], "error": retry["error"],
                      "seconds": retry["seconds"]})
        if retry["status"] == "ok" or (retry["result"] and not result["result"]):
            result = retry
    return result, modes


def _entry(test, sizes):
    spec = spec_of(test)
    return {"name": test, "op": spec["op"], "dtype": spec["dtype"], "size": sizes[test]}


def _device_entry(gpu, facts):
    if gpu is None:
        return {"index": None, "device": "cpu", "name": facts["cpu"]["name"], "uuid": None,
                "compute_capability": None, "sm": None, "arch_family": None, "product_line": None,
                "sm_count": None, "l2_bytes": None, "memory_total_mib": None, "nvml": None,
                "threads": facts["cpu"]["threads"]}
    entry = {"index": gpu["index"], "device": "cuda:%d" % gpu["index"], "name": gpu["name"], "uuid": gpu["uuid"],
             "product_line": product_line(gpu["name"]), "sm_count": gpu["sm_count"], "l2_bytes": gpu["l2_bytes"],
             "memory_total_mib": gpu["memory_total_mib"], "nvml": gpu["nvml"]}
    entry.update(capability_facts(*gpu["capability"]))
    return entry


def _missing(result):
    if result["status"] == "ok":
        return None
    return "the benchmark child %s before this test: %s" % (result["status"], result["error"])


def _run_device(python, program, run, gpu, facts, early=None):
    names, sizes, settings, skips = run["names"], run["sizes"], run["settings"], run["skips"]
    key = gpu["index"] if gpu else None
    device_tests = [name for name in names if spec_of(name)["scope"] == "device"]
    todo = [name for name in device_tests if key not in skips.get(name, {})]
    plan = dict(run["lock"], mode="device", device="cuda:%d" % key if gpu else "cpu", settings=settings,
                tests=[_entry(name, sizes) for name in todo])
    if early is not None and plan["tests"]:
        result = early.finish(plan_arg(plan), settings["timeout"])
    else:
        if early is not None:
            early.cancel()
        result = _child(python, program, plan, settings["timeout"])
    raw = (result["result"] or {}).get("tests") or {}
    peak_gpu = _peak_gpu(gpu) if gpu else None
    figures = {}
    for name in device_tests:
        found = {"skipped": skips[name][key]} if name not in todo else raw.get(name)
        figures[name] = figure(name, sizes[name], found, peak_info(name, peak_gpu), _missing(result))
    entry = _device_entry(gpu, facts)
    if gpu:
        with_expectation(figures, gpu["name"], run["profile"])
        libraries = (result["result"] or {}).get("libraries") or {}
        entry["low_precision"] = capability_block(figures, gpu["capability"], facts.get("torch"),
                                                  libraries.get("cublaslt"), facts.get("driver_version"))
    entry.update(status=result["status"], error=result["error"], seconds=result["seconds"], figures=figures,
                 gpu_lock=(result["result"] or {}).get("gpu_lock"), counters=(result["result"] or {}).get("counters"))
    entry["gates"] = gates_for(entry, run["gates"], run["gpu_gates"])
    return entry


def multi_topology(gpus: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """multi_gpu's `topology` (hardware.topology over the GPUs' NVML facts, keyed by their benchmark index),
    or None in CPU mode, with fewer than two GPUs or without NVML facts."""
    known = [dict(gpu["nvml"], index=gpu["index"]) for gpu in gpus or [] if gpu.get("nvml")]
    if len(known) < 2:
        return None
    return link_topology(known, pcie_gbps)


def _run_multi(python, program, run, gpus):
    names, sizes, settings, skips = run["names"], run["sizes"], run["settings"], run["skips"]
    tests = [name for name in names if spec_of(name)["scope"] == "multi"]
    if not tests:
        return None
    todo = [name for name in tests if name not in skips]
    nvls = bool(settings.get("nvls")) and bool(gpus)
    plan = dict(run["lock"], mode="multi", device="cuda" if gpus else "cpu", gpus=[gpu["index"] for gpu in gpus or []],
                settings=settings, collective_timeout_s=settings["timeout"] / 2.0,
                tests=[_entry(name, sizes) for name in todo])
    result, modes = _multi_with_retry(python, program, plan, settings["timeout"], NVLS_ON if nvls else None)
    raw = (result["result"] or {}).get("tests") or {}
    topology = multi_topology(gpus) if len(gpus or []) > 1 else None
    expected = expectations(topology, nvls)
    figures = {}
    for name in tests:
        found = {"skipped": sorted(set(skips[name].values()))[0]} if name in skips else raw.get(name)
        if name == "p2p":
            figures[name] = p2p_figures(sizes[name], found, _missing(result), expected["p2p"])
        else:
            fig = figure(name, sizes[name], found, peak_info(name, {} if gpus else None), _missing(result))
            fig.update(judged(fig, expected["allreduce"]), nvls=nvls)
            figures[name] = fig
    status = result["status"] if todo else "skipped"
    working = [mode["env"] for mode in modes if mode["status"] == "ok"]
    return {"gpus": plan["gpus"], "status": status, "error": result["error"], "seconds": result["seconds"],
            "figures": figures, "attempts": modes, "gpu_lock": (result["result"] or {}).get("gpu_lock"),
            "working_env": working[0] if working else None, "nvls": nvls, "topology": topology}


def run(params: Mapping[str, Any], host: str) -> dict[str, Any]:
    """The result document of a benchmark run (BenchmarkError for what cannot be run)."""
    started, start = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), time.monotonic()
    names, sizes, settings = static_plan(params)
    python, device = params["python"], params["device"]
    problem = check_interpreter(python)
    if problem:
        raise BenchmarkError(problem)
    program = child_program()
    # the first device child: the probe first, then (stdin) its device plan
    early = StagedChild(python, program, [plan_arg({"mode": "probe", "device": device}), "-"], env=CHILD_ENV)
    try:
        facts = _probe(early, python)
        gpus = _gpus(facts, params.get("gpus"), python) if device == "cuda" else None
        skips = _skips(names, device, gpus)
        _check_gates_after_probe(params, names, skips, gpus)
    except BaseException:
        early.cancel()
        raise
    plan = {"names": names, "sizes": sizes, "settings": settings, "skips": skips,
            "lock": lock_plan(params, settings), "gates": params.get("gates") or {}, "profile": params["profile"],
            "gpu_gates": params.get("gpu_gates") or []}
    devices = [_run_device(python, program, plan, gpu, facts, early if position == 0 else None)
               for position, gpu in enumerate(gpus or [None])]
    document = {
        "schema": SCHEMA, "host": host, "device": device, "profile": params["profile"], "tests": names,
        "started": started, "python": python, "torch": facts["torch"], "settings": settings,
        "nvml_error": facts.get("nvml_error"), "devices": devices,
        "multi_gpu": _run_multi(python, program, plan, gpus),
    }
    document["seconds"] = round(time.monotonic() - start, 3)
    gates, gpu_gates = params.get("gates") or {}, params.get("gpu_gates") or []
    document["gates"] = {"bounds": gates, "gpu_bounds": gpu_gates,
                         "failures": evaluate(gates, document, host, gpu_gates)}
    for device in devices:  # each GPU's own verdict: none of its figures failed a gate
        device["passed"] = not [failure for failure in document["gates"]["failures"]
                                if failure["gpu_index"] == device["index"]]
    return document
