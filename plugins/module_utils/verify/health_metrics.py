# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPUs' health as a Prometheus textfile for node_exporter, named as dcgm-exporter names them.

A reading of gpu_health becomes one sample per GPU of each DCGM field it read (DCGM_FI_DEV_XID_ERRORS,
DCGM_FI_DEV_PCIE_LINK_GEN, ..., with dcgm-exporter's labels gpu, UUID, pci_bus_id, device, modelName
and Hostname), so dashboards and alerts written for dcgm-exporter read these too; the gates' verdicts
go under blackwell_pytorch_health_*, with the NVLink links listed and up per GPU. A field not supported or not read has no sample (dcgm-exporter
leaves it out too); the Xid metrics exist only when the kernel log was read. Pure functions.
"""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_gates import GATES
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import textfile

PREFIX = "blackwell_pytorch_health_"
# DCGM field -> (type, help), as dcgm-exporter's counters list describes them
DCGM = {
    "DCGM_FI_DEV_XID_ERRORS": ("gauge", "Value of the last XID error encountered (since boot; 0: none)."),
    "DCGM_FI_DEV_PCIE_LINK_GEN": ("gauge", "PCIe link generation when read."),
    "DCGM_FI_DEV_PCIE_LINK_WIDTH": ("gauge", "PCIe link width (lanes) when read."),
    "DCGM_FI_DEV_PCIE_MAX_LINK_GEN": ("gauge", "Maximum PCIe link generation of the GPU in its slot."),
    "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH": ("gauge", "Maximum PCIe link width (lanes)."),
    "DCGM_FI_DEV_PCIE_REPLAY_COUNTER": ("counter", "Total number of PCIe retries."),
    "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS": ("counter", "Number of remapped rows for correctable errors"),
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": ("counter", "Number of remapped rows for uncorrectable errors"),
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": ("gauge", "Whether remapping of rows has failed"),
    "DCGM_FI_DEV_ROW_REMAP_PENDING": ("gauge", "Whether remapping of rows is pending"),
    "DCGM_FI_DEV_RETIRED_PENDING": ("counter", "Whether pages are pending retirement (1: yes)."),
    "DCGM_FI_DEV_RETIRED_SBE": ("counter", "Total number of retired pages due to single-bit errors."),
    "DCGM_FI_DEV_RETIRED_DBE": ("counter", "Total number of retired pages due to double-bit errors."),
    "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": ("counter", "Total number of double-bit volatile ECC errors."),
    "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL": ("counter", "Total number of double-bit persistent ECC errors."),
}
HELP = {
    "passed": "1 when every health gate passed on this host, else 0.",
    "gate_passed": "1 when the health gate passed on this GPU, 0 when it failed (no sample: unknown, "
                   "not supported or off).",
    "kernel_log_readable": "1 when the kernel log could be read for Xid errors, else 0.",
    "xid_events": "Xid errors of this code logged since boot.",
    "nvlink_links": "NVLink links NVML lists on this GPU.",
    "nvlink_links_active": "NVLink links of this GPU that are up.",
}


def dcgm_labels(gpu: Mapping[str, Any], hostname: str) -> list[tuple[str, Any]]:
    """dcgm-exporter's labels of a GPU."""
    return [("gpu", gpu.get("index")), ("UUID", gpu.get("uuid") or ""), ("pci_bus_id", gpu.get("bus_id") or ""),
            ("device", gpu.get("device") or ""), ("modelName", gpu.get("name") or ""), ("Hostname", hostname)]


def _dcgm_values(gpu, xids):
    rows, pages = gpu.get("remapped_rows") or {}, gpu.get("retired_pages") or {}
    yield "DCGM_FI_DEV_XID_ERRORS", xids[-1]["xid"] if xids else (0 if xids is not None else None)
    yield "DCGM_FI_DEV_PCIE_LINK_GEN", gpu.get("pcie_gen_current")
    yield "DCGM_FI_DEV_PCIE_LINK_WIDTH", gpu.get("pcie_width_current")
    yield "DCGM_FI_DEV_PCIE_MAX_LINK_GEN", gpu.get("pcie_gen_max")
    yield "DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH", gpu.get("pcie_width_max")
    yield "DCGM_FI_DEV_PCIE_REPLAY_COUNTER", gpu.get("pcie_replay")
    yield "DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", rows.get("corrected")
    yield "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", rows.get("uncorrected")
    yield "DCGM_FI_DEV_ROW_REMAP_FAILURE", None if not rows else int(rows["failure"])
    yield "DCGM_FI_DEV_ROW_REMAP_PENDING", None if not rows else int(rows["pending"])
    yield "DCGM_FI_DEV_RETIRED_PENDING", None if not pages else int(pages["pending"])
    yield "DCGM_FI_DEV_RETIRED_SBE", pages.get("sbe")
    yield "DCGM_FI_DEV_RETIRED_DBE", pages.get("dbe")
    yield "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", gpu.get("ecc_uncorrected_volatile")
    yield "DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", gpu.get("ecc_uncorrected_aggregate")


def samples(reading: Mapping[str, Any], health: Mapping[str, Any] | None,
            host: str = "") -> Iterator[tuple[str, list[tuple[str, Any]], int]]:
    """(name, labels, value) of every metric of a reading and its health verdict."""
    hostname = reading.get("hostname") or host
    log = reading.get("kernel_log") or {}
    readable = bool(log.get("source"))
    verdicts = dict((gpu.get("uuid") or gpu.get("index"), gpu["gates"]) for gpu in (health or {}).get("gpus") or [])
    for gpu in reading.get("gpus") or []:
        labels = dcgm_labels(gpu, hostname)
        bus = (gpu.get("pci_bus_id") or "").rsplit(".", 1)[0]
        xids = [record for record in log.get("xids") or [] if record["pci"] == bus] if readable else None
        for name, value in _dcgm_values(gpu, xids):
            if value is not None:
                yield name, labels, int(value)
        links = gpu.get("nvlink") or []
        if links:
            yield PREFIX + "nvlink_links", labels, len(links)
            yield PREFIX + "nvlink_links_active", labels, len([link for link in links if link.get("state") == 1])
        for code in sorted(set(record["xid"] for record in xids or [])):
            yield PREFIX + "xid_events", labels + [("xid", code)], len([r for r in xids if r["xid"] == code])
        gates = verdicts.get(gpu.get("uuid") or gpu.get("index")) or {}
        for gate in GATES:
            status = (gates.get(gate) or {}).get("status")
            if status in ("passed", "failed"):
                yield PREFIX + "gate_passed", labels + [("gate", gate)], 1 if status == "passed" else 0
    yield PREFIX + "kernel_log_readable", [("Hostname", hostname)], 1 if readable else 0
    if health:
        yield PREFIX + "passed", [("Hostname", hostname)], 1 if health.get("passed") else 0


def prometheus(reading: Mapping[str, Any], health: Mapping[str, Any] | None = None, host: str = "") -> str:
    """The textfile of a gpu_health reading (and the gates' verdict on it)."""
    def help_text(name):
        return DCGM[name][1] if name in DCGM else HELP[name[len(PREFIX):]]

    def metric_type(name):
        return DCGM[name][0] if name in DCGM else "gauge"
    return textfile(samples(reading or {}, health, host), help_text, metric_type)
