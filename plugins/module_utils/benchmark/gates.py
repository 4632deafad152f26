# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Gates: lower bounds on benchmark figures, e.g. {gemm_bf16: {min_fraction_of_peak: 0.6}}.

validate() refuses, before anything runs, what could never be evaluated: unknown test or
bound names, bounds that do not fit the test's unit, gates on tests that will not run,
a fraction of peak in CPU mode, values that are not non-negative numbers. evaluate()
checks every figure of a gated test (each GPU, each GPU pair) and reports each failure
with host, GPU index and name, measured value, bound and peak; a figure that is missing
(test failed, wrong result, no peak known) fails its gate. Pure functions, no Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import TESTS, spec_of

FRACTION = "min_fraction_of_peak"
UNIT_BOUNDS = {"TFLOP/s": "min_tflops", "GB/s": "min_gbps", "tokens/s": "min_tokens_per_s",
               "images/s": "min_images_per_s", "x": "min_speedup"}


def allowed_bounds(name, device):
    """Bound names a test accepts on a device."""
    spec = spec_of(name)
    bounds = [UNIT_BOUNDS[spec["unit"]]]
    if spec["peak_kind"] and device == "cuda":
        bounds.insert(0, FRACTION)
    return bounds


def _bound_errors(name, bounds, device):
    errors = []
    allowed = allowed_bounds(name, device)
    for bound, limit in sorted(bounds.items()):
        if bound == FRACTION and device == "cpu" and spec_of(name)["peak_kind"]:
            errors.append("gate %s.%s cannot be evaluated with device cpu: CPU mode has no peak" % (name, bound))
        elif bound not in allowed:
            errors.append("unknown gate %r for %s; gates for %s: %s" % (bound, name, name, ", ".join(allowed)))
        elif isinstance(limit, bool) or not isinstance(limit, (int, float)) or limit < 0:
            errors.append("gate %s.%s must be a non-negative number, got %r" % (name, bound, limit))
    return errors


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
    if fig["status"] != "ok":
        return "no figure: %s (%s)" % (fig["status"], fig["error"])
    return "no peak known: %s" % fig.get("peak_note")


def evaluate(gates, document, host):
    """Every failed gate, one entry per figure and bound."""
    failures = []
    for gpu_index, gpu_name, fig in located(document):
        for bound, limit in sorted((gates.get(fig["test"]) or {}).items()):
            measured = fig["fraction_of_peak"] if bound == FRACTION else fig["value"]
            if measured is not None and measured >= limit:
                continue
            failures.append({
                "host": host, "test": fig["test"], "gpu_index": gpu_index, "gpu_name": gpu_name, "gate": bound,
                "bound": limit, "measured": measured, "value": fig["value"], "unit": fig["unit"],
                "peak": fig["peak"], "peak_source": fig["peak_source"], "reason": _reason(fig, bound, measured, limit),
            })
    return failures


def _line(failure):
    where = "GPU %s (%s)" % (failure["gpu_index"], failure["gpu_name"])
    if failure["gpu_index"] is None:
        where = failure["gpu_name"]
    value = "" if failure["value"] is None else ", %s %s" % (failure["value"], failure["unit"])
    peak = "" if failure["peak"] is None else ", peak %s %s (%s)" % (failure["peak"], failure["unit"],
                                                                     failure["peak_source"])
    return "%s on %s: %s %s: %s%s%s" % (failure["test"], where, failure["gate"], failure["bound"],
                                        failure["reason"], value, peak)


def failure_message(failures, host):
    """One message naming every failed gate."""
    return "%d benchmark gate(s) failed on %s: %s" % (len(failures), host, "; ".join(_line(f) for f in failures))
