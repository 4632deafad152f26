# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read GPU and driver facts through NVML (the `pynvml` module of nvidia-ml-py).

The functions take the pynvml module as an argument, so unit tests pass a fake. Every
per-GPU query that a GPU does not support (ECC on GeForce, MIG outside A100/H100/B200)
becomes None instead of failing the whole fact set.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product_line
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import capability_facts
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import normalize_bus_id


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return value


def nvml_error_text(err: BaseException) -> str:
    """"NVMLError_DriverNotLoaded: Driver Not Loaded" for an NVML exception."""
    return "%s: %s" % (type(err).__name__, err)


def _query(nvml, func, *args):
    try:
        return getattr(nvml, func)(*args)
    except nvml.NVMLError:
        return None
    except AttributeError:  # an old nvidia-ml-py without this call
        return None


def _mode(value):
    """NVML (current, pending) or a plain int -> bool of the current mode, None if unknown."""
    if value is None:
        return None
    if isinstance(value, (tuple, list)):
        value = value[0]
    return bool(value)


def nvml_gpu(nvml: Any, index: int) -> dict[str, Any]:
    """Facts for GPU `index` (NVML order, which is PCI bus order)."""
    handle = nvml.nvmlDeviceGetHandleByIndex(index)
    pci = _query(nvml, "nvmlDeviceGetPciInfo", handle)
    capability = _query(nvml, "nvmlDeviceGetCudaComputeCapability", handle)
    memory = _query(nvml, "nvmlDeviceGetMemoryInfo", handle)
    power_mw = _query(nvml, "nvmlDeviceGetPowerManagementLimit", handle)
    enforced_mw = _query(nvml, "nvmlDeviceGetEnforcedPowerLimit", handle)
    name = _text(nvml.nvmlDeviceGetName(handle))
    gpu = {
        "index": index,
        "name": name,
        "name_source": "nvml",
        "uuid": _text(_query(nvml, "nvmlDeviceGetUUID", handle)),
        "pci_device_id": "%04x:%04x" % (pci.pciDeviceId & 0xFFFF, pci.pciDeviceId >> 16)
        if pci is not None else None,
        "pci_bus_id": normalize_bus_id(_text(pci.busId)) if pci is not None else None,
        "compute_capability": None,
        "sm": None,
        "arch_family": "unknown",
        "product_line": product_line(name),
        "memory_total_mib": memory.total // (1024 * 1024) if memory is not None else None,
        "pcie_gen_current": _query(nvml, "nvmlDeviceGetCurrPcieLinkGeneration", handle),
        "pcie_gen_max": _query(nvml, "nvmlDeviceGetMaxPcieLinkGeneration", handle),
        "pcie_width_current": _query(nvml, "nvmlDeviceGetCurrPcieLinkWidth", handle),
        "pcie_width_max": _query(nvml, "nvmlDeviceGetMaxPcieLinkWidth", handle),
        "persistence_mode": _mode(_query(nvml, "nvmlDeviceGetPersistenceMode", handle)),
        "ecc_mode": _mode(_query(nvml, "nvmlDeviceGetEccMode", handle)),
        "mig_mode": _mode(_query(nvml, "nvmlDeviceGetMigMode", handle)),
        "power_limit_w": round(power_mw / 1000.0, 1) if power_mw is not None else None,
        # The limit the GPU holds to: the management limit, or lower where another cap applies.
        "enforced_power_limit_w": round(enforced_mw / 1000.0, 1) if enforced_mw is not None else None,
        "max_sm_clock_mhz": _query(nvml, "nvmlDeviceGetMaxClockInfo", handle, nvml.NVML_CLOCK_SM),
        "max_mem_clock_mhz": _query(nvml, "nvmlDeviceGetMaxClockInfo", handle, nvml.NVML_CLOCK_MEM),
        "memory_bus_width_bits": _query(nvml, "nvmlDeviceGetMemoryBusWidth", handle),
        "driver_bound": "nvidia",
        "source": "nvml",
    }
    if capability is not None:
        gpu.update(capability_facts(*capability))
    return gpu


def nvml_session(nvml: Any, *readers: Callable[[Any], Any]) -> list[Any]:
    """Initialise NVML once, call each reader(nvml) in turn, shut NVML down; the readers' answers, in order.

    NVML initialisation errors (driver not loaded, library not found) propagate as nvml.NVMLError for the
    caller to report, and so does a reader's."""
    nvml.nvmlInit()
    try:
        return [read(nvml) for read in readers]
    finally:
        try:
            nvml.nvmlShutdown()
        except nvml.NVMLError:
            pass


def read_snapshot(nvml: Any) -> dict[str, Any]:
    """The driver and every GPU of an initialised NVML: {"driver_version", "cuda_driver_version" (int, e.g.
    13000), "gpus"}."""
    driver = _text(nvml.nvmlSystemGetDriverVersion())
    cuda = _query(nvml, "nvmlSystemGetCudaDriverVersion_v2")
    if cuda is None:
        cuda = _query(nvml, "nvmlSystemGetCudaDriverVersion")
    gpus = [nvml_gpu(nvml, index) for index in range(nvml.nvmlDeviceGetCount())]
    return {"driver_version": driver, "cuda_driver_version": cuda, "gpus": gpus}


def nvml_snapshot(nvml: Any) -> dict[str, Any]:
    """Initialise NVML, read the driver and every GPU (read_snapshot), shut NVML down."""
    return nvml_session(nvml, read_snapshot)[0]


def merge_with_sysfs(nvml_list: Sequence[Mapping[str, Any]],
                     sysfs_list: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """NVML's GPUs, then any NVIDIA GPU on the PCI bus that NVML did not report.

    A GPU the driver failed to initialise (e.g. a Blackwell card under the proprietary
    module: "RmInitAdapter failed") shows up on the bus but not in NVML; it is kept with
    `nvml_visible: false` so the roles can say so.
    """
    seen = set(gpu["pci_bus_id"] for gpu in nvml_list)
    merged = []
    for gpu in nvml_list:
        merged.append(dict(gpu, nvml_visible=True))
    for gpu in sysfs_list:
        if gpu["pci_bus_id"] not in seen:
            merged.append(dict(gpu, index=None, nvml_visible=False))
    return merged
