"""A stand-in for the pynvml module (nvidia-ml-py) fed real-looking values.

Values follow what nvidia-smi / NVML report on those cards: RTX 5090 and RTX PRO 6000
(GeForce / workstation Blackwell, no MIG), H100 SXM (Hopper, MIG-capable, ECC on), and a
GPU with MIG enabled. The error classes mirror pynvml's NVMLError_* hierarchy.
"""
from __future__ import annotations

import types

NVML_CLOCK_SM = 1
NVML_CLOCK_MEM = 2
MIB = 1024 * 1024


class NVMLError(Exception):
    message = "Unknown Error"

    def __str__(self):
        return self.message


class NVMLError_DriverNotLoaded(NVMLError):  # noqa: N801 (pynvml's names)
    message = "Driver Not Loaded"


class NVMLError_LibraryNotFound(NVMLError):  # noqa: N801
    message = "NVML Shared Library Not Found"


class NVMLError_NotSupported(NVMLError):  # noqa: N801
    message = "Not Supported"


NS = NVMLError_NotSupported  # marks a query the GPU does not support

RTX_5090 = {
    "name": "NVIDIA GeForce RTX 5090", "uuid": "GPU-3f1b2c4d-5e6f-7081-92a3-b4c5d6e7f809",
    "pci_device_id": 0x2B8510DE, "bus_id": "00000000:01:00.0", "cc": (12, 0),
    "memory": 32607 * MIB, "pcie": (1, 5, 16, 16), "persistence": 0, "ecc": NS, "mig": NS,
    "power_mw": 575000, "sm_clock": 3090, "mem_clock": 14001, "bus_width": 512,
}
RTX_PRO_6000 = {
    "name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition",
    "uuid": "GPU-8a7b6c5d-4e3f-2a1b-0c9d-8e7f6a5b4c3d",
    "pci_device_id": 0x2BB110DE, "bus_id": "00000000:41:00.0", "cc": (12, 0),
    "memory": 97887 * MIB, "pcie": (5, 5, 16, 16), "persistence": 1, "ecc": [0, 0], "mig": NS,
    "power_mw": 600000, "sm_clock": 2617, "mem_clock": 14001, "bus_width": 512,
}
H100 = {
    "name": "NVIDIA H100 80GB HBM3", "uuid": "GPU-0e2d4c6b-8a9f-1e3d-5c7b-9a1f3e5d7c9b",
    "pci_device_id": 0x233010DE, "bus_id": "00000000:18:00.0", "cc": (9, 0),
    "memory": 81559 * MIB, "pcie": (5, 5, 16, 16), "persistence": 1, "ecc": [1, 1], "mig": [0, 0],
    "power_mw": 700000, "sm_clock": 1980, "mem_clock": 2619, "bus_width": 5120,
}
H100_MIG = dict(H100, uuid="GPU-7c5a3e1f-9d7b-5f3a-1e9c-7b5d3f1a9e7c", bus_id="00000000:2A:00.0",
                mig=[1, 1])
# Two H200 as a virtual machine showed them (driver 580.159.04): 18 NVLink links each, all active, version
# NVML_NVLINK_VERSION_4_0 (6), far end not reported (FFFFFFFF:FF:FF.0); NVML's P2P status over NVLink OK.
NOT_REPORTED = "FFFFFFFF:FF:FF.0"
H200_0 = {
    "name": "NVIDIA H200", "uuid": "GPU-97e33dbe-e6ef-d319-f2cf-ae17784a58eb",
    "pci_device_id": 0x233510DE, "bus_id": "00000000:00:06.0", "cc": (9, 0),
    "memory": 143771 * MIB, "pcie": (5, 5, 16, 16), "persistence": 1, "ecc": [1, 1], "mig": [0, 0],
    "power_mw": 700000, "enforced_mw": 700000, "sm_clock": 1980, "mem_clock": 3201, "bus_width": 6016,
    "pcie_replay": 0, "nvlink": [(1, 6, NOT_REPORTED)] * 18, "p2p_nvlink": {"00000000:00:07.0": 0},
}
H200_1 = dict(H200_0, uuid="GPU-875e4dd4-97af-ee5b-51e5-78d5eea04098", bus_id="00000000:00:07.0",
              p2p_nvlink={"00000000:00:06.0": 0})
P2P_NOT_SUPPORTED = 5  # nvmlGpuP2PStatus_t NVML_P2P_STATUS_NOT_SUPPORTED


class FakeNVML(types.SimpleNamespace):
    """Build with FakeNVML(gpus=[...], driver="580.159.04", cuda=13000, init_error=None)."""

    NVML_NVLINK_MAX_LINKS = 18
    NVML_P2P_CAPS_INDEX_NVLINK = 3

    def __init__(self, gpus=(), driver="580.159.04", cuda=13000, init_error=None):
        super().__init__(
            NVMLError=NVMLError, NVMLError_DriverNotLoaded=NVMLError_DriverNotLoaded,
            NVMLError_LibraryNotFound=NVMLError_LibraryNotFound,
            NVMLError_NotSupported=NVMLError_NotSupported,
            NVML_CLOCK_SM=NVML_CLOCK_SM, NVML_CLOCK_MEM=NVML_CLOCK_MEM,
        )
        self._gpus, self._driver, self._cuda, self._init_error = list(gpus), driver, cuda, init_error
        self.initialised = False
        self.shutdown_calls = 0

    @staticmethod
    def _value(value):
        if isinstance(value, type) and issubclass(value, NVMLError):
            raise value()
        return value

    def nvmlInit(self):
        if self._init_error:
            raise self._init_error()
        self.initialised = True

    def nvmlShutdown(self):
        self.shutdown_calls += 1

    def nvmlSystemGetDriverVersion(self):
        return self._driver

    def nvmlSystemGetCudaDriverVersion_v2(self):
        return self._cuda

    def nvmlDeviceGetCount(self):
        return len(self._gpus)

    def nvmlDeviceGetHandleByIndex(self, index):
        return self._gpus[index]

    def nvmlDeviceGetName(self, h):
        return h["name"]

    def nvmlDeviceGetUUID(self, h):
        return h["uuid"]

    def nvmlDeviceGetPciInfo(self, h):
        return types.SimpleNamespace(pciDeviceId=h["pci_device_id"], busId=h["bus_id"].encode())

    def nvmlDeviceGetCudaComputeCapability(self, h):
        return h["cc"]

    def nvmlDeviceGetMemoryInfo(self, h):
        return types.SimpleNamespace(total=h["memory"], free=h["memory"] - 512 * MIB, used=512 * MIB)

    def nvmlDeviceGetCurrPcieLinkGeneration(self, h):
        return h["pcie"][0]

    def nvmlDeviceGetMaxPcieLinkGeneration(self, h):
        return h["pcie"][1]

    def nvmlDeviceGetCurrPcieLinkWidth(self, h):
        return h["pcie"][2]

    def nvmlDeviceGetMaxPcieLinkWidth(self, h):
        return h["pcie"][3]

    def nvmlDeviceGetPersistenceMode(self, h):
        return self._value(h["persistence"])

    def nvmlDeviceGetEccMode(self, h):
        return self._value(h["ecc"])

    def nvmlDeviceGetMigMode(self, h):
        return self._value(h["mig"])

    def nvmlDeviceGetPowerManagementLimit(self, h):
        return h["power_mw"]

    def nvmlDeviceGetMaxClockInfo(self, h, clock):
        return h["sm_clock"] if clock == NVML_CLOCK_SM else h["mem_clock"]

    def nvmlDeviceGetMemoryBusWidth(self, h):
        return h["bus_width"]

    def nvmlDeviceGetEnforcedPowerLimit(self, h):
        return self._value(h.get("enforced_mw", h["power_mw"]))

    def nvmlDeviceGetPcieReplayCounter(self, h):
        return self._value(h.get("pcie_replay", NVMLError_NotSupported))

    def _link(self, h, link):
        """(state, version, remote bus id) of a link; a GPU without the key has no NVLink (NotSupported)."""
        links = h.get("nvlink") or []
        if link >= len(links):
            raise NVMLError_NotSupported()
        return links[link]

    def nvmlDeviceGetNvLinkState(self, h, link):
        return self._value(self._link(h, link)[0])

    def nvmlDeviceGetNvLinkVersion(self, h, link):
        return self._value(self._link(h, link)[1])

    def nvmlDeviceGetNvLinkRemotePciInfo(self, h, link):
        return types.SimpleNamespace(busId=self._value(self._link(h, link)[2]).encode())

    def nvmlDeviceGetP2PStatus(self, h1, h2, index):
        assert index == self.NVML_P2P_CAPS_INDEX_NVLINK
        return self._value(h1.get("p2p_nvlink", {}).get(h2["bus_id"], P2P_NOT_SUPPORTED))
