"""fake_pynvml's GPUs with the health readings NVML gives (gpu_health's calls), real-looking values.

H100_HEALTHY is what an H100 SXM answered (580.159.04 driver): P0, link gen 5 of 5 x16, no remapped
row, retired pages not supported (row remapping replaced them since Ampere), no uncorrected ECC error.
The H100 SXM has 18 NVLink links, all active (NVML_NVLINK_VERSION_4_0), and no PCIe replay. The RTX 5090
(GeForce) supports neither ECC, remapped rows nor NVLink; at idle its link runs at gen 1.
"""
from __future__ import annotations

import types

import fake_pynvml as fake
from fake_pynvml import NS

H100_HEALTHY = dict(fake.H100, minor=0, pstate=0, utilization=0, gpu_max_gen=5, remap=(0, 0, 0, 0),
                    retired_pending=NS, retired={0: NS, 1: NS}, ecc_errors={0: 0, 1: 0}, pcie_replay=0,
                    nvlink=[(1, 6, fake.NOT_REPORTED)] * 18)
RTX_5090_IDLE = dict(fake.RTX_5090, minor=1, pstate=8, utilization=0, gpu_max_gen=5, remap=NS,
                     retired_pending=NS, retired={0: NS, 1: NS}, ecc_errors={0: NS, 1: NS}, pcie_replay=0)


class NVMLError_Unknown(fake.NVMLError):  # noqa: N801 (pynvml's names)
    message = "Unknown Error"


class NVMLError_GpuIsLost(fake.NVMLError):  # noqa: N801
    message = "GPU is lost"


class HealthNVML(fake.FakeNVML):
    """FakeNVML answering gpu_health's calls from each GPU's own keys."""

    def nvmlDeviceGetMinorNumber(self, h):
        return self._value(h["minor"])

    def nvmlDeviceGetPerformanceState(self, h):
        return self._value(h["pstate"])

    def nvmlDeviceGetUtilizationRates(self, h):
        return types.SimpleNamespace(gpu=self._value(h["utilization"]), memory=0)

    def nvmlDeviceGetGpuMaxPcieLinkGeneration(self, h):
        return self._value(h["gpu_max_gen"])

    def nvmlDeviceGetRemappedRows(self, h):
        return self._value(h["remap"])

    def nvmlDeviceGetRetiredPagesPendingStatus(self, h):
        return self._value(h["retired_pending"])

    def nvmlDeviceGetRetiredPages(self, h, cause):
        return self._value(h["retired"][cause])

    def nvmlDeviceGetTotalEccErrors(self, h, error_type, counter_type):
        assert error_type == 1  # uncorrected
        return self._value(h["ecc_errors"][counter_type])
