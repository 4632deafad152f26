# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One host of the fleet report: its verdict, stack, figures, each GPU's own verdict, and whether its
GPUs were busy with someone else's work.

host_entry() turns a verification result (blackwell.pytorch.verify/1) into the host's entry of the
fleet document. A result deferred because another process held a GPU (`status: busy`) is neither
passed nor failed: its status is "busy" and its text names each process (GPU, pid, command, user,
memory). A result measured beside such a process (`busy.state: measured_busy`) is shown as any
other, with the note "measured while busy: ...". `gpus` gives each GPU its own verdict where the
result says which GPU failed which gate (failures carry `gpu_index`; devices carry their `gates`).
gpu_rows() is what the renderers draw: one row per GPU with its figures, flags and slowdowns.
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.results import stored
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_multi, fleet_outliers
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import (
    busy_note, busy_text, gpu_text, key_figures)

SLOW_REASONS = ("hw_slowdown", "hw_thermal_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")


def _stack(document):
    fp = document.get("fingerprint") or {}
    torch = fp.get("torch") or {}
    return {"driver": fp.get("driver_version"), "cuda_toolkit": fp.get("cuda_toolkit"),
            "torch": torch.get("version"), "torch_cuda": torch.get("cuda"), "packages": len(fp.get("packages") or []),
            "collection": fp.get("collection_version")}


def busy_of(document: Mapping[str, Any]) -> dict[str, Any] | None:
    """{state, mode, waited_s, processes, text} of a result's `busy`, or None."""
    busy = document.get("busy")
    if not isinstance(busy, dict):
        return None
    return {"state": busy.get("state"), "mode": busy.get("mode"), "waited_s": busy.get("waited_s"),
            "processes": [proc for proc in busy.get("processes") or [] if isinstance(proc, dict)],
            "text": busy_text(busy)}


def _per_gpu_failures(document):
    """(whether the result judges each GPU on its own, {gpu index: ["test gate", ...]})."""
    devices = ((document.get("benchmark") or {}).get("devices")) or []
    per_gpu = any(isinstance(device, dict) and "gates" in device for device in devices)
    failed = {}
    for failure in document.get("failed_gates") or []:
        index = failure.get("gpu_index") if isinstance(failure, dict) else None
        if isinstance(index, int) and not isinstance(index, bool):
            per_gpu = True
            failed.setdefault(index, []).append("%s %s" % (failure.get("test"), failure.get("gate")))
    return per_gpu, failed


def gpus_of(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{gpu, name, uuid, product_line, verdict, failed_gates}] per benchmarked device: a GPU fails on its own
    failures where the result names them per GPU, else it carries the host's verdict."""
    per_gpu, failed = _per_gpu_failures(document)
    host_verdict = "passed" if document.get("passed") else "failed"
    gpus = []
    for device in ((document.get("benchmark") or {}).get("devices")) or []:
        if not isinstance(device, dict):
            continue
        index = device.get("index")
        gates = failed.get(index, []) if per_gpu else []
        verdict = ("failed" if gates else "passed") if per_gpu else host_verdict
        gpus.append({"gpu": index, "name": device.get("name"), "uuid": device.get("uuid"),
                     "product_line": device.get("product_line"), "verdict": verdict, "failed_gates": gates})
    return gpus


def _missing(name):
    return {"host": name, "status": "missing", "passed": False, "written": None, "source": "none",
            "message": "no verification result", "stack": {}, "figures": [], "measured": [], "failed_gates": [],
            "gpus": [], "multi_gpu": None, "flags": []}


def host_entry(name: str, document: Mapping[str, Any] | None) -> dict[str, Any]:
    """One host of the fleet document (a host without a result is listed as missing, and so is one whose result is
    damaged, naming its file and what is wrong; a deferred busy result has status "busy", and a check run's preview
    of a stack not there yet "preview", neither passed nor failed)."""
    if not isinstance(document, dict) or "passed" not in document:
        return _missing(name)
    if document.get("preview") is True:  # a check run before the stack was there: nothing was verified
        return dict(_missing(name), status="preview", source="this run",
                    message=str(document.get("message") or "check mode: not verified"))
    damaged = stored.problems(document)
    if damaged:
        results = document.get("results") if isinstance(document.get("results"), str) else "verify.json"
        return dict(_missing(name), message="damaged verification result (%s: %s): not reported; verify the host "
                                            "again (-e verify_force=true)" % (results, "; ".join(damaged[:3])))
    busy = busy_of(document)
    if document.get("status") == "busy":
        return {"host": name, "status": "busy", "passed": False, "written": document.get("written"),
                "source": "this run", "message": busy["text"] if busy else document.get("message") or "busy",
                "busy": busy, "stack": _stack(document), "figures": [], "measured": [], "slow_reasons": [],
                "failed_gates": [], "gpus": [], "multi_gpu": None, "flags": []}
    figures = key_figures(document)
    slow = sorted(set(reason for row in figures for reason in row["reasons"] if reason in SLOW_REASONS))
    entry = {"host": name, "status": "passed" if document["passed"] else "failed", "passed": document["passed"],
             "written": document.get("written"), "source": "this run", "measured": fleet_outliers.measured(document),
             "message": document.get("message"), "stack": _stack(document), "figures": figures,
             "slow_reasons": slow, "failed_gates": document.get("failed_gates") or [],
             "results": document.get("results"), "gpus": gpus_of(document),
             "multi_gpu": fleet_multi.block(document), "flags": []}
    if busy is not None:
        entry["busy"] = busy
        if busy_note(document):
            entry["busy_note"] = busy_note(document)
    return entry


def _gpus(host):
    """The host's GPUs: its `gpus`, or (a stored entry of an older report) the GPUs its key figures name."""
    if isinstance(host.get("gpus"), list) and host["gpus"]:
        return [gpu for gpu in host["gpus"] if isinstance(gpu, dict)]
    seen, gpus = set(), []
    for row in host.get("figures") or []:
        if row.get("gpu") not in seen:
            seen.add(row.get("gpu"))
            gpus.append({"gpu": row.get("gpu"), "name": row.get("name"), "verdict": host.get("status"),
                         "failed_gates": []})
    return gpus


def gpu_verdict(host: Mapping[str, Any], gpu: int | None) -> str:
    """The verdict of one GPU of the host ("passed", "failed"), its host's status where it is not among them."""
    for entry in _gpus(host):
        if entry["gpu"] == gpu:
            return entry.get("verdict") or host.get("status")
    return host.get("status")


def gpu_rows(host: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{gpu, name, label, verdict, failed_gates, figures, flags, slow_reasons}]: one row per GPU of the host
    (one row labelled "-" for a host without figures: missing, busy, or a result without a benchmark)."""
    rows = []
    for gpu in _gpus(host):
        figures = [row for row in host.get("figures") or [] if row.get("gpu") == gpu["gpu"]]
        rows.append({"gpu": gpu["gpu"], "name": gpu.get("name"), "label": gpu_text(gpu["gpu"], gpu.get("name")),
                     "verdict": gpu.get("verdict") or host.get("status"), "failed_gates": gpu.get("failed_gates") or [],
                     "figures": figures,
                     "flags": [item for item in host.get("flags") or [] if item.get("gpu") == gpu["gpu"]],
                     "slow_reasons": sorted(set(reason for row in figures for reason in row.get("reasons") or []
                                                if reason in SLOW_REASONS))})
    if not rows:
        rows.append({"gpu": None, "name": None, "label": "-", "verdict": host.get("status"), "failed_gates": [],
                     "figures": [], "flags": list(host.get("flags") or []),
                     "slow_reasons": list(host.get("slow_reasons") or [])})
    return rows
