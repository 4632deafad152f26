"""P2P copies and the all-reduce against how the GPUs are linked: the H200 pair's measured figures over NVLink 4.0
x 18 (388 GB/s each way, 295 GB/s bus bandwidth), two cards over PCIe, and links nobody could read."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, p2p_figures, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import pcie_gbps
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.link_expectation import (
    allreduce_expectation, expectations, judged, pair_expectation)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import topology

MIB = 1024 * 1024
LINKS = "NVLink 4.0 x 18 active links x 25 GB/s"
NVLINK = LINKS + " (NVML reports P2P over NVLink; the links' far end is an NVSwitch or not reported)"


def h200_topology():
    links = [{"link": n, "state": 1, "version": "4.0", "remote": None} for n in range(18)]
    gpus = [{"index": 0, "pci_bus_id": "0000:00:06.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": links,
             "nvlink_p2p": ["0000:00:07.0"], "nvlink_remote_gpus": []},
            {"index": 1, "pci_bus_id": "0000:00:07.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": links,
             "nvlink_p2p": ["0000:00:06.0"], "nvlink_remote_gpus": []}]
    return topology(gpus, pcie_gbps)


def pcie_topology():
    gpus = [{"index": 0, "pci_bus_id": "0000:01:00.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": []},
            {"index": 1, "pci_bus_id": "0000:81:00.0", "pcie_gen_max": 5, "pcie_width_max": 16, "nvlink": []}]
    return topology(gpus, pcie_gbps)


def test_a_p2p_copy_over_nvlink_is_expected_at_0_8_of_the_links():
    expected = pair_expectation(h200_topology()["pairs"]["0->1"])
    assert expected == {
        "value": 360.0, "fraction_of_peak": None, "nominal": 450.0, "source": "topology: " + LINKS,
        "basis": NVLINK + " = 450 GB/s nominal, x 0.8: the share a healthy host reaches (0.86 measured: 388 of 450 "
                          "GB/s on 2 x NVIDIA H200, NVLink 4.0 x 18)"}
    assert judged({"value": 387.881}, expected)["fraction_of_expected"] == 1.0774


def test_a_p2p_copy_over_pcie():
    expected = pair_expectation(pcie_topology()["pairs"]["1->0"])
    assert (expected["value"], expected["nominal"]) == (50.4, 63.0)
    assert expected["source"] == ("topology: PCIe gen 5 x16, one direction after line encoding (the slower link of "
                                  "GPU 1 and GPU 0)")
    assert judged({"value": 26.1}, expected)["fraction_of_expected"] == 0.5179


def test_the_all_reduce_is_expected_at_0_6_of_the_ring():
    expected = allreduce_expectation(h200_topology()["pairs"])
    assert (expected["value"], expected["nominal"]) == (270.0, 450.0)
    assert expected["source"] == "topology: ring over 0->1, " + LINKS
    assert expected["basis"] == (
        "ring bus bandwidth = the slowest pair's one-direction bandwidth: 0->1 " + NVLINK + " = 450 GB/s nominal, "
        "x 0.6: the share a healthy host reaches (0.66 measured: 295 of 450 GB/s on 2 x NVIDIA H200, NVLink 4.0 x 18, "
        "NVLink multicast off)")
    assert judged({"value": 294.792}, expected) == {"expected": expected, "fraction_of_expected": 1.0918}
    with_nvls = allreduce_expectation(h200_topology()["pairs"], nvls=True)
    assert with_nvls["value"] == 270.0 and with_nvls["basis"].endswith(
        "; NVLink multicast on: NCCL may reduce in the switches and pass the ring's bound")


def test_unknown_links_give_no_expectation():
    assert expectations(None) == {"p2p": {}, "allreduce": None}
    assert judged({"value": 388.0}, None) == {"expected": None, "fraction_of_expected": None}
    assert judged({"value": None}, pair_expectation(h200_topology()["pairs"]["0->1"]))["fraction_of_expected"] is None


def test_every_p2p_figure_carries_its_pair_s_expectation():
    pair = {"times_s": [0.000692056] * 10, "check": {"ok": True, "detail": "equal"}, "peer_access": True}
    figures = p2p_figures({"mib": 256}, {"pairs": {"0->1": pair, "1->0": pair}}, None,
                          expectations(h200_topology())["p2p"])
    assert [(fig["src"], fig["dst"], fig["value"], fig["expected"]["value"], fig["fraction_of_expected"])
            for fig in figures] == [(0, 1, 387.881, 360.0, 1.0774), (1, 0, 387.881, 360.0, 1.0774)]
    (failed,) = p2p_figures({"mib": 256}, {"error": "RuntimeError: boom"}, None, expectations(h200_topology())["p2p"])
    assert (failed["status"], failed["expected"], failed["fraction_of_expected"]) == ("failed", None, None)


def test_a_slow_all_reduce_reads_below_its_expectation():
    raw = {"world": 2, "backend": "nccl", "per_rank_times_s": [[2e-3] * 10, [2e-3] * 10], "inner": 1, "sets": 1,
           "check": {"ok": True, "detail": "SUM of rank+1 over 2 ranks is 3 everywhere"}}
    fig = figure("allreduce", {"mib": 256}, raw, peak_info("allreduce", {}))
    fig.update(judged(fig, expectations(h200_topology())["allreduce"]))
    assert (fig["value"], fig["expected"]["value"], fig["fraction_of_expected"]) == (134.218, 270.0, 0.4971)
