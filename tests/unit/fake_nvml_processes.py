"""fake_pynvml's GPUs with the compute processes and utilisation NVML gives (gpu_processes' calls).

H200 is what a 2x H200 machine answered (driver 580.159.04) while another process ran a bf16 matmul loop on GPU
0: nvmlDeviceGetComputeRunningProcesses listed pid 1099 with 874 MiB, nvmlDeviceGetUtilizationRates(h).gpu was
100 on GPU 0 and 0 on GPU 1. nvidia-ml-py gives usedGpuMemory in bytes, None where NVML has no value.
"""
from __future__ import annotations

import types

import fake_pynvml as fake

H200 = dict(fake.H100, name="NVIDIA H200", uuid="GPU-5d1e9a2c-7b3f-4e8a-9c6d-2f1a0b3c4d5e", bus_id="00000000:00:06.0",
            pci_device_id=0x233510DE, memory=143771 * fake.MIB, processes=[], utilization=0)
H200_B = dict(H200, uuid="GPU-8e4f2a1b-3c5d-4f6e-8a9b-0c1d2e3f4a5b", bus_id="00000000:00:07.0")


def process(pid, mib):
    """One entry as nvidia-ml-py returns it (usedGpuMemory in bytes; None stays None)."""
    return types.SimpleNamespace(pid=pid, usedGpuMemory=None if mib is None else mib * fake.MIB,
                                 gpuInstanceId=0xFFFFFFFF, computeInstanceId=0xFFFFFFFF)


class ProcessNVML(fake.FakeNVML):
    """FakeNVML answering gpu_processes' calls from each GPU's `processes` [(pid, MiB)] and `utilization`.

    `calls`: which list call nvidia-ml-py offers ("plain", "v3", "v2"), as releases differ; `readings` counts the
    list calls, and `after` ({count: {gpu index: processes}}) changes a GPU's processes from that call on."""

    def __init__(self, gpus=(), calls=("plain", "v3", "v2"), after=None, **kwargs):
        super().__init__(gpus=gpus, **kwargs)
        self.readings, self._after = 0, dict(after or {})
        for call in calls:
            suffix = "" if call == "plain" else "_" + call
            setattr(self, "nvmlDeviceGetComputeRunningProcesses" + suffix, self._list)

    def _list(self, h):
        index = self._gpus.index(h)
        if index == 0:
            self.readings += 1
        entries = h["processes"]
        for count, changes in sorted(self._after.items()):
            if self.readings >= count and index in changes:
                entries = changes[index]
        return [process(pid, mib) for pid, mib in entries]

    def nvmlDeviceGetUtilizationRates(self, h):
        return types.SimpleNamespace(gpu=self._value(h["utilization"]), memory=0)
