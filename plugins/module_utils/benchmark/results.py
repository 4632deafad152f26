# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The torch_benchmark result document: its schema, its problems, and its atomic JSON write.

Document keys: schema, host, device (cuda | cpu), profile, tests, started (UTC, ISO 8601),
seconds, python, torch, settings, nvml_error, devices (one entry per benchmarked device, each with
`figures` keyed by test name), multi_gpu (allreduce and p2p figures, or null), gates
(bounds and failures). Pure functions and a file write, no Ansible import.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from typing import Any

SCHEMA = "blackwell.pytorch.torch_benchmark/1"
DOCUMENT_KEYS = ("schema", "host", "device", "profile", "tests", "started", "seconds", "python", "torch",
                 "settings", "nvml_error", "devices", "multi_gpu", "gates")
DEVICE_KEYS = ("index", "device", "name", "uuid", "compute_capability", "sm", "arch_family", "product_line",
               "sm_count", "l2_bytes", "memory_total_mib", "nvml", "status", "error", "seconds", "figures")
FIGURE_KEYS = ("test", "size", "counts", "unit", "status", "value", "min", "max", "spread", "reps", "seconds",
               "peak", "peak_source", "peak_note", "fraction_of_peak", "check", "error")
FIGURE_STATUSES = ("ok", "skipped", "failed", "wrong_result", "not_run")
PEAK_SOURCES = ("table", "derived", None)


def _figure_errors(where, fig):
    errors = ["%s lacks %s" % (where, key) for key in FIGURE_KEYS if key not in fig]
    if fig.get("status") not in FIGURE_STATUSES:
        errors.append("%s has status %r" % (where, fig.get("status")))
    if fig.get("peak_source") not in PEAK_SOURCES:
        errors.append("%s has peak_source %r" % (where, fig.get("peak_source")))
    if fig.get("status") == "ok" and fig.get("value") is None:
        errors.append("%s is ok without a value" % where)
    return errors


def schema_errors(document: Mapping[str, Any]) -> list[str]:
    """What keeps a document from matching the schema (empty when it does)."""
    errors = ["document lacks %s" % key for key in DOCUMENT_KEYS if key not in document]
    if document.get("schema") != SCHEMA:
        errors.append("schema is %r, not %r" % (document.get("schema"), SCHEMA))
    for position, device in enumerate(document.get("devices") or []):
        where = "devices[%d]" % position
        errors.extend("%s lacks %s" % (where, key) for key in DEVICE_KEYS if key not in device)
        for name, fig in sorted((device.get("figures") or {}).items()):
            errors.extend(_figure_errors("%s.figures.%s" % (where, name), fig))
    for name, figures in sorted(((document.get("multi_gpu") or {}).get("figures") or {}).items()):
        for position, fig in enumerate(figures if isinstance(figures, list) else [figures]):
            errors.extend(_figure_errors("multi_gpu.figures.%s[%d]" % (name, position), fig))
    return errors


def problems(document: Any) -> list[str]:
    """Human-readable lines for every device or figure that did not give a figure."""
    lines = []
    for device in document["devices"]:
        label = "%s (%s)" % (device["device"], device["name"])
        if device["status"] != "ok":
            lines.append("%s: benchmark child %s: %s" % (label, device["status"], device["error"]))
        lock = device.get("gpu_lock") or {}
        if lock.get("error"):
            lines.append("%s: measured without the host's GPU lock: %s" % (label, lock["error"]))
        for fig in device["figures"].values():
            if fig["status"] not in ("ok", "skipped"):
                lines.append("%s: %s %s: %s" % (label, fig["test"], fig["status"], fig["error"]))
    multi = document.get("multi_gpu") or {}
    if multi and multi["status"] not in ("ok", "skipped"):
        lines.append("multi-GPU benchmark child %s: %s" % (multi["status"], multi["error"]))
    for figures in (multi.get("figures") or {}).values():
        for fig in figures if isinstance(figures, list) else [figures]:
            if fig["status"] not in ("ok", "skipped"):
                lines.append("multi-GPU %s: %s: %s" % (fig["test"], fig["status"], fig["error"]))
    return lines


def write_json(path: str, document: Mapping[str, Any]) -> None:
    """Write the document atomically: a temporary file in the same directory, mode 0644, os.replace."""
    directory = os.path.dirname(os.path.abspath(path))
    handle, temporary = tempfile.mkstemp(prefix=".%s." % os.path.basename(path), suffix=".tmp", dir=directory)
    try:
        with os.fdopen(handle, "w") as stream:
            json.dump(document, stream, indent=2, sort_keys=True)
            stream.write("\n")
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
