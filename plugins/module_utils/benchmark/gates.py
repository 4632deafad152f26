# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gates: lower bounds on benchmark figures, e.g. {gemm_bf16: {min_fraction_of_peak: 0.6}}.

validate() refuses, before anything runs, what could never be evaluated: unknown test or
bound names, bounds that do not fit the test's unit, gates on tests that will not run,
a fraction of peak in CPU mode, values that are not non-negative numbers, fractions above 1. evaluate()
checks every figure of a gated test (each GPU, each GPU pair) and reports each failure
with host, GPU index and name, measured value, bound and peak; a figure that is missing
(test failed, wrong result, no peak known) fails its gate. Pure functions, no Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import TESTS, spec_of
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import REASON_NAMES

FRACTION = "min_fraction_of_peak"
RATIO = "min_sustained_ratio"
FORBID = "forbid_clock_reasons"
UNIT_BOUNDS = {"TFLOP/s": "min_tflops", "GB/s": "min_gbps", "tokens/s": "min_tokens_per_s",
               "images/s": "min_images_per_s", "x": "min_speedup"}


def allowed_bounds(name, device):
    """Bound names a test accepts on a device."""
    spec = spec_of(name)
    bounds = [UNIT_BOUNDS[spec["unit"]]]
    if spec["peak_kind"] and device == "cuda":
        bounds.insert(0, FRACTION)
    if spec["sustained"]:
        bounds.append(RATIO)
    if device == "cuda" and spec["scope"] == "device":
        bounds.append(FORBID)
    return bounds


def _bound_errors(name, bounds, device):
    errors = []
    allowed = allowed_bounds(name, device)
    for bound, limit in sorted(bounds.items()):
        if bound == FRACTION and device == "cpu" and spec_of(name)["peak_kind"]:
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no peak" % (name, bound))
        elif bound == FORBID and device == "cpu":
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no GPU telemetry"
                          % (name, bound))
        elif bound == FORBID and bound in allowed:
            errors.extend(_reason_errors(name, limit))
        elif bound not in allowed:
            errors.append("unknown gate %r for %s; gates for %s: %s" % (bound, name, name, ", ".join(allowed)))
        elif isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit < 0:
            errors.append("gate %s.%s must be a non-negative number, got %r" % (name, bound, limit))
        elif bound in (FRACTION, RATIO) and limit > 1:
            errors.append("gate %s.%s is a fraction from 0 to 1 (0.7: 70 %% of %s), got %r: no GPU could pass it"
                          % (name, bound, "the peak" if bound == FRACTION else "the short run's figure", limit))
    return errors


def _reason_errors(name, reasons):
    if not isinstance(reasons, list) or not reasons:
        return ["gate %s.%s must be a non-empty list of reason names (%s)" % (name, FORBID, ", ".join(REASON_NAMES))]
    unknown = [reason for reason in reasons if reason not in REASON_NAMES]
    if unknown:
        return ["gate %s.%s names unknown reason(s) %s; reasons: %s"
                % (name, FORBID, ", ".join(str(reason) for reason in unknown), ", ".join(REASON_NAMES))]
    return []


def validate(gates, not_run, device):
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


def located(document):
    """(gpu_index, gpu_name, figure) for every figure of a result document."""
    names = dict((device["index"], device["name"]) for device in document["devices"])
    for device in document["devices"]:
        for fig in device["figures"].values():
            yield device["index"], device["name"], fig
    multi = document.get("multi_gpu")
    for test, figures in sorted(((multi or {}).get("figures") or {}).items()):
        for fig in figures if isinstance(figures, list) else [figures]:
            if fig.get("src") is not None:
                yield ("%d->%d" % (fig["src"], fig["dst"]),
                       "%s -> %s" % (names.get(fig["src"]), names.get(fig["dst"])), fig)
            elif multi["gpus"]:
                yield list(multi["gpus"]), [names.get(index) for index in multi["gpus"]], fig
            else:  # CPU mode: gloo ranks
                yield None, "cpu", fig


def _reason(fig, bound, measured, limit):
    if measured is not None:
        return "measured %.4g < bound %g" % (measured, limit)
    if bound == RATIO and fig["status"] == "ok":
        return "no sustained ratio measured"
    if fig["status"] != "ok":
        return "no figure: %s (%s)" % (fig["status"], fig["error"])
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
    return fig["value"]


def evaluate(gates, document, host):
    """Every failed gate, one entry per figure and bound."""
    failures = []
    for gpu_index, gpu_name, fig in located(document):
        for bound, limit in sorted((gates.get(fig["test"]) or {}).items()):
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
                "peak": fig["peak"], "peak_source": fig["peak_source"],
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
    if failure["gate"] == FORBID:
        return "%s on %s: %s %s: %s" % (failure["test"], where, failure["gate"], ",".join(failure["bound"]),
                                        failure["reason"])
    return "%s on %s: %s %s: %s%s%s" % (failure["test"], where, failure["gate"], failure["bound"],
                                        failure["reason"], value, peak)


def failure_message(failures, host):
    """One message naming every failed gate."""
    return "%d benchmark gate(s) failed on %s: %s" % (len(failures), host, "; ".join(_line(f) for f in failures))
