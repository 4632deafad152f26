# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the GPUs of a host are linked (NVLink, else PCIe) and the bandwidth a pair can move, nominally.

Read (pynvml passed in): per GPU its NVLink links, from link 0 to NVML_NVLINK_MAX_LINKS - 1: the state
(nvmlDeviceGetNvLinkState: 1 active, 0 inactive; a link that answers NotSupported does not exist), the
version (nvmlDeviceGetNvLinkVersion, NVML's enum, as text) and the far end's bus id
(nvmlDeviceGetNvLinkRemotePciInfo; NVML answers FFFFFFFF:FF:FF.0 where it does not know it, as in a
virtual machine, kept as None), and which other GPUs NVML says it reaches by P2P over NVLink
(nvmlDeviceGetP2PStatus with NVML_P2P_CAPS_INDEX_NVLINK).

Judged (pure): per ordered pair the links between the two GPUs and the expected one-direction bandwidth,
nominal: NVLink active links x the per-link rate of the version (docs/domain.md section 7), else the
slower GPU's PCIe link (gen x width, after line encoding). Links count between a pair when their far end
is the peer's bus id; where no link names the peer but NVML reports P2P over NVLink (an NVSwitch, or a far
end NVML does not report), the links whose far end is no GPU of the host count, the fewer of the two GPUs'.
Python 3.9, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.sysfs_gpus import normalize_bus_id

MAX_LINKS = 18  # NVML_NVLINK_MAX_LINKS of nvml.h (Hopper and Blackwell: 18)
P2P_CAPS_INDEX_NVLINK = 3  # nvmlGpuP2PCapsIndex_t NVML_P2P_CAPS_INDEX_NVLINK
P2P_STATUS_OK = 0  # nvmlGpuP2PStatus_t NVML_P2P_STATUS_OK
ACTIVE = 1  # nvmlEnableState_t NVML_FEATURE_ENABLED
UNKNOWN_REMOTE = "ffffffff:ff:ff.0"
# nvmlNvlinkVersion_t: NVML_NVLINK_VERSION_1_0 = 1 ... NVML_NVLINK_VERSION_5_0 = 7.
NVLINK_VERSIONS = {1: "1.0", 2: "2.0", 3: "2.2", 4: "3.0", 5: "3.1", 6: "4.0", 7: "5.0"}
# GB/s per link and direction, nominal (docs/domain.md section 7): NVLink 1 (P100) 20; NVLink 2 (V100),
# 3 (A100) and 4 (H100, H200) 25; NVLink 5 (B200) 50. NVIDIA's totals are both directions of every link:
# H100 SXM 900 GB/s = 18 links x 25 GB/s x 2.
PER_LINK_GBPS = {"1.0": 20.0, "2.0": 25.0, "2.2": 25.0, "3.0": 25.0, "3.1": 25.0, "4.0": 25.0, "5.0": 50.0}


def nvlink_version(value: int | None) -> str | None:
    """"4.0" for NVML's NVML_NVLINK_VERSION_4_0 (6); None for 0 (invalid) or a value NVML did not give."""
    return NVLINK_VERSIONS.get(value) if isinstance(value, int) else None


def _text(value):
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _remote(nvml, handle, link):
    try:
        bus = normalize_bus_id(_text(nvml.nvmlDeviceGetNvLinkRemotePciInfo(handle, link).busId))
    except (nvml.NVMLError, AttributeError):
        return None
    return None if bus in (None, UNKNOWN_REMOTE) else bus


def read_links(nvml: Any, handle: object) -> list[dict[str, Any]] | None:
    """[{link, state (1 active, 0 inactive), version ("4.0" or None), remote (bus id or None)}] of the links
    NVML lists on one GPU; [] for a GPU without NVLink; None for an nvidia-ml-py without the calls."""
    if not hasattr(nvml, "nvmlDeviceGetNvLinkState"):
        return None
    links = []
    for link in range(getattr(nvml, "NVML_NVLINK_MAX_LINKS", MAX_LINKS)):
        try:
            state = nvml.nvmlDeviceGetNvLinkState(handle, link)
        except nvml.NVMLError:  # NotSupported: the GPU has no such link
            continue
        try:
            version = nvlink_version(nvml.nvmlDeviceGetNvLinkVersion(handle, link))
        except (nvml.NVMLError, AttributeError):
            version = None
        links.append({"link": link, "state": int(state), "version": version, "remote": _remote(nvml, handle, link)})
    return links


def _p2p_nvlink(nvml, handle, other):
    try:
        return nvml.nvmlDeviceGetP2PStatus(handle, other, getattr(nvml, "NVML_P2P_CAPS_INDEX_NVLINK",
                                                                  P2P_CAPS_INDEX_NVLINK)) == P2P_STATUS_OK
    except (nvml.NVMLError, AttributeError):
        return None


def read_topology(nvml: Any) -> list[dict[str, Any]]:
    """Per GPU of an initialised NVML, in NVML order: {nvlink: read_links(), nvlink_p2p: the bus ids of the
    GPUs NVML reports P2P over NVLink with (None when it could not tell), nvlink_remote_gpus: the link numbers
    whose far end is another GPU of this host}."""
    count = nvml.nvmlDeviceGetCount()
    handles = [nvml.nvmlDeviceGetHandleByIndex(index) for index in range(count)]
    buses = []
    for handle in handles:
        try:
            buses.append(normalize_bus_id(_text(nvml.nvmlDeviceGetPciInfo(handle).busId)))
        except nvml.NVMLError:
            buses.append(None)
    found = []
    for index, handle in enumerate(handles):
        links = read_links(nvml, handle)
        active = [link for link in links or [] if link["state"] == ACTIVE]
        peers = []
        for other, bus in enumerate(buses):
            if other == index or not active or bus is None:
                continue
            status = _p2p_nvlink(nvml, handle, handles[other])
            if status is None:
                peers = None
                break
            if status:
                peers.append(bus)
        found.append({"nvlink": links, "nvlink_p2p": peers if active else [],
                      "nvlink_remote_gpus": [link["link"] for link in links or [] if link["remote"] in buses]})
    return found


def _active(gpu):
    return [link for link in gpu.get("nvlink") or [] if link.get("state") == ACTIVE]


def _nvlink_pair(src, dst):
    """(links counted, route) between two GPUs over NVLink, or ([], None)."""
    direct = [link for link in _active(src) if link.get("remote") and link["remote"] == dst.get("pci_bus_id")]
    if direct:
        return direct, "direct"
    if dst.get("pci_bus_id") not in (src.get("nvlink_p2p") or []):
        return [], None
    src_free = [link for link in _active(src) if link["link"] not in (src.get("nvlink_remote_gpus") or [])]
    dst_free = [link for link in _active(dst) if link["link"] not in (dst.get("nvlink_remote_gpus") or [])]
    return (src_free if len(src_free) <= len(dst_free) else dst_free), "switch_or_unreported"


def _pcie_pair(src, dst, label, pcie_rate):
    rates = [(pcie_rate(gpu.get("pcie_gen_max"), gpu.get("pcie_width_max")), gpu) for gpu in (src, dst)]
    known = [(rate, gpu) for rate, gpu in rates if rate is not None]
    result = {"link": "pcie", "nvlink_version": None, "links": 0, "per_link_gbps": None, "route": "pcie",
              "note": None}
    if len(known) < 2:
        return dict(result, expected_gbps=None, basis="no PCIe link generation and width known (NVML) for %s" % label)
    rate, slower = min(known, key=lambda item: item[0])
    return dict(result, expected_gbps=round(rate, 1),
                basis="PCIe gen %s x%s, one direction after line encoding (the slower link of %s)"
                % (slower.get("pcie_gen_max"), slower.get("pcie_width_max"), label))


def pair(src: Mapping[str, Any], dst: Mapping[str, Any],
         pcie_rate: Callable[[int | None, int | None], float | None]) -> dict[str, Any]:
    """{link: "nvlink" | "pcie", nvlink_version, links, per_link_gbps, expected_gbps (one direction, nominal;
    None when unknown), route ("direct", "switch_or_unreported" or "pcie"), basis (how it was found), note (how
    the links were told apart where no link names the peer, else None)} between
    two GPUs, each {index, pci_bus_id, pcie_gen_max, pcie_width_max, nvlink, nvlink_p2p, nvlink_remote_gpus}.
    pcie_rate(generation, width) is a link's one-direction GB/s (benchmark.gpu_peaks.pcie_gbps)."""
    label = "GPU %s and GPU %s" % (src.get("index"), dst.get("index"))
    links, route = _nvlink_pair(src, dst)
    versions = sorted(set(link.get("version") for link in links), key=lambda v: PER_LINK_GBPS.get(v, 0.0))
    per_link = PER_LINK_GBPS.get(versions[0]) if versions else None
    if not links or per_link is None:
        return _pcie_pair(src, dst, label, pcie_rate)
    note = None if route == "direct" else ("NVML reports P2P over NVLink; the links' far end is an NVSwitch or "
                                           "not reported")
    return {"link": "nvlink", "nvlink_version": versions[0], "links": len(links), "per_link_gbps": per_link,
            "expected_gbps": round(len(links) * per_link, 1), "route": route, "note": note,
            "basis": "NVLink %s x %d active links x %g GB/s" % (versions[0], len(links), per_link)}


def topology(gpus: Sequence[Mapping[str, Any]],
             pcie_rate: Callable[[int | None, int | None], float | None]) -> dict[str, Any]:
    """{pairs: {"0->1": pair()}, nvlink: [{gpu, link, state, version, remote}]} of GPUs given as pair() takes
    them (`index`: the GPU's number in the benchmark), every ordered pair."""
    pairs, links = {}, []
    for src in gpus:
        for link in src.get("nvlink") or []:
            links.append({"gpu": src.get("index"), "link": link["link"], "state": link["state"],
                          "version": link.get("version"), "remote": link.get("remote")})
        for dst in gpus:
            if dst is not src:
                pairs["%s->%s" % (src.get("index"), dst.get("index"))] = pair(src, dst, pcie_rate)
    return {"pairs": pairs, "nvlink": links}


def ring_expectation(pairs: Mapping[str, Mapping[str, Any]]) -> dict[str, Any] | None:
    """{expected_gbps, pair, basis} of an all-reduce over the GPUs of `pairs` (topology()'s), or None.

    A ring all-reduce moves 2(n-1)/n of the buffer through every GPU's outgoing link, one step at a time,
    so its bus bandwidth (the buffer x 2(n-1)/n per second, the figure NCCL's tests report) equals the
    one-direction bandwidth of the ring's slowest hop: here the slowest pair of the GPUs, which every ring
    over them may have to cross."""
    known = [(key, value) for key, value in sorted(pairs.items()) if value.get("expected_gbps") is not None]
    if not known or len(known) < len(pairs):
        return None
    key, slowest = min(known, key=lambda item: item[1]["expected_gbps"])
    return {"expected_gbps": slowest["expected_gbps"], "pair": key,
            "basis": "ring bus bandwidth = the slowest pair's one-direction bandwidth: %s %s" % (key, slowest["basis"])}
