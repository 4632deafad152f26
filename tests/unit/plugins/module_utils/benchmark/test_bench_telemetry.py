from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import telemetry as bench_telemetry
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.telemetry import (
    REASON_BITS, Sampler, decode_reasons, read_sample, summarize)


@pytest.mark.parametrize("bit, name", [
    (0x1, "gpu_idle"), (0x2, "applications_clocks_setting"), (0x4, "sw_power_cap"), (0x8, "hw_slowdown"),
    (0x10, "sync_boost"), (0x20, "sw_thermal_slowdown"), (0x40, "hw_thermal_slowdown"),
    (0x80, "hw_power_brake_slowdown"), (0x100, "display_clock_setting"),
])
def test_every_nvml_reason_bit_decodes_to_its_name(bit, name):
    assert decode_reasons(bit) == [name]


@pytest.mark.parametrize("mask, names", [
    (0, []),
    (None, []),
    (0x4, ["sw_power_cap"]),  # H100 at 700 W under sustained GEMM
    (0x44, ["sw_power_cap", "hw_thermal_slowdown"]),
    (0x1 | 0x100, ["gpu_idle", "display_clock_setting"]),
    (0x1FF, [name for bit, name in REASON_BITS]),
    (0x4 | 0x400, ["sw_power_cap", "unknown_0x400"]),
    (0x800 | 0x200, ["unknown_0x200", "unknown_0x800"]),
])
def test_masks_decode_in_bit_order_and_unknown_bits_are_named(mask, names):
    assert decode_reasons(mask) == names


def sample(t, sm, power, reasons, mem=2619, temp=60):
    return {"t": t, "sm_clock_mhz": sm, "mem_clock_mhz": mem, "power_w": power, "temperature_c": temp,
            "reasons": reasons}


def test_summary_has_min_median_max_and_every_reason_seen():
    samples = [sample(0.0, 1980, 420.5, 0x0), sample(0.1, 1755, 690.0, 0x4), sample(0.2, 1365, 699.8, 0x4),
               sample(0.3, 1350, 700.1, 0x4 | 0x40)]
    summary = summarize(samples)
    assert summary["samples"] == 4
    assert summary["sm_clock_mhz"] == {"min": 1350, "median": 1560.0, "max": 1980}
    assert summary["power_w"] == {"min": 420.5, "median": 694.9, "max": 700.1}
    assert summary["mem_clock_mhz"] == {"min": 2619, "median": 2619, "max": 2619}
    assert summary["reasons_mask"] == 0x44
    assert summary["reasons"] == ["sw_power_cap", "hw_thermal_slowdown"]
    assert "tail" not in summary


def test_tail_covers_only_the_last_seconds():
    samples = [sample(float(t), 1980 if t < 20 else 1365, 700.0, 0x0 if t < 20 else 0x4) for t in range(26)]
    tail = summarize(samples, tail_s=5)["tail"]
    assert tail["samples"] == 6 and tail["seconds"] == 5
    assert tail["sm_clock_mhz"] == {"min": 1365, "median": 1365, "max": 1365}
    assert tail["reasons"] == ["sw_power_cap"]


def test_quantities_a_gpu_does_not_report_are_none():
    summary = summarize([sample(0.0, None, None, None, mem=None, temp=None)])
    assert summary["sm_clock_mhz"] is None and summary["power_w"] is None
    assert summary["reasons"] == [] and summary["reasons_mask"] == 0


class FakeNvml:
    """Read-only NVML calls for one H100 under load; anything that would set a value is absent."""
    NVML_CLOCK_SM = 1
    NVML_CLOCK_MEM = 2

    def __init__(self, throttle_call="nvmlDeviceGetCurrentClocksEventReasons"):
        self.calls = []
        setattr(self, throttle_call, lambda handle: 0x4)

    def nvmlDeviceGetClockInfo(self, handle, clock):  # noqa: N802 (pynvml's names)
        self.calls.append(("clock", clock))
        return {1: 1365, 2: 2619}[clock]

    def nvmlDeviceGetPowerUsage(self, handle):  # noqa: N802
        return 699800

    def nvmlDeviceGetTemperature(self, handle, sensor):  # noqa: N802
        return 71

    def nvmlDeviceGetCurrPcieLinkGeneration(self, handle):  # noqa: N802
        return 5

    def nvmlDeviceGetCurrPcieLinkWidth(self, handle):  # noqa: N802
        return 16


@pytest.mark.parametrize("call", ["nvmlDeviceGetCurrentClocksEventReasons",
                                  "nvmlDeviceGetCurrentClocksThrottleReasons"])
def test_read_sample_uses_the_new_or_the_old_reasons_call(call):
    got = read_sample(FakeNvml(call), "handle")
    assert got["sm_clock_mhz"] == 1365 and got["mem_clock_mhz"] == 2619
    assert got["power_w"] == 699.8 and got["temperature_c"] == 71 and got["reasons"] == 0x4
    assert (got["pcie_gen"], got["pcie_width"]) == (5, 16)


def test_the_pcie_link_under_load_is_summarised():
    """The link idles at gen 1 and trains up to gen 5 once the test runs: the health gate reads the max."""
    samples = [dict(sample(t / 10.0, 1980, 600.0, 0x0), pcie_gen=gen, pcie_width=16)
               for t, gen in enumerate([1, 1, 5, 5, 5])]
    summary = summarize(samples)
    assert summary["pcie_gen"] == {"min": 1, "median": 5, "max": 5}
    assert summary["pcie_width"] == {"min": 16, "median": 16, "max": 16}
    # a GPU without the calls (an old nvidia-ml-py): None, as any quantity it does not report
    assert summarize([sample(0.0, 1980, 600.0, 0x0)])["pcie_gen"] is None


def test_sampler_thread_collects_until_stopped():
    sampler = Sampler(FakeNvml(), "handle", interval_s=0.005)
    sampler.start()
    bench_telemetry.time.sleep(0.05)
    samples = sampler.stop()
    assert len(samples) >= 3
    assert summarize(samples)["reasons"] == ["sw_power_cap"]
    assert not sampler._thread.is_alive()
