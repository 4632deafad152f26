# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stored results the collection reads back (verify.json, cuda_check.json: schema blackwell.pytorch.verify/1),
read and judged before anything trusts them, and the verification textfile beside them.

A stored file is trusted only when it parses and has the shape its readers use: a file that is not JSON, or JSON of
another kind (a list, `"benchmark": "x"`, a GPU entry that is text), would be reused as a pass and then break the
summary, the Prometheus textfile or the fleet report ("'str' object has no attribute 'get'") on every run until
verify_force. read() answers (document, problem); the problem says which file and what is wrong, and the readers
say it where they decide (stack_fingerprint's reason and warning, the pytorch plan's standing, the fleet report's
line for the host). problems() is the shape check alone, for results that arrive as facts (the fleet report's
inputs). textfile() reads the verification textfile a stored result is rendered into, so a result that is reused
can write it again where it is missing or differs. Pure over the file system, no Ansible import.
"""
from __future__ import annotations

import json
import os
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text

SCHEMA = "blackwell.pytorch.verify/1"
TEXTFILE = "blackwell_pytorch_verify.prom"
_TEXT, _MAPPING, _LIST, _BOOL, _NUMBER = "text", "mapping", "list", "true or false", "number"
# The top-level keys a reader uses, and what each must be when present (schema, passed, fingerprint: always).
_KEYS = (("passed", _BOOL), ("fingerprint", _MAPPING), ("written", _TEXT), ("host", _TEXT), ("message", _TEXT),
         ("results", _TEXT), ("status", _TEXT), ("deferred", _BOOL), ("reused", _BOOL), ("benchmark", _MAPPING),
         ("failed_gates", _LIST), ("summary", _LIST), ("gates", _MAPPING), ("gpu_gates", _LIST),
         ("product_line", _TEXT), ("product_lines", _LIST), ("cuda_check", _MAPPING), ("busy", _MAPPING),
         ("health", _MAPPING), ("result", _MAPPING))
_REQUIRED = ("passed", "fingerprint")


def _kind(value):
    if isinstance(value, bool):
        return _BOOL
    if isinstance(value, (int, float)):
        return _NUMBER
    if isinstance(value, str):
        return _TEXT
    if isinstance(value, dict):
        return _MAPPING
    if isinstance(value, list):
        return _LIST
    return "null" if value is None else type(value).__name__


def _shown(value):
    if isinstance(value, str):
        return "the text %r" % (value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, (dict, list)):
        return "a %s" % _kind(value)
    return "%s" % json.dumps(value)


def _wrong(where, value, wanted):
    return "%s is %s, not a %s" % (where, _shown(value), wanted) if wanted != _BOOL else (
        "%s is %s, not true or false" % (where, _shown(value)))


def _check(where, value, wanted, nullable=False):
    """[] when `value` is of the kind `wanted` (or null where that is allowed), else one problem."""
    if (nullable and value is None) or _kind(value) == wanted:
        return []
    return [_wrong(where, value, wanted)]


def _figure_problems(where, fig):
    found = _check(where, fig, _MAPPING)
    if found:
        return found
    found += _check(where + ".value", fig.get("value"), _NUMBER, nullable=True)
    for key in ("telemetry", "sustained", "expected"):
        found += _check("%s.%s" % (where, key), fig.get(key), _MAPPING, nullable=True)
    telemetry = fig.get("telemetry") if isinstance(fig.get("telemetry"), dict) else {}
    found += _check(where + ".telemetry.reasons", telemetry.get("reasons"), _LIST, nullable=True)
    for key in ("sm_clock_mhz", "power_w", "temperature_c"):
        found += _check("%s.telemetry.%s" % (where, key), telemetry.get(key), _MAPPING, nullable=True)
    return found


def _benchmark_problems(benchmark):
    found = _check("benchmark.devices", benchmark.get("devices"), _LIST, nullable=True)
    for position, device in enumerate(benchmark.get("devices") if not found else []):
        where = "benchmark.devices[%d]" % position
        if _check(where, device, _MAPPING):
            found += _check(where, device, _MAPPING)
            continue
        figures = device.get("figures")
        if _check(where + ".figures", figures, _MAPPING, nullable=True):
            found += _check(where + ".figures", figures, _MAPPING)
            continue
        for test, fig in sorted((figures or {}).items()):
            found += _figure_problems("%s.figures.%s" % (where, test), fig)
    return found


def _list_of_mappings(where, items):
    return [_wrong("%s[%d]" % (where, position), item, _MAPPING)
            for position, item in enumerate(items) if not isinstance(item, dict)]


def problems(document: Any) -> list[str]:
    """What keeps `document` from being read as a stored result (verify.json or cuda_check.json): [] when it has the
    schema and every key its readers use has the kind they use, else one text per problem ("benchmark is the text
    'x', not a mapping")."""
    if not isinstance(document, dict):
        return ["it is %s, not a mapping" % _shown(document)]
    if document.get("schema") != SCHEMA:
        return ["its schema is %s, not %s" % (_shown(document.get("schema")), SCHEMA)]
    found = ["%s is missing" % key for key in _REQUIRED if key not in document]
    for key, wanted in _KEYS:
        if key in document and key not in found:
            found += _check(key, document[key], wanted)
    if isinstance(document.get("benchmark"), dict):
        found += _benchmark_problems(document["benchmark"])
    if isinstance(document.get("failed_gates"), list):
        found += _list_of_mappings("failed_gates", document["failed_gates"])
    if isinstance(document.get("summary"), list):
        found += ["summary[%d] is %s, not a text" % (position, _shown(line))
                  for position, line in enumerate(document["summary"]) if not isinstance(line, str)]
    for key in ("cuda_check", "result"):  # verify.json's check summary; cuda_check.json's torch_cuda_check result
        part = document.get(key)
        if isinstance(part, dict):
            found += _check(key + ".build", part.get("build"), _MAPPING, nullable=True)
            found += _check(key + ".gpus", part.get("gpus"), _LIST, nullable=True)
            if isinstance(part.get("gpus"), list):
                found += _list_of_mappings(key + ".gpus", part["gpus"])
    return found


def read(path: str) -> tuple[Any, str | None]:
    """(document, problem): the stored result at `path` and None, or None and why it is not used - None as well when
    the file is not there (nothing stored is no problem); "PATH is not JSON (...)", "PATH is damaged: ..."."""
    if os.path.isdir(path):
        return None, "%s is a directory, not a file" % path
    text = read_text(path)
    if text is None:
        return None, None if not os.path.lexists(path) else "%s cannot be read" % path
    try:
        document = json.loads(text)
    except ValueError as err:
        return None, "%s is not JSON (%s)" % (path, err)
    found = problems(document)
    if found:
        return None, "%s is damaged: %s" % (path, "; ".join(found[:3]) + ("; ..." if len(found) > 3 else ""))
    return document, None


def unused_reason(problem: str) -> str:
    """The reason a fingerprint decision gives for a stored result that is not used."""
    return "the stored result is not used: %s" % problem


def textfile(directory: str | None) -> dict[str, Any]:
    """{"path", "text"} of the verification textfile in `directory` (text None: absent or unreadable); {} without a
    directory (no textfile is written)."""
    if not directory:
        return {}
    path = os.path.join(directory, TEXTFILE)
    return {"path": path, "text": read_text(path) if not os.path.isdir(path) else None}
