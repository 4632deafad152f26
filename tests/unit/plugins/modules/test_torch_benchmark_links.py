"""torch_benchmark between GPUs: two H200 joined by NVLink 4.0 x 18 (as their probe reads them), the P2P and
all-reduce figures against the links' expectation, and the `nvls` option's environment."""
from __future__ import annotations

import socket
import sys

import pytest

import fake_pynvml as fake
from test_torch_benchmark import Children
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.results import schema_errors
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import MIB
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import nvml_snapshot
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import read_topology
from ansible_collections.blackwell.pytorch.plugins.modules import torch_benchmark

HOST = socket.gethostname()
NVLS_VARIABLES = ("NCCL_NVLS_ENABLE", "TORCH_SYMM_MEM_DISABLE_MULTICAST", "NVSHMEM_DISABLE_NVLS")


def h200_cards():
    """(torch's view, NVML's view with the links) of the two H200, as the probe child reports them."""
    nvml = fake.FakeNVML([fake.H200_0, fake.H200_1])
    facts = nvml_snapshot(nvml)["gpus"]
    for gpu, extra in zip(facts, read_topology(nvml)):
        gpu.update(extra)
    return [({"index": index, "name": "NVIDIA H200", "capability": [9, 0], "sm_count": 132, "l2_bytes": 60 * MIB,
              "memory_total_mib": 143155, "uuid": gpu["uuid"]}, gpu) for index, gpu in enumerate(facts)]


@pytest.fixture
def h200_children(monkeypatch):
    return Children(cards=h200_cards()).install(monkeypatch)


def test_the_pair_s_figures_carry_the_nvlink_expectation(h200_children, run_module):
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["memcpy", "p2p", "allreduce"]})
    assert status == "exit", result.get("msg")
    doc = result["benchmark"]
    assert schema_errors(doc) == []
    multi = doc["multi_gpu"]
    assert (multi["nvls"], doc["settings"]["nvls"]) == (False, False)
    pair = multi["topology"]["pairs"]["0->1"]
    assert (pair["link"], pair["nvlink_version"], pair["links"], pair["per_link_gbps"], pair["expected_gbps"]) == (
        "nvlink", "4.0", 18, 25.0, 450.0)
    assert len(multi["topology"]["nvlink"]) == 36
    assert multi["topology"]["nvlink"][18] == {"gpu": 1, "link": 0, "state": 1, "version": "4.0", "remote": None}
    # the canned child copies 256 MiB in 10 ms (26.8 GB/s) and all-reduces it in 2 ms (134.2 GB/s)
    assert [(fig["src"], fig["dst"], fig["expected"]["value"], fig["fraction_of_expected"])
            for fig in multi["figures"]["p2p"]] == [(0, 1, 360.0, 0.0746), (1, 0, 360.0, 0.0746)]
    allreduce = multi["figures"]["allreduce"]
    assert (allreduce["expected"]["value"], allreduce["fraction_of_expected"], allreduce["nvls"]) == (
        270.0, 0.4971, False)
    device = doc["devices"][1]
    assert (device["nvml"]["pci_bus_id"], device["nvml"]["enforced_power_limit_w"]) == ("0000:00:07.0", 700.0)
    multi_call = h200_children.calls[-1]
    assert [multi_call["env"][name] for name in NVLS_VARIABLES] == ["0", "1", "1"]


def test_a_pair_below_its_expectation_fails_the_gate_with_the_links(h200_children, run_module):
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["p2p"],
                                                  "gates": {"p2p": {"min_fraction_of_expected": 0.75}}})
    assert status == "fail"
    assert [(failure["gpu_index"], failure["measured"]) for failure in result["failed_gates"]] == [
        ("0->1", 0.0746), ("1->0", 0.0746)]
    assert result["msg"].startswith(
        "2 benchmark gate(s) failed on %s: p2p on GPU 0->1 (NVIDIA H200 -> NVIDIA H200): min_fraction_of_expected "
        "0.75: measured 0.0746 < bound 0.75, 26.8435 GB/s, expected 360.0 GB/s (topology: NVLink 4.0 x 18 active "
        "links x 25 GB/s); p2p on GPU 1->0" % HOST)


def test_nvls_true_measures_the_multi_gpu_tests_with_nvlink_multicast(h200_children, run_module):
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["memcpy", "allreduce"],
                                                  "nvls": True})
    assert status == "exit", result.get("msg")
    multi = result["benchmark"]["multi_gpu"]
    assert multi["nvls"] is True and multi["figures"]["allreduce"]["nvls"] is True
    assert multi["figures"]["allreduce"]["expected"]["basis"].endswith(
        "; NVLink multicast on: NCCL may reduce in the switches and pass the ring's bound")
    device_call, multi_call = h200_children.calls[1], h200_children.calls[-1]
    assert [multi_call["env"][name] for name in NVLS_VARIABLES] == [None, None, None]
    assert [device_call["env"][name] for name in NVLS_VARIABLES] == ["0", "1", "1"]


def test_without_nvml_there_is_no_topology_and_no_expectation(monkeypatch, run_module):
    Children(cards=h200_cards(), nvml=False).install(monkeypatch)
    status, result = run_module(torch_benchmark, {"python": sys.executable, "tests": ["p2p", "allreduce"]})
    multi = result["benchmark"]["multi_gpu"]
    assert multi["topology"] is None
    assert [fig["expected"] for fig in multi["figures"]["p2p"]] == [None, None]
    assert multi["figures"]["allreduce"]["fraction_of_expected"] is None
