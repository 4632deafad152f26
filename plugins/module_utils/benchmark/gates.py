# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gates: lower bounds on benchmark figures, e.g. {gemm_bf16: {min_fraction_of_peak: 0.6}}.

Bounds: `min_fraction_of_peak` (the theoretical peak), `min_fraction_of_expected` (what a healthy GPU of
the model reaches, benchmark/expected.py: a figure without a reference fails it, naming why), the unit's
own bound (`min_tflops`, `min_gbps`, ...), `min_sustained_ratio` and `min_power_fraction` (the power the
sustained test reached / the enforced power limit) on sustained tests, `forbid_clock_reasons`.

Each GPU is judged as itself: `gpu_gates` is a list of {model | index | line, gates}; a device takes the
gates of the first entry that matches it (its exact model name, its index, its product line), else the
common `gates`. Figures between GPUs (p2p, allreduce) take the common gates.

validate() refuses, before anything runs, what could never be evaluated: unknown test or
bound names, bounds that do not fit the test's unit, gates on tests that will not run,
a fraction of peak in CPU mode, values that are not non-negative numbers, fractions above 1. evaluate()
checks every figure of a gated test (each GPU, each GPU pair) and reports each failure
with host, GPU index and name, measured value, bound and peak; a figure that is missing
(test failed, wrong result, no peak known) fails its gate. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import TESTS, spec_of
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import REASON_NAMES
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import PRODUCT_LINES

FRACTION = "min_fraction_of_peak"
EXPECTED = "min_fraction_of_expected"
POWER = "min_power_fraction"
RATIO = "min_sustained_ratio"
FORBID = "forbid_clock_reasons"
UNIT_BOUNDS = {"TFLOP/s": "min_tflops", "GB/s": "min_gbps", "tokens/s": "min_tokens_per_s",
               "images/s": "min_images_per_s", "x": "min_speedup"}


def allowed_bounds(name: str, device: str) -> list[str]:
    """Bound names a test accepts on a device."""
    spec = spec_of(name)
    bounds = [UNIT_BOUNDS[spec["unit"]]]
    if spec["peak_kind"] and device == "cuda":
        bounds.insert(0, FRACTION)
    if device == "cuda" and (spec["peak_kind"] or spec["scope"] == "multi"):
        bounds.insert(1 if spec["peak_kind"] else 0, EXPECTED)
    if spec["sustained"]:
        bounds.append(RATIO)
        if device == "cuda":
            bounds.append(POWER)
    if device == "cuda" and spec["scope"] == "device":
        bounds.append(FORBID)
    return bounds


def _bound_errors(name, bounds, device):
    errors = []
    allowed = allowed_bounds(name, device)
    for bound, limit in sorted(bounds.items()):
        if bound in (FRACTION, EXPECTED) and device == "cpu" and (spec_of(name)["peak_kind"] or bound == EXPECTED):
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no %s"
                          % (name, bound, "peak" if bound == FRACTION else "expected figure"))
        elif bound == POWER and device == "cpu":
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no GPU telemetry"
                          % (name, bound))
        elif bound == FORBID and device == "cpu":
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no GPU telemetry"
                          % (name, bound))
        elif bound == FORBID and bound in allowed:
            errors.extend(_reason_errors(name, limit))
        elif bound not in allowed:
            errors.append("unknown gate %r for %s; gates for %s: %s" % (bound, name, name, ", ".join(allowed)))
        elif isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit < 0:
            errors.append("gate %s.%s must be a non-negative number, got %r" % (name, bound, limit))
        elif bound in _OF and limit > 1:
            errors.append("gate %s.%s is a fraction from 0 to 1 (0.7: 70 %% of %s), got %r: no GPU could pass it"
                          % (name, bound, _OF[bound], limit))
    return errors


_OF = {FRACTION: "the peak", RATIO: "the short run's figure", POWER: "the enforced power limit",
       EXPECTED: "what a healthy GPU of the model reaches"}


def _reason_errors(name, reasons):
    if not isinstance(reasons, list) or not reasons:
        return ["gate %s.%s must be a non-empty list of reason names (%s)" % (name, FORBID, ", ".join(REASON_NAMES))]
    unknown = [reason for reason in reasons if reason not in REASON_NAMES]
    if unknown:
        return ["gate %s.%s names unknown reason(s) %s; reasons: %s"
                % (name, FORBID, ", ".join(str(reason) for reason in unknown), ", ".join(REASON_NAMES))]
    return []


def validate(gates: object, not_run: Mapping[str, str], device: str) -> list[str]:
    """Errors for gates that cannot be evaluated. not_run: {test: why it will not run}."""
    if not isinstance(gates, dict):
        return ["gates must be a dict: test name -> {bound name: number}"]
    errors = []
    for name, bounds in sorted(gates.items()):
        if name not in TESTS:
            errors.append("gates name an unknown test %r; known tests: %s" % (name, ", ".join(TESTS)))
        elif name in not_run:
            errors.append("gate on %s, a test that does not run: %s" % (name, not_run[name]))
        elif not isinstance(bounds, dict) or not bounds:
            errors.append("gates.%s must be a non-empty dict of bounds (%s)"
                          % (name, ", ".join(allowed_bounds(name, device))))
        else:
            errors.extend(_bound_errors(name, bounds, device))
    return errors


MATCH_KEYS = ("model", "index", "line")


def _match_errors(where, entry):
    errors = []
    if not any(key in entry for key in MATCH_KEYS):
        errors.append("%s names no GPU: give model (the exact name), index or line" % where)
    if "model" in entry and (not isinstance(entry["model"], str) or not entry["model"].strip()):
        errors.append("%s.model must be a GPU model name, got %r" % (where, entry["model"]))
    if "index" in entry and (isinstance(entry["index"], bool) or not isinstance(entry["index"], int)
                             or entry["index"] < 0):
        errors.append("%s.index must be a GPU index (0, 1, ...), got %r" % (where, entry["index"]))
    if "line" in entry and entry["line"] not in PRODUCT_LINES:
        errors.append("%s.line must be one of %s, got %r" % (where, ", ".join(PRODUCT_LINES), entry["line"]))
    return errors


def entry_errors(position: int, entry: object) -> list[str]:
    """What is wrong with gpu_gates[position] besides its gates' bounds: its keys, what it matches, gates on
    figures between GPUs."""
    where = "gpu_gates[%d]" % position
    if not isinstance(entry, dict):
        return ["%s must be a dict with model, index or line, and gates" % where]
    errors = []
    unknown = sorted(set(entry) - set(MATCH_KEYS + ("gates",)))
    if unknown:
        errors.append("%s has unknown key(s) %s; keys: %s, gates" % (where, ", ".join(unknown), ", ".join(MATCH_KEYS)))
    errors.extend(_match_errors(where, entry))
    gates = entry.get("gates")
    if not isinstance(gates, dict):
        errors.append("%s.gates must be a dict: test name -> {bound name: number}, got %r" % (where, gates))
    multi = sorted(name for name in gates if name in TESTS and spec_of(name)["scope"] == "multi") \
        if isinstance(gates, dict) else []
    if multi:
        errors.append("%s gates %s, figures between GPUs: give them in the common gates" % (where, ", ".join(multi)))
    return errors


def validate_gpu_gates(gpu_gates: object, not_run: Mapping[str, str], device: str) -> list[str]:
    """Errors for per-GPU gates: a list of {model | index | line, gates}, each gates as validate() wants them,
    on tests that judge one GPU (the figures between GPUs take the common gates)."""
    if not gpu_gates:
        return []
    if not isinstance(gpu_gates, list):
        return ["gpu_gates must be a list of {model | index | line, gates}"]
    if device == "cpu":
        return ["gpu_gates apply to device cuda only"]
    errors = []
    for position, entry in enumerate(gpu_gates):
        errors.extend(entry_errors(position, entry))
        if isinstance(entry, dict) and isinstance(entry.get("gates"), dict):
            errors.extend("gpu_gates[%d]: %s" % (position, error) for error in validate(entry["gates"], not_run, device))
    return errors


def matches(entry: Mapping[str, Any], device: Mapping[str, Any]) -> bool:
    """Whether a gpu_gates entry names this device (every key it gives agrees)."""
    return (("model" not in entry or entry["model"].strip() == (device.get("name") or "").strip())
            and ("index" not in entry or entry["index"] == device.get("index"))
            and ("line" not in entry or entry["line"] == device.get("product_line")))


def gates_for(device: Mapping[str, Any], gates: Mapping[str, Any] | None,
              gpu_gates: Sequence[Mapping[str, Any]] | None = None) -> Mapping[str, Any]:
    """The gates a device is judged by: the first matching gpu_gates entry's, else the common gates."""
    for entry in gpu_gates or []:
        if matches(entry, device):
            return entry.get("gates") or {}
    return gates or {}


def located(document: Mapping[str, Any]) -> Iterator[tuple[Any, Any, dict[str, Any], dict[str, Any] | None]]:
    """(gpu_index, gpu_name, figure, device entry or None) for every figure of a result document."""
    names = dict((device["index"], device["name"]) for device in document["devices"])
    for device in document["devices"]:
        for fig in device["figures"].values():
            yield device["index"], device["name"], fig, device
    multi = document.get("multi_gpu")
    for test, figures in sorted(((multi or {}).get("figures") or {}).items()):
        for fig in figures if isinstance(figures, list) else [figures]:
            if fig.get("src") is not None:
                yield ("%d->%d" % (fig["src"], fig["dst"]),
                       "%s -> %s" % (names.get(fig["src"]), names.get(fig["dst"])), fig, None)
            elif multi["gpus"]:
                yield list(multi["gpus"]), [names.get(index) for index in multi["gpus"]], fig, None
            else:  # CPU mode: gloo ranks
                yield None, "cpu", fig, None


def _reason(fig, bound, measured, limit):
    if measured is not None:
        return "measured %.4g < bound %g" % (measured, limit)
    if bound == RATIO and fig["status"] == "ok":
        return "no sustained ratio measured"
    if fig["status"] != "ok":
        return "no figure: %s (%s)" % (fig["status"], fig["error"])
    if bound == EXPECTED:
        return ("no expected figure for this model, size and backend (see docs/modules/torch_benchmark.md, "
                "Expected figures): gate it on %s instead" % FRACTION)
    if bound == POWER:
        return "no power reading against the enforced power limit (NVML)"
    return "no peak known: %s" % fig.get("peak_note")


def _clock_text(telemetry):
    clock = (telemetry or {}).get("sm_clock_mhz")
    if not clock:
        return "SM clock unknown"
    return "SM clock %s-%s MHz (median %s)" % (clock["min"], clock["max"], clock["median"])


def _forbidden(fig, forbid):
    """(reasons seen that are forbidden, reason text) of a figure; a figure without telemetry fails."""
    telemetry = fig.get("telemetry")
    if not telemetry:
        return None, "no GPU telemetry: %s" % (fig.get("telemetry_error") or fig.get("error") or "not sampled")
    seen = [reason for reason in telemetry["reasons"] if reason in forbid]
    if not seen:
        return [], None
    return seen, "clock-event reason(s) %s seen, %s, %s %s %s" % (
        ", ".join(seen), _clock_text(telemetry), fig["test"], fig["value"], fig["unit"])


def _measured(fig, bound):
    if bound == FRACTION:
        return fig["fraction_of_peak"]
    if bound == RATIO:
        return (fig.get("sustained") or {}).get("ratio")
    if bound == EXPECTED:
        return fig.get("fraction_of_expected")
    if bound == POWER:
        return (fig.get("power") or {}).get("fraction_of_limit")
    return fig["value"]


def evaluate(gates: Mapping[str, Any] | None, document: Mapping[str, Any], host: str,
             gpu_gates: Sequence[Mapping[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Every failed gate, one entry per figure and bound; each device judged by gates_for()."""
    failures = []
    for gpu_index, gpu_name, fig, device in located(document):
        judged = gates_for(device, gates, gpu_gates) if device is not None else gates
        for bound, limit in sorted((judged.get(fig["test"]) or {}).items()):
            reason = None
            if bound == FORBID:
                measured, reason = _forbidden(fig, limit)
                if measured == []:
                    continue
            else:
                measured = _measured(fig, bound)
                if measured is not None and measured >= limit:
                    continue
            failures.append({
                "host": host, "test": fig["test"], "gpu_index": gpu_index, "gpu_name": gpu_name, "gate": bound,
                "bound": limit, "measured": measured, "value": fig["value"], "unit": fig["unit"],
                "peak": fig["peak"], "peak_source": fig["peak_source"], "expected": fig.get("expected"),
                "reason": reason or _reason(fig, bound, measured, limit),
            })
    return failures


def _line(failure):
    where = "GPU %s (%s)" % (failure["gpu_index"], failure["gpu_name"])
    if failure["gpu_index"] is None:
        where = failure["gpu_name"]
    value = "" if failure["value"] is None else ", %s %s" % (failure["value"], failure["unit"])
    peak = "" if failure["peak"] is None else ", peak %s %s (%s)" % (failure["peak"], failure["unit"],
                                                                     failure["peak_source"])
    expected = failure.get("expected")
    if failure["gate"] == EXPECTED and expected:
        peak = ", expected %s %s (%s)" % (expected["value"], failure["unit"], expected["source"])
    if failure["gate"] == FORBID:
        return "%s on %s: %s %s: %s" % (failure["test"], where, failure["gate"], ",".join(failure["bound"]),
                                        failure["reason"])
    return "%s on %s: %s %s: %s%s%s" % (failure["test"], where, failure["gate"], failure["bound"],
                                        failure["reason"], value, peak)


def failure_message(failures: Sequence[Mapping[str, Any]], host: str) -> str:
    """One message naming every failed gate."""
    return "%d benchmark gate(s) failed on %s: %s" % (len(failures), host, "; ".join(_line(f) for f in failures))
