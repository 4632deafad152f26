# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the preflight probe's health reading serves the verify role, and what gpu_health would answer from it.

The preflight role publishes, when asked, the GPUs' health as gpu_health reads it (blackwell_preflight.health:
module_utils/hardware/health_probe.py). When the verify role's stored result stands, that reading serves instead
of a gpu_health call if it answers the same request (the kernel log mode and the textfile directory) under the
driver loaded now. The gates are then judged with the functions gpu_health judges with (health_gates.evaluate,
its options checked the same way) and the textfile is rendered as gpu_health renders it (health_metrics); it is
written only when it differs from the text the probe read. Anything else (no reading, another request, another
driver, options the gates refuse, a run that benchmarks) leaves the work to gpu_health. Pure functions, no
Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import TEXTFILE
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_gates import evaluate
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_metrics import prometheus

NOT_USED = {"health": {}, "verdict": {}, "textfile": {"path": "", "content": "", "write": False}}


def _directory(path):
    """A directory as compared: '' for none, without a trailing slash."""
    path = path or ""
    return path.rstrip("/") or path


def refusal(probe: Mapping[str, Any] | None, decision: Mapping[str, Any], driver: Mapping[str, Any],
            request: Mapping[str, Any]) -> str:
    """Why the probe's reading does not serve this verify run ('' when it does)."""
    if not (decision or {}).get("reuse"):
        return "the stack is verified in this run: its health is read after the benchmark"
    if not isinstance(probe, dict) or not isinstance(probe.get("reading"), dict):
        return "the preflight probe read no health (not asked, or nvidia-ml-py missing for its Python)"
    if probe.get("kernel_log") != request.get("kernel_log"):
        return "the probe read the kernel log with %r, not %r" % (probe.get("kernel_log"), request.get("kernel_log"))
    if _directory(probe.get("textfile_dir")) != _directory(request.get("textfile_dir")):
        return "the probe read the textfile directory %r, not %r" % (
            probe.get("textfile_dir") or "", request.get("textfile_dir") or "")
    loaded = (driver or {}).get("version")
    if probe.get("driver_version") != loaded:
        return "the probe read the health under driver %s, %s is loaded now" % (probe.get("driver_version"), loaded)
    if request.get("gates_error"):
        return "the gates' options: %s" % request["gates_error"]
    return ""


def textfile(reading: Mapping[str, Any], verdict: Mapping[str, Any], host: str, directory: str,
             current: str | None) -> dict[str, Any]:
    """{path, content, write} of the health textfile in `directory` ('' for none): `write` when `current` (its
    text as the probe read it, None when absent) differs from the content gpu_health would write."""
    if not directory:
        return dict(NOT_USED["textfile"])
    content = prometheus(reading, verdict, host)
    return {"path": "%s/%s" % (_directory(directory), TEXTFILE), "content": content, "write": content != current}


def judged(probe: Mapping[str, Any] | None, decision: Mapping[str, Any], driver: Mapping[str, Any],
           request: Mapping[str, Any]) -> dict[str, Any]:
    """{use, reason, health, verdict, textfile}: what gpu_health would return for the verify role, from the probe's
    reading when it serves (use: true), else use: false and why (the role then calls gpu_health).

    `probe` is blackwell_preflight.health, `decision` the verify_decision answer (reuse, stored), `driver` the
    nvidia_driver fact, `request` {host, device, kernel_log, textfile_dir, gates (the options as gpu_health takes
    them), gates_error (why they could not be read as booleans and numbers)}."""
    request = request or {}
    why = refusal(probe, decision, driver, request)
    if why:
        return dict(NOT_USED, use=False, reason=why)
    stored = decision.get("stored") or {}
    reading = probe["reading"]
    options = dict((key, value) for key, value in (request.get("gates") or {}).items() if value is not None)
    try:
        verdict = evaluate(reading, options, request.get("host") or "", stored.get("benchmark") or {},
                           stored.get("written") or None, request.get("device") or "cuda")
    except ValueError as err:
        return dict(NOT_USED, use=False, reason="the gates' options: %s" % err)
    return {"use": True, "reason": "the preflight probe's reading (driver %s)" % probe.get("driver_version"),
            "health": reading, "verdict": verdict,
            "textfile": textfile(reading, verdict, request.get("host") or "", request.get("textfile_dir"),
                                 probe.get("textfile"))}
