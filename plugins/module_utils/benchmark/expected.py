# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A device figure against what a healthy GPU of its model reaches (hardware/expected_figures.py).

expectation() gives the figure's `expected` ({value, fraction_of_peak, source, basis}: the reference
fraction times the figure's peak, in the figure's unit) and `fraction_of_expected` (value / expected
value). The row's fraction is of the peak the benchmark gives that model (the datasheet figure, else the
one derived from NVML's clocks: the same model gives the same derivation). A figure without a reference
row (another model, size or backend), without a peak or without a value gets None: it is compared with
its peers only. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.expected_figures import reference

NONE = {"expected": None, "fraction_of_expected": None}


def expectation(fig: Mapping[str, Any], model: str | None, profile: str = "quick") -> dict[str, Any]:
    """{expected, fraction_of_expected} of a device figure (figures.figure()'s result) of GPU `model`, measured
    in `profile`."""
    row = reference(model, fig.get("test"), fig.get("size"), fig.get("backend"), profile)
    peak = fig.get("peak")
    if row is None or not peak:
        return dict(NONE)
    expected = dict(row, value=float("%.5g" % (row["fraction_of_peak"] * peak)))
    value = fig.get("value")
    return {"expected": expected,
            "fraction_of_expected": round(value / expected["value"], 4) if value is not None else None}


def with_expectation(figures: Mapping[str, Any], model: str | None, profile: str = "quick") -> dict[str, Any]:
    """The device's figures, each with its expectation added (the dict is changed in place and returned)."""
    for fig in figures.values():
        fig.update(expectation(fig, model, profile))
    return figures
