# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: tests between GPUs.

- allreduce: one process per GPU through torch.distributed (NCCL), rendezvous through a
  file in a private temporary directory. The ranks are forked from this child before it
  touches CUDA (so allreduce must run before p2p). Each rank times the same fixed number
  of calls; the parent takes, per repetition, the slowest rank. Timed calls reduce with
  MAX, which moves the same bytes as SUM but keeps the values bounded over any number of
  repetitions; a separate SUM of known values checks the result. In CPU mode two gloo
  ranks run the same code.
- p2p: a copy from each GPU to each other GPU, timed on the source GPU's stream.
The parent sets NCCL_NVLS_ENABLE=0 and TORCH_SYMM_MEM_DISABLE_MULTICAST=1 for this child.
Runs inside the child, no Ansible import.
"""
from __future__ import annotations

import multiprocessing
import os
import queue as queue_module
import shutil
import tempfile
import time
from collections.abc import Mapping, Sequence
from datetime import timedelta
from types import ModuleType
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import (
    Timer, check_equal, measure, random_tensor)
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text

MIB = 1024 * 1024
CPU_RANKS = 2
WARMUP_CALLS = 5


def p2p(torch: ModuleType, gpus: Sequence[int], size: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """{"pairs": {"0->1": timing result or {"error"}}} for every ordered pair of GPUs."""
    nbytes = size["mib"] * MIB
    pairs = {}
    for src in gpus:
        for dst in gpus:
            if src != dst:
                pairs["%d->%d" % (src, dst)] = _p2p_pair(torch, src, dst, nbytes, settings)
    return {"pairs": pairs}


def _p2p_pair(torch, src, dst, nbytes, settings):
    try:
        source = random_tensor(torch, (nbytes,), torch.uint8, torch.device("cuda", src))
        target = torch.empty((nbytes,), dtype=torch.uint8, device=torch.device("cuda", dst))
        timer = Timer(torch, torch.device("cuda", src))
        result = measure(timer, lambda index: target.copy_(source, non_blocking=True), settings["reps"],
                         settings["warmup_s"], settings["min_rep_s"])
        torch.cuda.synchronize(dst)
        result["check"] = check_equal(torch, target, source)
        result["peer_access"] = bool(torch.cuda.can_device_access_peer(src, dst))
        return result
    except Exception as exc:
        return {"error": err_text(exc)}
    finally:
        torch.cuda.empty_cache()


def allreduce(torch: ModuleType, gpus: Sequence[int] | None, size: Mapping[str, Any], settings: Mapping[str, Any],
              timeout_s: float) -> dict[str, Any]:
    """Fork one rank per GPU (CPU_RANKS gloo ranks when gpus is None) and gather their timings."""
    world = len(gpus) if gpus else CPU_RANKS
    context = multiprocessing.get_context("fork")
    reports = context.Queue()
    workdir = tempfile.mkdtemp(prefix="blackwell-allreduce-")
    init = "file://" + os.path.join(workdir, "rendezvous")
    ranks = [context.Process(target=_rank, args=(reports, rank, world, gpus[rank] if gpus else None, init,
                                                 size, settings, timeout_s))
             for rank in range(world)]
    for process in ranks:
        process.start()
    gathered, error = {}, None
    deadline = time.monotonic() + timeout_s
    try:
        while len(gathered) < world:
            rank, report = reports.get(timeout=max(deadline - time.monotonic(), 0.1))
            gathered[rank] = report
    except queue_module.Empty:
        error = "timed out after %s s waiting for rank(s) %s" % (
            timeout_s, ", ".join(str(rank) for rank in range(world) if rank not in gathered))
    finally:
        for process in ranks:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
                process.join()
        shutil.rmtree(workdir, ignore_errors=True)
    failed = ["rank %d: %s" % (rank, report["error"]) for rank, report in sorted(gathered.items())
              if "error" in report]
    if error or failed:
        return {"error": "; ".join(([error] if error else []) + failed)}
    first = gathered[0]
    return {"world": world, "backend": first["backend"], "per_rank_times_s": [gathered[rank]["times_s"]
                                                                              for rank in range(world)],
            "inner": 1, "warmup_calls": WARMUP_CALLS, "sets": 1, "check": first["check"]}


def _rank(reports, rank, world, gpu, init, size, settings, timeout_s):
    try:
        import torch
        import torch.distributed as dist
        if gpu is None:
            device, backend = torch.device("cpu"), "gloo"
        else:
            device, backend = torch.device("cuda", gpu), "nccl"
            torch.cuda.set_device(device)
        dist.init_process_group(backend, init_method=init, rank=rank, world_size=world,
                                timeout=timedelta(seconds=timeout_s))
        try:
            report = _time_allreduce(torch, dist, device, world, size, settings)
        finally:
            dist.destroy_process_group()
        report["backend"] = backend
        reports.put((rank, report))
    except Exception as exc:
        reports.put((rank, {"error": err_text(exc)}))


def _time_allreduce(torch, dist, device, world, size, settings):
    numel = size["mib"] * MIB // 4
    data = random_tensor(torch, (numel,), torch.float32, device)
    timer = Timer(torch, device)
    result = measure(timer, lambda index: dist.all_reduce(data, op=dist.ReduceOp.MAX), settings["reps"],
                     0.0, 0.0, warmup_calls=WARMUP_CALLS, inner=1)
    known = torch.full((numel,), float(dist.get_rank() + 1), dtype=torch.float32, device=device)
    dist.all_reduce(known, op=dist.ReduceOp.SUM)
    timer.sync()
    expected = world * (world + 1) / 2.0
    ok = bool((known == expected).all())
    result["check"] = {"ok": ok, "detail": "SUM of rank+1 over %d ranks %s %g everywhere"
                       % (world, "is" if ok else "is not", expected)}
    return result
