# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run the whole torch_cuda_check with one interpreter and assemble its report.

Children (each with its own timeout, see torch_cuda_check.child), on a small thread pool:
- facts (build, GPUs) and, beside it, companions (torchvision, torchaudio imports);
- then per GPU, side by side:
  - normal:          op mix + feature probes, PTX JIT variables removed;
  - disable_ptx_jit: op mix + native-SASS launch test, CUDA_DISABLE_PTX_JIT=1;
  - force_ptx_jit:   op mix, CUDA_FORCE_PTX_JIT=1;
- compile: torch.compile, only when asked (seconds to minutes), once the normal op mix ran.
Each child pays for its own torch import and CUDA start (about 5 s on an H100 host), which
is why they overlap. A child that times out or crashes is reported in the parts it did not
finish.

No Ansible import: the module and benchmarks/torch_cuda_check_time.py call run_check().
"""
from __future__ import annotations

import glob
import os
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import check_interpreter, run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child import (
    companions_source, facts_source, gpu_source)
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.probes import PROBES
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import capability_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import (
    images_by_kind, kernel_image_verdict)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import COMPANIONS, companion_match

DEFAULT_TIMEOUT = 120
DEFAULT_COMPILE_TIMEOUT = 600
DEFAULT_PARALLEL = 6
# A GPU child waits for the host's GPU lock (common.gpu_lock) at most this share of its timeout.
LOCK_WAIT_SHARE = 0.25
_NO_JIT_VARS = {"CUDA_DISABLE_PTX_JIT": None, "CUDA_FORCE_PTX_JIT": None}
MAX_PARALLEL = 64
# mode -> (parts, environment)
MODES = (
    ("normal", ("ops", "probes"), _NO_JIT_VARS),
    ("disable_ptx_jit", ("ops", "sass"), dict(_NO_JIT_VARS, CUDA_DISABLE_PTX_JIT="1")),
    ("force_ptx_jit", ("ops",), dict(_NO_JIT_VARS, CUDA_FORCE_PTX_JIT="1")),
)


def version_string(code: int | Sequence[int] | None) -> str | None:
    """cuDNN / NCCL version codes as text: 91002 -> "9.10.2", 2708 -> "2.7.8", (2, 27, 5) -> "2.27.5"."""
    if code is None:
        return None
    if isinstance(code, (list, tuple)):
        return ".".join(str(part) for part in code)
    code = int(code)
    major, rest = (code // 10000, code % 10000) if code >= 10000 else (code // 1000, code % 1000)
    return "%d.%d.%d" % (major, rest // 100, rest % 100)


def part_of(child: Mapping[str, Any], name: str) -> dict[str, Any]:
    """The `name` part of a GPU child's result, or why it is missing (timeout, crash, CUDA init)."""
    payload = child["result"] or {}
    if name in payload:
        return payload[name]
    init = payload.get("init") or {}
    if init.get("status") == "failed":
        return {"status": "failed", "error": "CUDA initialisation failed: %s" % init["error"]}
    status = child["status"] if child["status"] != "ok" else "failed"
    return {"status": status, "error": child["error"] or "the child reported no %s result" % name}


def _predictions(verdict, sm):
    """mode -> (should the op mix run, why), from the arch list alone."""
    compute = sm.replace("sm_", "compute_")
    normal = ((True, "the build has %s for %s" % (verdict["image"], sm)) if verdict["verdict"] != "none"
              else (False, "the build has no kernel image for %s" % sm))
    disable = ((True, "%s SASS runs without JIT" % verdict["image"]) if verdict["verdict"] == "native"
               else (False, "only native SASS may run and the build has none for %s" % sm))
    force = ((True, "PTX %s is JIT-compiled for %s" % (verdict["ptx_image"], sm)) if verdict["ptx_image"]
             else (False, "the build has no PTX <= %s, so nothing can load when the driver must JIT-compile "
                          "PTX: the build is not forward compatible, the install is not broken" % compute))
    return {"normal": normal, "disable_ptx_jit": disable, "force_ptx_jit": force}


def annotate_run(run: Mapping[str, Any], should_run: bool, why: str) -> dict[str, Any]:
    """Add expected (the outcome is what the arch list predicts) and a note saying why."""
    if run["status"] not in ("ok", "failed"):
        run.update(expected=False, note="unexpected: the child ended with %s" % run["status"])
    elif (run["status"] == "ok") == should_run:
        run.update(expected=True, note="expected: %s" % why)
    else:
        run.update(expected=False, note="unexpected: predicted to %s because %s" % (
            "run" if should_run else "fail", why))
    return run


def _probes(normal, compile_child, torch_compile):
    probes = part_of(normal, "probes")
    if "status" in probes:  # the child never got to the probes
        probes = dict((name, dict(probes)) for name in PROBES if name != "torch_compile")
    if compile_child is not None:
        probes["torch_compile"] = part_of(compile_child, "compile")
    elif torch_compile:
        probes["torch_compile"] = {"status": "skipped", "reason": "the basic op mix failed on this GPU"}
    else:
        probes["torch_compile"] = {"status": "skipped",
                                   "reason": "torch_compile is false (it compiles for seconds to minutes)"}
    return probes


def assemble_gpu(device: Mapping[str, Any], arch_list: Sequence[str], children: Mapping[str, Any],
                 compile_child: Mapping[str, Any] | None, torch_compile: bool) -> dict[str, Any]:
    """Verdict, the three runs, the native-SASS launch and the probes of one GPU."""
    capability = tuple(device["capability"])
    gpu = dict((key, device.get(key)) for key in (
        "index", "name", "uuid", "pci_bus_id", "memory_total_mib", "multi_processor_count"))
    gpu.update(capability_facts(*capability))
    verdict = gpu["kernel_image"] = kernel_image_verdict(arch_list, capability)
    predictions = _predictions(verdict, gpu["sm"])
    gpu["runs"] = {}
    for mode, _parts, env in MODES:
        run = dict(part_of(children[mode], "ops"), child_seconds=children[mode]["seconds"],
                   env=" ".join("%s=%s" % (key, value) for key, value in sorted(env.items()) if value) or None)
        gpu["runs"][mode] = annotate_run(run, *predictions[mode])
    gpu["native_sass_launch"] = part_of(children["disable_ptx_jit"], "sass")
    gpu["probes"] = _probes(children["normal"], compile_child, torch_compile)
    return gpu


def _companions(torch_version, child):
    companions = {}
    for name in COMPANIONS:
        payload = child["result"] or {}
        found = payload.get(name) or {
            "version": None, "import_error": "the companions child ended (%s) before importing %s: %s" % (
                child["status"], name, child["error"] or payload.get("torch_import_error"))}
        match = companion_match(torch_version, name, found["version"])
        companions[name] = {"installed": found["version"], "import_ok": found["import_error"] is None,
                            "import_error": found["import_error"], "expected": match["expected"],
                            "match": match["match"], "reason": match["reason"]}
    return companions


def facts_error(python: str, child: Mapping[str, Any]) -> str | None:
    """Why the facts child gave nothing to go on (None when it did)."""
    facts = child["result"]
    if facts is None:
        return "could not read torch's build facts with %s: the child %s: %s" % (
            python, child["status"], child["error"])
    if facts.get("torch_missing"):
        return "torch is not installed in %s" % python
    if facts.get("torch_import_error"):
        return "torch cannot be imported in %s: %s" % (python, facts["torch_import_error"])
    return None


class _Children(object):
    """Starts children on a thread pool and keeps, in start order, what each one did."""

    def __init__(self, python, timeout, pool):
        self.python, self.timeout, self.pool, self.started = python, timeout, pool, []

    def start(self, name, gpu, source, args=(), env=None, timeout=None):
        future = self.pool.submit(run_child, self.python, source, args=args, env=env,
                                  timeout=timeout or self.timeout)
        self.started.append((name, gpu, future))
        return future

    def discard(self, gpu):
        """Forget the children started for a GPU torch does not have (a guess that was wrong)."""
        self.started = [entry for entry in self.started if entry[1] != gpu]

    def entries(self):
        entries = []
        for name, gpu, future in self.started:
            child = future.result()
            entry = {"name": name, "gpu": gpu, "status": child["status"], "seconds": child["seconds"],
                     "error": child["error"], "phases": (child["result"] or {}).get("phases")}
            if child["status"] != "ok":
                entry["stderr_tail"] = child["stderr_tail"][-800:]
            entries.append(entry)
        return entries


def guess_gpu_indices(environ: Mapping[str, str] | None = None, root: str = "/") -> list[int]:
    """The GPU indices torch will see, guessed before torch runs, so the GPU children can start
    beside the facts child: as many as CUDA_VISIBLE_DEVICES lists when it is set, else as many as
    the driver initialised (/proc/driver/nvidia/gpus). The facts child has the last word."""
    environ = os.environ if environ is None else environ
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        count = len([entry for entry in visible.split(",") if entry.strip()])
    else:
        count = len(glob.glob(os.path.join(root, "proc/driver/nvidia/gpus/*")))
    return list(range(count))


def _lock_args(lock, timeout):
    return (lock or "", "%g" % (timeout * LOCK_WAIT_SHARE))


def _start_gpu(children, index, lock):
    return dict((mode, children.start(mode, index, gpu_source(parts),
                                      args=(index, ",".join(parts)) + _lock_args(lock, children.timeout), env=env))
                for mode, parts, env in MODES)


def option_errors(timeout: float = DEFAULT_TIMEOUT, compile_timeout: float = DEFAULT_COMPILE_TIMEOUT,
                  parallel: int = DEFAULT_PARALLEL) -> list[str]:
    """Problems of the options that size the run, before any child starts (empty: fine).

    A timeout is a positive number of seconds; parallel a count of children from 1 (one after
    the other) to MAX_PARALLEL. Nothing is clamped silently.
    """
    errors = []
    for name, value in (("timeout", timeout), ("compile_timeout", compile_timeout)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            errors.append("%s must be a positive number of seconds, got %r" % (name, value))
    if isinstance(parallel, bool) or not isinstance(parallel, int) or not 1 <= parallel <= MAX_PARALLEL:
        errors.append("parallel must be a whole number from 1 (one child after the other) to %d, got %r"
                      % (MAX_PARALLEL, parallel))
    return errors


def run_check(python: str, timeout: float = DEFAULT_TIMEOUT, compile_timeout: float = DEFAULT_COMPILE_TIMEOUT,
              torch_compile: bool = False, parallel: int = DEFAULT_PARALLEL, gpu_lock: str | None = None,
              gpu_indices: Sequence[int] | None = None) -> dict[str, Any]:
    """The whole check. Returns the report; report["error"] is set when `python` or its torch cannot be used.

    At most `parallel` children run at a time (1: one after the other, the cleanest timings). The GPU
    children of the guessed GPUs (gpu_indices, default guess_gpu_indices()) start right after the
    facts child; those of GPUs the facts name but the guess missed start once the facts are in.
    GPU children take `gpu_lock` (a file; None for none) shared before their first kernel.
    """
    start = time.monotonic()
    report = {"python": python, "error": check_interpreter(python), "build": None, "companions": None,
              "cuda": None, "gpus": [], "children": [], "seconds": None}
    if report["error"] is None:
        with ThreadPoolExecutor(max_workers=max(1, parallel)) as pool:
            children = _Children(python, timeout, pool)
            facts_job = children.start("facts", None, facts_source())
            guessed = guess_gpu_indices() if gpu_indices is None else gpu_indices
            started = dict((index, _start_gpu(children, index, gpu_lock)) for index in guessed)
            companions_job = children.start("companions", None, companions_source())
            report["error"] = facts_error(python, facts_job.result())
            if report["error"] is not None:
                for index in started:
                    children.discard(index)
            else:
                _report_gpus(report, facts_job.result()["result"], children, torch_compile, compile_timeout, started,
                             gpu_lock)
                report["companions"] = _companions(report["build"]["torch_version"], companions_job.result())
            report["children"] = children.entries()
    report["seconds"] = round(time.monotonic() - start, 3)
    return report


def _report_gpus(report, facts, children, torch_compile, compile_timeout, started, lock):
    split = images_by_kind(facts["arch_list"])
    report["build"] = {
        "torch_version": facts["torch_version"], "git_version": facts["git_version"],
        "cuda_runtime": facts["cuda"], "cudnn": version_string(facts["cudnn"]),
        "nccl": {"available": facts["nccl_available"], "version": version_string(facts["nccl"])},
        "arch_list": facts["arch_list"], "sass": split["sass"], "ptx": split["ptx"],
        "device_count": len(facts["devices"]),
    }
    report["cuda"] = {"available": facts["cuda_available"], "reason": facts["cuda_unavailable_reason"]}
    indices = [device["index"] for device in facts["devices"]]
    for index in set(started) - set(indices):
        children.discard(index)
    jobs = [started.get(index) or _start_gpu(children, index, lock) for index in indices]
    compile_jobs = []
    for device, gpu_jobs in zip(facts["devices"], jobs):
        normal_ops = part_of(gpu_jobs["normal"].result(), "ops")
        compile_jobs.append(children.start(
            "compile", device["index"], gpu_source(("compile",)),
            args=(device["index"], "compile") + _lock_args(lock, compile_timeout),
            env=_NO_JIT_VARS, timeout=compile_timeout) if torch_compile and normal_ops["status"] == "ok" else None)
    for device, gpu_jobs, compile_job in zip(facts["devices"], jobs, compile_jobs):
        report["gpus"].append(assemble_gpu(
            device, facts["arch_list"], dict((mode, job.result()) for mode, job in gpu_jobs.items()),
            compile_job.result() if compile_job else None, torch_compile))
