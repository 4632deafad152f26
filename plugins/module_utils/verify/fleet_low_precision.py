# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The low-precision recipes of each GPU in the fleet report: which of FP8 per-tensor, FP8 row-wise, MXFP8,
NVFP4 and grouped FP8 run on the GPU with its libraries, and how fast.

block() gives a host entry's `low_precision`: one row per GPU whose benchmark entry has a `low_precision`
block ({gpu, name, libraries, recipes: the recipes as the result has them}), or None (a result written
before the low-precision tests, or none of its GPUs has the block). cell() is a recipe's short text ("1447
TFLOP/s (0.73)", "refused", ...), title() its long text (the reason of a refusal). table() lays the fleet
out for the renderers: a row per host and GPU, a column per recipe in the order first seen; reasons() groups
the reasons of what does not run by recipe and reason text, so identical hosts give one line per recipe.
Every value of a block may be missing or None: what is not there is shown as "-". Pure functions, no
Ansible import.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

STATES = {"runs": "runs", "refused": "refused", "failed": "failed", "wrong_result": "wrong result",
          "not_measured": "not measured"}
# the libraries' keys in the order of their cell, and the header of that cell
LIBRARIES = ("torch", "cuda", "cublaslt", "driver")
LIBRARIES_HEADER = "torch / CUDA / cuBLASLt / driver"


def _number(value):
    """`value` when it is a number (not a bool), else None."""
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def block(document: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
    """[{gpu, name, libraries, recipes}] of the GPUs of a verification result that carry `low_precision`, in the
    order of the result's devices; None when none does."""
    benchmark = (document or {}).get("benchmark") if isinstance(document, dict) else None
    devices = (benchmark or {}).get("devices") if isinstance(benchmark, dict) else None
    rows = []
    for device in devices if isinstance(devices, list) else []:
        low = device.get("low_precision") if isinstance(device, dict) else None
        if not isinstance(low, dict):
            continue
        libraries = low.get("libraries") if isinstance(low.get("libraries"), dict) else {}
        recipes = low.get("recipes") if isinstance(low.get("recipes"), list) else []
        rows.append({"gpu": device.get("index"), "name": device.get("name"), "libraries": dict(libraries),
                     "recipes": [dict(recipe) for recipe in recipes if isinstance(recipe, dict)]})
    return rows or None


def _amount(value):
    """"1447" (whole units from 100 up), "45.3", "4.56" below."""
    return "%.0f" % value if abs(value) >= 100 else "%.3g" % value


def _runs(recipe):
    return recipe.get("state") == "runs" or (recipe.get("state") is None and _number(recipe.get("value")) is not None)


def cell(recipe: Mapping[str, Any] | None) -> str:
    """The short text of one recipe: "1447 TFLOP/s (0.73)" for one that runs (its fraction of peak where known;
    "runs" without a value), else "refused", "failed", "wrong result" or "not measured" ("-": no recipe)."""
    if not isinstance(recipe, dict):
        return "-"
    value = _number(recipe.get("value"))
    if _runs(recipe):
        if value is None:
            return "runs"
        fraction = _number(recipe.get("fraction_of_peak"))
        unit = " %s" % recipe["unit"] if recipe.get("unit") else ""
        return _amount(value) + unit + (" (%.2f)" % fraction if fraction is not None else "")
    state = recipe.get("state")
    return STATES.get(state, str(state)) if state else "-"


def title(recipe: Mapping[str, Any] | None) -> str | None:
    """The long text of one recipe: its reason where it has one ("not supported on sm_90: MXFP8 needs compute
    capability 10.0+"), else its test and exact figure ("gemm_fp8: 1446.7 TFLOP/s, 0.7312 of peak") or state;
    None when nothing is known."""
    if not isinstance(recipe, dict):
        return None
    if recipe.get("reason"):
        return str(recipe["reason"])
    value, fraction = _number(recipe.get("value")), _number(recipe.get("fraction_of_peak"))
    if _runs(recipe) and value is not None:
        text = "%s %s" % (value, recipe.get("unit") or "")
        text = text.strip() + (", %s of peak" % fraction if fraction is not None else "")
    elif recipe.get("state"):
        text = cell(recipe)
    else:
        return None
    return "%s: %s" % (recipe["test"], text) if recipe.get("test") else text


def _name(recipe):
    """The recipe's column: its name, else its test (None: neither)."""
    name = recipe.get("recipe") or recipe.get("test")
    return str(name) if name else None


def libraries_text(libraries: Mapping[str, Any] | str | None) -> str:
    """"2.11.0+cu130 / 13.0 / 13.1.0 / 580.159.04" (torch, CUDA, cuBLASLt, driver; "-" for each not known), or
    "-" when none is."""
    libraries = libraries if isinstance(libraries, dict) else {}
    if not any(libraries.get(key) for key in LIBRARIES):
        return "-"
    return " / ".join(str(libraries.get(key) or "-") for key in LIBRARIES)


def gpu_rows(report: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """[(host name, low-precision row)] of the fleet document, in host order: each host's rows that are mappings
    (a hand-edited or older fleet.json may hold anything)."""
    found = []
    for host in report.get("hosts") or []:
        rows = host.get("low_precision") if isinstance(host, dict) else None
        for row in rows if isinstance(rows, list) else []:
            if isinstance(row, dict):
                found.append((host.get("host"), row))
    return found


def gpu_text(row: Mapping[str, Any]) -> str:
    """"0 NVIDIA H200": a row's GPU index and model, what of them is known ("-": neither)."""
    return " ".join(str(row[key]) for key in ("gpu", "name") if row.get(key) is not None) or "-"


def _recipes(row):
    """{recipe name: recipe} of a row, the first of each name."""
    named = {}
    for recipe in row.get("recipes") if isinstance(row.get("recipes"), list) else []:
        if isinstance(recipe, dict) and _name(recipe) is not None:
            named.setdefault(_name(recipe), recipe)
    return named


def recipe_names(found: Iterable[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The recipe names of gpu_rows()' rows, in the order first seen."""
    names = []
    for _host, row in found:
        names += [name for name in _recipes(row) if name not in names]
    return names


def table(report: Mapping[str, Any]) -> tuple[list[str] | None, list[list[tuple[str, str | None, str | None]]]]:
    """(header, rows) of the fleet's recipes: header ["host", "GPU", "torch / CUDA / cuBLASLt / driver", recipe
    names in the order first seen]; each row [(text, title, state)]: the host, the GPU ("0 NVIDIA H200"), its
    libraries, then one cell per recipe ("-", no title nor state, where the GPU has none). (None, []) when no
    host has a block."""
    found = gpu_rows(report)
    if not found:
        return None, []
    names = recipe_names(found)
    rows = []
    for host, row in found:
        recipes = _recipes(row)
        cells = [(str(host), None, None), (gpu_text(row), None, None),
                 (libraries_text(row.get("libraries")), None, None)]
        for name in names:
            recipe = recipes.get(name)
            cells.append((cell(recipe), title(recipe), recipe.get("state") if recipe else None))
        rows.append(cells)
    return ["host", "GPU", LIBRARIES_HEADER] + names, rows


def reasons(report: Mapping[str, Any]) -> list[dict[str, Any]]:
    """[{recipe, reason, gpus: [(host, gpu index)]}]: the reasons of the recipes that do not run (refused, failed,
    wrong result; not those a run did not measure), one per recipe
    and reason text, in the order of the recipes' columns, then in the order first seen."""
    grouped, order, found = {}, [], gpu_rows(report)
    for host, row in found:
        for name, recipe in _recipes(row).items():
            if _runs(recipe) or recipe.get("state") == "not_measured" or not recipe.get("reason"):
                continue  # the table's "not measured" says all there is
            key = (name, str(recipe["reason"]))
            if key not in grouped:
                grouped[key] = {"recipe": name, "reason": key[1], "gpus": []}
                order.append(key)
            grouped[key]["gpus"].append((host, row.get("gpu")))
    names = recipe_names(found)
    return [grouped[key] for key in sorted(order, key=lambda key: names.index(key[0]))]


def reason_text(item: Mapping[str, Any]) -> str:
    """"ws-01 GPU 0 MXFP8 (TN): <reason>" for one GPU, "MXFP8 (TN): <reason> (32 GPUs)" for more."""
    if len(item["gpus"]) == 1:
        host, gpu = item["gpus"][0]
        where = "%s GPU %s" % (host, gpu) if gpu is not None else str(host)
        return "%s %s: %s" % (where, item["recipe"], item["reason"])
    return "%s: %s (%d GPUs)" % (item["recipe"], item["reason"], len(item["gpus"]))
