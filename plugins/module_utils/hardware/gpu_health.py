# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read what says a GPU is sick: PCIe link and its replay counter, NVLink links, remapped rows, retired pages,
uncorrected ECC (NVML), and the Xid errors the driver logged since boot (the kernel log).

Every reader takes what it reads through as an argument (the pynvml module, a command runner,
a /dev/kmsg reader), so unit tests pass fakes fed real-looking values. A field a GPU does not
support (NVML_ERROR_NOT_SUPPORTED: ECC on GeForce, retired pages since Ampere) is listed in the
GPU's `unsupported`, another NVML error in its `errors`; neither fails the read. Judging is
module_utils/verify/health_gates.py's. Python 3.9, no Ansible import.
"""
from __future__ import annotations

import errno
import re
from collections.abc import Callable, Iterable
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import normalize_bus_id
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import read_links

# The health textfile node_exporter reads (gpu_health writes it, the preflight probe reads it back).
TEXTFILE = "blackwell_pytorch_health.prom"
NOT_SUPPORTED = 3  # NVML_ERROR_NOT_SUPPORTED
# nvmlMemoryErrorType_t / nvmlEccCounterType_t / nvmlPageRetirementCause_t
UNCORRECTED, VOLATILE, AGGREGATE = 1, 0, 1
RETIRED_SBE, RETIRED_DBE = 0, 1
# "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python3, GPU has fallen off the bus."; older drivers
# leave out pid and name, MIG adds " GPU-I:05" after the bus id.
XID_RE = re.compile(r"NVRM: Xid \(PCI:(?P<bus>[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2})(?:\.[0-7])?[^)]*\): "
                    r"(?P<xid>\d+)(?:, pid=(?P<pid>[^,\s]*))?(?:, name=(?P<name>[^,]*))?,?\s*(?P<text>.*)$")
JOURNAL_ARGV = ["journalctl", "-k", "-b", "--no-pager", "-q", "-o", "short-iso"]


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _not_supported(nvml, err):
    cls = getattr(nvml, "NVMLError_NotSupported", None)
    return (cls is not None and isinstance(err, cls)) or getattr(err, "value", None) == NOT_SUPPORTED


class _Fields(object):
    """Calls NVML for one GPU, keeping which fields are not supported and which failed."""

    def __init__(self, nvml, handle):
        self.nvml, self.handle = nvml, handle
        self.unsupported, self.errors = [], {}

    def get(self, field, func, *args):
        try:
            return getattr(self.nvml, func)(self.handle, *args)
        except AttributeError:  # an nvidia-ml-py older than the call
            self.unsupported.append(field)
        except self.nvml.NVMLError as err:
            if _not_supported(self.nvml, err):
                self.unsupported.append(field)
            else:
                self.errors[field] = "%s: %s" % (type(err).__name__, err)
        return None


def _remapped_rows(value):
    if value is None:
        return None
    corrected, uncorrected, pending, failure = value
    return {"corrected": int(corrected), "uncorrected": int(uncorrected), "pending": bool(pending),
            "failure": bool(failure)}


def _nvlink(fields):
    """The GPU's NVLink links (topology.read_links), `nvlink` listed as unsupported where it has none (or
    nvidia-ml-py is older than the calls)."""
    try:
        links = read_links(fields.nvml, fields.handle)
    except fields.nvml.NVMLError as err:
        fields.errors["nvlink"] = "%s: %s" % (type(err).__name__, err)
        return None
    if not links:
        fields.unsupported.append("nvlink")
    return links or None


def nvml_gpu_health(nvml: Any, index: int) -> dict[str, Any]:
    """The health fields of GPU `index` (NVML order)."""
    handle = nvml.nvmlDeviceGetHandleByIndex(index)
    fields = _Fields(nvml, handle)
    pci = fields.get("pci", "nvmlDeviceGetPciInfo")
    bus_id = _text(pci.busId) if pci is not None else None
    minor = fields.get("minor_number", "nvmlDeviceGetMinorNumber")
    utilization = fields.get("utilization", "nvmlDeviceGetUtilizationRates")
    pending = fields.get("retired_pages_pending", "nvmlDeviceGetRetiredPagesPendingStatus")
    sbe = fields.get("retired_pages_sbe", "nvmlDeviceGetRetiredPages", RETIRED_SBE)
    dbe = fields.get("retired_pages_dbe", "nvmlDeviceGetRetiredPages", RETIRED_DBE)
    gpu = {
        "index": index,
        "name": _text(nvml.nvmlDeviceGetName(handle)),
        "uuid": _text(fields.get("uuid", "nvmlDeviceGetUUID")),
        "pci_bus_id": normalize_bus_id(bus_id) if bus_id else None,
        "bus_id": bus_id,
        "device": "nvidia%d" % minor if minor is not None else None,
        "pstate": fields.get("pstate", "nvmlDeviceGetPerformanceState"),
        "utilization_gpu": utilization.gpu if utilization is not None else None,
        "pcie_gen_current": fields.get("pcie_gen_current", "nvmlDeviceGetCurrPcieLinkGeneration"),
        "pcie_gen_max": fields.get("pcie_gen_max", "nvmlDeviceGetMaxPcieLinkGeneration"),
        "pcie_gen_gpu_max": fields.get("pcie_gen_gpu_max", "nvmlDeviceGetGpuMaxPcieLinkGeneration"),
        "pcie_width_current": fields.get("pcie_width_current", "nvmlDeviceGetCurrPcieLinkWidth"),
        "pcie_width_max": fields.get("pcie_width_max", "nvmlDeviceGetMaxPcieLinkWidth"),
        "pcie_replay": fields.get("pcie_replay", "nvmlDeviceGetPcieReplayCounter"),
        "nvlink": _nvlink(fields),
        "remapped_rows": _remapped_rows(fields.get("remapped_rows", "nvmlDeviceGetRemappedRows")),
        "retired_pages": None if pending is None else {
            "pending": bool(pending), "sbe": len(sbe) if sbe is not None else None,
            "dbe": len(dbe) if dbe is not None else None},
        "ecc_uncorrected_volatile": fields.get("ecc_uncorrected_volatile", "nvmlDeviceGetTotalEccErrors",
                                               UNCORRECTED, VOLATILE),
        "ecc_uncorrected_aggregate": fields.get("ecc_uncorrected_aggregate", "nvmlDeviceGetTotalEccErrors",
                                                UNCORRECTED, AGGREGATE),
    }
    gpu["unsupported"], gpu["errors"] = fields.unsupported, fields.errors
    return gpu


def read_health(nvml: Any) -> dict[str, Any]:
    """The health fields of every GPU of an initialised NVML: {"gpus": [...], "nvml_error": None}."""
    return {"gpus": [nvml_gpu_health(nvml, index) for index in range(nvml.nvmlDeviceGetCount())],
            "nvml_error": None}


def nvml_health(nvml: Any) -> dict[str, Any]:
    """{"gpus": [...], "nvml_error": None}, or no GPU and why when NVML cannot be used."""
    if nvml is None:
        return {"gpus": [], "nvml_error": "nvidia-ml-py is not installed"}
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as err:
        return {"gpus": [], "nvml_error": "%s: %s" % (type(err).__name__, err)}
    try:
        return read_health(nvml)
    finally:
        try:
            nvml.nvmlShutdown()
        except nvml.NVMLError:
            pass


def parse_xids(lines: Iterable[str]) -> list[dict[str, Any]]:
    """[{pci, xid, pid, process, text}] of the Xid lines among kernel log lines, in their order.

    `pci` is the bus id as the GPU's pci_bus_id starts ("0000:3b:00"); pid and process are None
    where the driver did not log them."""
    found = []
    for line in lines:
        match = XID_RE.search(line)
        if not match:
            continue
        bus = match.group("bus").lower()
        domain, rest = bus.split(":", 1)
        found.append({"pci": "%04x:%s" % (int(domain, 16), rest), "xid": int(match.group("xid")),
                      "pid": match.group("pid") or None,
                      "process": (match.group("name") or "").strip() or None,
                      "text": match.group("text").strip()})
    return found


def kmsg_message(record: str) -> str:
    """The message of a /dev/kmsg record ("6,1234,5678901,-;NVRM: ..."): the text after the first ';'."""
    head, sep, message = record.partition(";")
    return message.rstrip("\n") if sep else record.rstrip("\n")


def kmsg_first_seq(record: str) -> int | None:
    """The sequence number of a /dev/kmsg record, or None."""
    parts = record.split(";", 1)[0].split(",")
    try:
        return int(parts[1])
    except (IndexError, ValueError):
        return None


def read_kernel_log(run_journal: Callable[[], tuple[int, str, str] | None] | None,
                    read_kmsg: Callable[[], list[str] | None]) -> dict[str, Any]:
    """The Xid errors since boot from the journal (`run_journal()` -> (rc, stdout, stderr), or None when
    journalctl is absent; `run_journal` None: the journal is not asked), else from the kernel's ring buffer (`read_kmsg()` -> records, raising OSError).

    Returns {source, complete, xids, error}: source None and error the reasons when neither could be
    read (no permission, a container); complete False when the ring buffer no longer holds the boot's
    first messages (older Xids may have been overwritten)."""
    reasons = []
    answer = run_journal() if run_journal is not None else None
    if run_journal is not None and answer is None:
        reasons.append("journalctl: not installed")
    elif answer is not None:
        rc, out, err = answer
        lines = out.splitlines()
        if rc != 0:
            reasons.append("journalctl -k -b: exit %s: %s" % (rc, (err or out).strip()[:200] or "no output"))
        elif not [line for line in lines if line.strip() and not line.startswith("-- ")]:
            reasons.append("journalctl -k -b: the journal holds no kernel message of this boot")
        else:
            return {"source": "journal", "complete": True, "xids": parse_xids(lines), "error": None}
    try:
        records = read_kmsg()
    except OSError as err:
        why = {errno.EACCES: "permission denied", errno.EPERM: "not permitted",
               errno.ENOENT: "no such device"}.get(err.errno, err.strerror or str(err))
        reasons.append("/dev/kmsg: %s" % why)
        return {"source": None, "complete": False, "xids": [], "error": "; ".join(reasons)}
    if not records:
        reasons.append("/dev/kmsg: no record")
        return {"source": None, "complete": False, "xids": [], "error": "; ".join(reasons)}
    first = kmsg_first_seq(records[0])
    return {"source": "/dev/kmsg", "complete": first == 0,
            "xids": parse_xids(kmsg_message(record) for record in records), "error": None}


def read_kmsg_file(path: str = "/dev/kmsg", opener: Callable[[str, int], int] | None = None) -> list[str]:
    """Every record /dev/kmsg holds now (one read() per record, non-blocking, until EAGAIN)."""
    import os
    opener = opener or os.open
    fd = opener(path, os.O_RDONLY | os.O_NONBLOCK)
    records = []
    try:
        while True:
            try:
                chunk = os.read(fd, 8192)
            except BlockingIOError:
                break
            except OSError as err:
                if err.errno == errno.EPIPE:  # a record overwritten while reading: go on with the next
                    continue
                raise
            if not chunk:
                break
            records.append(chunk.decode("utf-8", "replace"))
    finally:
        os.close(fd)
    return records


def kernel_log(mode: str, get_bin_path: Callable[[str], str | None], run_command: Callable[..., tuple[int, str, str]],
               kmsg: str = "/dev/kmsg") -> dict[str, Any]:
    """The kernel log's reading for `mode` (auto, journal, kmsg, never), as gpu_health and preflight_facts read it:
    get_bin_path(name) and run_command(argv, environ_update=...) are the module's, `kmsg` the ring buffer's path."""
    if mode == "never":
        return {"source": None, "complete": False, "xids": [], "error": "not read (kernel_log=never)"}
    journalctl = get_bin_path("journalctl") if mode in ("auto", "journal") else None

    def run_journal():
        if journalctl is None:
            return None
        return run_command([journalctl] + JOURNAL_ARGV[1:], environ_update={"LC_ALL": "C"})

    def read_kmsg():
        if mode == "journal":
            raise OSError(0, "not read (kernel_log=journal)")
        return read_kmsg_file(kmsg)

    return read_kernel_log(run_journal if mode != "kmsg" else None, read_kmsg)
