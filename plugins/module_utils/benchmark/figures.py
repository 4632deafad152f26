# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Turn what a benchmark child measured into figures.

A figure names its test, size, what it counts and its unit, and carries the median rate
(`value`) with min, max, spread and repetitions, the reference `peak` with `peak_source`
(table | derived | null) and `fraction_of_peak`, the correctness check, and a status:
ok | skipped | failed | wrong_result | not_run. A figure whose check failed reports no
value: a wrong kernel cannot post a fast time. The sustained tests' figures carry `power` (the last
5 s against the enforced power limit, benchmark/power.py); p2p figures their pair's `expected`
(benchmark/link_expectation.py). Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.link_expectation import judged
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.power import power_reached
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.stats import (
    rate, slowest_per_rep, summarize)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import size_text, spec_of
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.sustained import sustained_rates
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import peak

SCALE = {"TFLOP/s": 1e12, "GB/s": 1e9, "tokens/s": 1.0, "images/s": 1.0}
NO_PEAK = {"peak": None, "peak_source": None}


def peak_info(name: str, gpu: Mapping[str, Any] | None) -> dict[str, Any]:
    """{peak, peak_source, peak_note} of a test on a GPU (gpu None: CPU mode)."""
    kind = spec_of(name)["peak_kind"]
    if gpu is None:
        return dict(NO_PEAK, peak_note="CPU mode: no peak")
    if kind is None:
        return dict(NO_PEAK, peak_note="no theoretical peak for this test")
    return peak(gpu, kind)


def _sig(value, digits=6):
    return float("%.*g" % (digits, value)) if value is not None else None


def _blank(name, size, peak_fields):
    spec = spec_of(name)
    result = {"test": name, "size": size_text(name, size), "counts": spec["counts"], "unit": spec["unit"],
              "status": None, "value": None, "min": None, "max": None, "spread": None, "reps": None,
              "seconds": None, "fraction_of_peak": None, "check": None, "error": None}
    if spec.get("sustained"):
        result["power"] = None
    result.update(peak_fields)
    return result


def _rates(name, size, raw):
    spec = spec_of(name)
    if name == "compile_speedup":
        eager, compiled = summarize(raw["eager_times_s"]), summarize(raw["times_s"])
        return {"value": eager["median"] / compiled["median"], "min": eager["min"] / compiled["max"],
                "max": eager["max"] / compiled["min"], "spread": compiled["spread"], "reps": compiled["reps"],
                "seconds": {"eager_median": eager["median"], "compiled_median": compiled["median"],
                            "compile": raw["compile_s"]}}
    if "per_rank_times_s" in raw:
        return rate(spec["work"](size, raw["world"]), slowest_per_rep(raw["per_rank_times_s"]), SCALE[spec["unit"]])
    return rate(spec["work"](size, 1), raw["times_s"], SCALE[spec["unit"]])


def _check_error(check, value, unit):
    if "rel_error" in check:
        what = "relative error %s > bound %g against float64" % (
            "non-finite" if check["rel_error"] is None else "%.3g" % check["rel_error"], check["bound"])
    else:
        what = check.get("detail") or "check failed"
    return "result check failed (%s); its rate (%.4g %s) is not reported" % (what, value, unit)


def figure(name: str, size: Mapping[str, Any], raw: Mapping[str, Any] | None, peak_fields: Mapping[str, Any],
           missing_reason: str | None = None) -> dict[str, Any]:
    """One figure from a test's raw child result (None: the child never reported it)."""
    result = _blank(name, size, peak_fields)
    if raw is None:
        result.update(status="not_run", error=missing_reason or "the child did not report this test")
        return result
    if "skipped" in raw or "error" in raw:
        result.update(status="skipped" if "skipped" in raw else "failed", error=raw.get("skipped", raw.get("error")))
        return result
    stats = _rates(name, size, raw)
    result["check"] = raw.get("check")
    for extra in ("inner", "sets", "backend", "peer_access", "telemetry", "telemetry_error"):
        if extra in raw:
            result[extra] = raw[extra]
    if "chunks_s" in raw:  # sustained: the figure's value is the rate of the last window
        result["sustained"] = sustained_rates(raw["chunks_s"], raw["inner"], spec_of(name)["work"](size, 1),
                                              SCALE[result["unit"]])
        stats["value"] = result["sustained"]["last_rate"]
        result["power"] = power_reached(result.get("telemetry"))
    if "world" in raw:
        result["ranks"] = raw["world"]
    result.update(reps=stats["reps"], spread=round(stats["spread"], 4),
                  seconds=dict((key, _sig(value)) for key, value in stats["seconds"].items()))
    if result["check"] is not None and not result["check"]["ok"]:
        result.update(status="wrong_result", error=_check_error(result["check"], stats["value"], result["unit"]))
        return result
    result.update(status="ok", value=_sig(stats["value"]), min=_sig(stats["min"]), max=_sig(stats["max"]))
    if result["peak"]:
        result["fraction_of_peak"] = round(stats["value"] / result["peak"], 4)
    return result


def p2p_figures(size: Mapping[str, Any], raw: Mapping[str, Any] | None, missing_reason: str | None = None,
                expected: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
    """One figure per ordered pair of GPUs, with `src` and `dst`, and with `expected` and
    `fraction_of_expected` from `expected` ({"0->1": link_expectation.pair_expectation()}; None: unknown)."""
    no_peak = peak_info("p2p", {})
    if raw is None or "pairs" not in raw:  # skipped, failed, or never reported
        return [dict(figure("p2p", size, raw, no_peak, missing_reason), src=None, dst=None, expected=None,
                     fraction_of_expected=None)]
    figures = []
    for label, pair in sorted(raw["pairs"].items()):
        src, dst = (int(part) for part in label.split("->"))
        fig = dict(figure("p2p", size, pair, no_peak), src=src, dst=dst)
        fig.update(judged(fig, (expected or {}).get(label)))
        figures.append(fig)
    return figures
