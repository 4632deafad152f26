# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""GPU telemetry while a benchmark test runs: clocks, power, temperature, clock-event reasons, PCIe link.

A Sampler thread in the benchmark child polls NVML (read-only queries; no GPU setting is
changed) every `interval_s` while a test runs. summarize() turns the samples into
min/median/max per quantity and the clock-event reasons seen, decoded from NVML's bitmask
(nvmlDeviceGetCurrentClocksEventReasons, formerly ...ClocksThrottleReasons). The PCIe link's
generation and width are read under load here because a GPU slows its link down at idle (the
verify role's health gate judges the generation from these readings). read_power_limits() gives the
limits the sustained tests' power is set against (benchmark/power.py). Runs inside
the child (pynvml is passed in) and in the parent (the pure functions); Python 3.9, no
Ansible import.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

# NVML's nvmlClocksEventReason* bits (nvml.h), in bit order.
REASON_BITS = (
    (0x1, "gpu_idle"),
    (0x2, "applications_clocks_setting"),
    (0x4, "sw_power_cap"),
    (0x8, "hw_slowdown"),
    (0x10, "sync_boost"),
    (0x20, "sw_thermal_slowdown"),
    (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"),
    (0x100, "display_clock_setting"),
)
REASON_NAMES = tuple(name for bit, name in REASON_BITS)
QUANTITIES = ("sm_clock_mhz", "mem_clock_mhz", "power_w", "temperature_c", "pcie_gen", "pcie_width")
INTERVAL_S = 0.1


def decode_reasons(mask: int | None) -> list[str]:
    """Names of the bits set in an NVML clock-event reasons mask; unknown bits as "unknown_0x..."."""
    if mask is None:
        return []
    names = [name for bit, name in REASON_BITS if mask & bit]
    known = 0
    for bit, dummy in REASON_BITS:
        known |= bit
    rest = mask & ~known
    bit = 1
    while rest:
        if rest & bit:
            names.append("unknown_0x%x" % bit)
            rest &= ~bit
        bit <<= 1
    return names


def median(values: Iterable[float]) -> float:
    """Median of a non-empty sequence of numbers: the middle value of an odd count as it is (an SM clock of 1560
    MHz stays 1560 in a benchmark gate's message), the mean of the two middle values of an even one; ValueError for an empty
    one. The benchmark's one median: the child's telemetry here, the parent's timings and the fleet report's peers
    through benchmark/stats.py."""
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of no values")
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2.0


def _stats(values):
    values = [value for value in values if value is not None]
    if not values:
        return None
    return {"min": min(values), "median": round(median(values), 1), "max": max(values)}


def summarize(samples: Sequence[Mapping[str, Any]], tail_s: float | None = None) -> dict[str, Any]:
    """{samples, sm_clock_mhz, mem_clock_mhz, power_w, temperature_c, pcie_gen, pcie_width ({min, median, max}
    or None),
    reasons (names seen in any sample, bit order), reasons_mask (OR of all masks)}; with tail_s
    also `tail`: the same over the samples of the last tail_s seconds."""
    summary = {"samples": len(samples)}
    for quantity in QUANTITIES:
        summary[quantity] = _stats([sample.get(quantity) for sample in samples])
    mask = 0
    for sample in samples:
        mask |= sample.get("reasons") or 0
    summary["reasons_mask"] = mask
    summary["reasons"] = decode_reasons(mask)
    if tail_s is not None and samples:
        end = samples[-1]["t"]
        summary["tail"] = dict(summarize([s for s in samples if s["t"] >= end - tail_s]), seconds=tail_s)
    return summary


def _read(nvml, handle, func, *args):
    try:
        return getattr(nvml, func)(handle, *args)
    except Exception:  # NVMLError (not supported on this GPU), or an old nvidia-ml-py without the call
        return None


def read_sample(nvml: Any, handle: object) -> dict[str, Any]:
    """One sample: {t, sm_clock_mhz, mem_clock_mhz, power_w, temperature_c, pcie_gen, pcie_width, reasons}."""
    power = _read(nvml, handle, "nvmlDeviceGetPowerUsage")
    reasons = _read(nvml, handle, "nvmlDeviceGetCurrentClocksEventReasons")
    if reasons is None:
        reasons = _read(nvml, handle, "nvmlDeviceGetCurrentClocksThrottleReasons")
    return {"t": time.monotonic(),
            "sm_clock_mhz": _read(nvml, handle, "nvmlDeviceGetClockInfo", nvml.NVML_CLOCK_SM),
            "mem_clock_mhz": _read(nvml, handle, "nvmlDeviceGetClockInfo", nvml.NVML_CLOCK_MEM),
            "power_w": round(power / 1000.0, 1) if power is not None else None,
            "temperature_c": _read(nvml, handle, "nvmlDeviceGetTemperature", 0),  # NVML_TEMPERATURE_GPU
            "pcie_gen": _read(nvml, handle, "nvmlDeviceGetCurrPcieLinkGeneration"),
            "pcie_width": _read(nvml, handle, "nvmlDeviceGetCurrPcieLinkWidth"),
            "reasons": reasons}


def read_power_limits(nvml: Any, handle: object) -> dict[str, Any]:
    """{enforced_power_limit_w, power_limit_w (the management limit)} in W, None where NVML cannot tell."""
    enforced = _read(nvml, handle, "nvmlDeviceGetEnforcedPowerLimit")
    management = _read(nvml, handle, "nvmlDeviceGetPowerManagementLimit")
    return {"enforced_power_limit_w": round(enforced / 1000.0, 1) if enforced is not None else None,
            "power_limit_w": round(management / 1000.0, 1) if management is not None else None}


class Sampler:
    """Samples one GPU in a background thread between start() and stop()."""

    def __init__(self, nvml, handle, interval_s=INTERVAL_S):
        self.nvml = nvml
        self.handle = handle
        self.interval_s = interval_s
        self.samples = []
        self._stop = threading.Event()
        self._thread = None

    def _loop(self):
        while True:
            self.samples.append(read_sample(self.nvml, self.handle))
            if self._stop.wait(self.interval_s):
                return

    def start(self) -> None:
        self.samples = []
        self._stop.clear()
        self._thread = threading.Thread(target=self._loop, name="nvml-sampler")
        self._thread.daemon = True
        self._thread.start()

    def stop(self) -> list[dict[str, Any]]:
        """Stop sampling (one last sample is taken) and return the samples."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self.samples.append(read_sample(self.nvml, self.handle))
        return self.samples


def open_sampler(uuid: str, interval_s: float = INTERVAL_S) -> tuple[Sampler | None, str | None]:
    """(Sampler or None, error text or None) for the GPU with this UUID; NVML stays initialised."""
    try:
        import pynvml
    except ImportError:
        return None, "nvidia-ml-py is not installed"
    try:
        pynvml.nvmlInit()
        return Sampler(pynvml, pynvml.nvmlDeviceGetHandleByUUID(uuid), interval_s), None
    except Exception as exc:
        return None, "%s: %s" % (type(exc).__name__, exc)
