# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The power a sustained load reached against the GPU's enforced power limit.

DCGM's targeted-power test judges a GPU by whether it can draw its power limit under load: a card that
stays far below it while fully loaded is held back (a power brake, a bad supply or cable, a slowdown). The
sustained tests keep a GEMM busy long enough for power to settle, and their telemetry's `tail` holds the
last 5 seconds alone; power_reached() sets its median and maximum against the limit NVML enforces
(nvmlDeviceGetEnforcedPowerLimit: the lowest of the management limit and any other cap), else the
management limit. Measured on an H200 (700 W): a 10 s bf16 GEMM drew a median of 692 W, 0.99 of it.
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def power_limit(telemetry: Mapping[str, Any] | None,
                fallback_w: float | None = None) -> tuple[float | None, str | None]:
    """(limit in W, which limit) from a figure's telemetry: the enforced limit, else the management limit,
    else `fallback_w` (the probe's NVML facts); (None, None) when none is known."""
    telemetry = telemetry or {}
    for key, which in (("enforced_power_limit_w", "enforced"), ("power_limit_w", "management")):
        value = telemetry.get(key)
        if value:
            return float(value), which
    if fallback_w:
        return float(fallback_w), "management"
    return None, None


def power_reached(telemetry: Mapping[str, Any] | None, fallback_limit_w: float | None = None) -> dict[str, Any] | None:
    """{median_w, max_w (the telemetry's last 5 s), limit_w, limit (enforced | management), fraction_of_limit
    (median_w / limit_w, 4 digits)}, or None when the tail's power or the limit is unknown."""
    tail = (telemetry or {}).get("tail") or {}
    power = tail.get("power_w") or {}
    limit, which = power_limit(telemetry, fallback_limit_w)
    if power.get("median") is None or not limit:
        return None
    return {"median_w": power["median"], "max_w": power.get("max"), "limit_w": limit, "limit": which,
            "fraction_of_limit": round(power["median"] / limit, 4)}
