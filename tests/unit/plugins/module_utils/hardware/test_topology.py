"""How GPUs are linked: NVML's NVLink readings (2 x H200 as a virtual machine showed them), the nominal bandwidth of
each ordered pair over NVLink and over PCIe, a link that is down, and the ring all-reduce's expectation."""
from __future__ import annotations

import pytest

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import pcie_gbps
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import topology

BRIDGED_0 = "0000:41:00.0"
BRIDGED_1 = "0000:61:00.0"


def h200_pair():
    """The two H200 as the benchmark's probe reads them: NVML facts plus read_topology()'s keys."""
    nvml = fake.FakeNVML([fake.H200_0, fake.H200_1])
    read = topology.read_topology(nvml)
    return [dict(extra, index=index, pci_bus_id=bus, pcie_gen_max=5, pcie_width_max=16)
            for index, (extra, bus) in enumerate(zip(read, ("0000:00:06.0", "0000:00:07.0")))]


@pytest.mark.parametrize("value, text", [(1, "1.0"), (2, "2.0"), (3, "2.2"), (4, "3.0"), (5, "3.1"), (6, "4.0"),
                                         (7, "5.0"), (0, None), (None, None)])
def test_nvml_link_versions_read_as_text(value, text):
    assert topology.nvlink_version(value) == text


def test_the_h200_pair_lists_18_active_links_each_with_their_far_end_unreported():
    first, second = topology.read_topology(fake.FakeNVML([fake.H200_0, fake.H200_1]))
    assert len(first["nvlink"]) == 18 and len(second["nvlink"]) == 18
    assert first["nvlink"][0] == {"link": 0, "state": 1, "version": "4.0", "remote": None}
    assert first["nvlink_p2p"] == ["0000:00:07.0"] and second["nvlink_p2p"] == ["0000:00:06.0"]
    assert first["nvlink_remote_gpus"] == [] and second["nvlink_remote_gpus"] == []


def test_a_gpu_without_nvlink_lists_no_link_and_asks_no_p2p_status():
    (card,) = topology.read_topology(fake.FakeNVML([fake.RTX_5090]))
    assert card == {"nvlink": [], "nvlink_p2p": [], "nvlink_remote_gpus": []}


def test_an_nvidia_ml_py_without_the_nvlink_calls_reads_none():
    class Old(fake.FakeNVML):
        nvmlDeviceGetNvLinkState = property()  # reading the attribute raises AttributeError

    assert topology.read_links(Old([fake.H200_0]), fake.H200_0) is None


def test_the_h200_pair_is_nvlink_4_x_18_links_450_gbps_each_way():
    pairs = topology.topology(h200_pair(), pcie_gbps)["pairs"]
    assert sorted(pairs) == ["0->1", "1->0"]
    assert pairs["0->1"] == {
        "link": "nvlink", "nvlink_version": "4.0", "links": 18, "per_link_gbps": 25.0, "expected_gbps": 450.0,
        "route": "switch_or_unreported", "basis": "NVLink 4.0 x 18 active links x 25 GB/s",
        "note": "NVML reports P2P over NVLink; the links' far end is an NVSwitch or not reported"}
    assert pairs["1->0"]["expected_gbps"] == 450.0


def test_links_whose_far_end_is_the_peer_count_directly():
    """Two cards joined by a 4-link NVLink 3.0 bridge (A100 PCIe): the far end of each link is the other card."""
    first = {"index": 0, "pci_bus_id": BRIDGED_0, "pcie_gen_max": 4, "pcie_width_max": 16, "nvlink_p2p": [BRIDGED_1],
             "nvlink": [{"link": n, "state": 1, "version": "3.0", "remote": BRIDGED_1} for n in range(4)]
             + [{"link": n, "state": 0, "version": "3.0", "remote": None} for n in range(4, 12)],
             "nvlink_remote_gpus": [0, 1, 2, 3]}
    second = dict(first, index=1, pci_bus_id=BRIDGED_1, nvlink_p2p=[BRIDGED_0],
                  nvlink=[dict(link, remote=BRIDGED_0 if link["remote"] else None) for link in first["nvlink"]])
    found = topology.topology([first, second], pcie_gbps)
    assert found["pairs"]["1->0"] == {"link": "nvlink", "nvlink_version": "3.0", "links": 4, "per_link_gbps": 25.0,
                                      "expected_gbps": 100.0, "route": "direct", "note": None,
                                      "basis": "NVLink 3.0 x 4 active links x 25 GB/s"}
    assert len(found["nvlink"]) == 24
    assert found["nvlink"][4] == {"gpu": 0, "link": 4, "state": 0, "version": "3.0", "remote": None}


def test_a_link_that_is_down_lowers_the_expectation():
    first, second = h200_pair()
    first["nvlink"][5] = dict(first["nvlink"][5], state=0)
    pairs = topology.topology([first, second], pcie_gbps)["pairs"]
    assert (pairs["0->1"]["links"], pairs["0->1"]["expected_gbps"]) == (17, 425.0)
    assert (pairs["1->0"]["links"], pairs["1->0"]["expected_gbps"]) == (17, 425.0)


def test_without_nvlink_the_slower_pcie_link_sets_the_pair():
    """Two RTX 5090 (no NVLink), one in a gen 5 x16 slot and one in a gen 4 x16 slot."""
    fast = {"index": 0, "pci_bus_id": "0000:01:00.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": [],
            "nvlink_p2p": []}
    slow = dict(fast, index=1, pci_bus_id="0000:81:00.0", pcie_gen_max=4)
    pair = topology.topology([fast, slow], pcie_gbps)["pairs"]["0->1"]
    assert pair == {"link": "pcie", "nvlink_version": None, "links": 0, "per_link_gbps": None, "route": "pcie",
                    "note": None, "expected_gbps": 31.5,
                    "basis": "PCIe gen 4 x16, one direction after line encoding (the slower link of GPU 0 and GPU 1)"}
    unknown = topology.pair(fast, dict(slow, pcie_gen_max=None), pcie_gbps)
    assert (unknown["expected_gbps"], unknown["basis"]) == (
        None, "no PCIe link generation and width known (NVML) for GPU 0 and GPU 1")


def test_active_links_without_nvml_p2p_over_nvlink_are_not_counted():
    first, second = h200_pair()
    first["nvlink_p2p"] = []
    assert topology.pair(first, second, pcie_gbps)["link"] == "pcie"


def test_the_ring_expectation_is_the_slowest_pair():
    first, second = h200_pair()
    pairs = topology.topology([first, second], pcie_gbps)["pairs"]
    assert topology.ring_expectation(pairs) == {
        "expected_gbps": 450.0, "pair": "0->1",
        "basis": "ring bus bandwidth = the slowest pair's one-direction bandwidth: 0->1 NVLink 4.0 x 18 active links "
                 "x 25 GB/s"}
    third = {"index": 2, "pci_bus_id": "0000:81:00.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": []}
    ring = topology.ring_expectation(topology.topology([first, second, third], pcie_gbps)["pairs"])
    assert (ring["expected_gbps"], ring["pair"]) == (63.0, "0->2")
    unknown = dict(third, pcie_gen_max=None)
    assert topology.ring_expectation(topology.topology([first, second, unknown], pcie_gbps)["pairs"]) is None
