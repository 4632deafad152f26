"""The link gates on real-looking readings: PCIe replays and AER errors while the benchmark ran (its device entry's
`counters`), and an NVLink link that is down beside links that are up (two H200, 18 links each)."""
from __future__ import annotations

import pytest

import fake_nvml_health as fh
import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates

JOURNAL = {"source": "journal", "complete": True, "xids": [], "error": None}
H200_0 = dict(fake.H200_0, minor=0, pstate=0, utilization=0, gpu_max_gen=5, remap=(0, 0, 0, 0),
              retired_pending=fake.NS, retired={0: fake.NS, 1: fake.NS}, ecc_errors={0: 0, 1: 0})
H200_1 = dict(H200_0, uuid=fake.H200_1["uuid"], bus_id=fake.H200_1["bus_id"], minor=1,
              p2p_nvlink=fake.H200_1["p2p_nvlink"])
LABEL_1 = "ws1: GPU 1 (NVIDIA H200, 0000:00:07.0): "
H200_COUNTERS = {"bus_id": "0000:00:07.0", "pcie_replay": {"before": 0, "after": 0, "delta": 0}, "aer": None}


def reading(*gpus):
    result = nvml_health(fh.HealthNVML(list(gpus)))
    result["hostname"] = "ws1"
    result["kernel_log"] = dict(JOURNAL)
    return result


def benchmark(counters, seconds=41.3, uuid=H200_1["uuid"]):
    return {"devices": [{"index": 1, "uuid": uuid, "seconds": seconds, "counters": counters, "figures": {}}]}


def verdict(result, gate, gpu=1):
    return result["gpus"][gpu]["gates"][gate]


def test_the_h200_pair_passes_both_link_gates():
    result = health_gates.evaluate(reading(H200_0, H200_1), host="ws1", benchmark=benchmark(H200_COUNTERS))
    assert result["passed"] and result["unknown"] == []
    assert verdict(result, "pcie_replay") == {
        "status": "passed", "text": "PCIe replays +0 during the benchmark (41 s); AER counters not in sysfs"}
    assert verdict(result, "nvlink") == {"status": "passed", "text": "18 of 18 NVLink links active (NVLink 4.0)"}
    assert verdict(result, "pcie_replay", 0)["text"] == "no PCIe replay since the driver loaded"


def test_a_down_link_beside_active_ones_fails_naming_gpu_and_link():
    links = [(1, 6, fake.NOT_REPORTED)] * 18
    links[5] = (0, 6, fake.NOT_REPORTED)
    result = health_gates.evaluate(reading(H200_0, dict(H200_1, nvlink=links)), host="ws1")
    assert result["failures"] == [
        LABEL_1 + "NVLink 5 is down: 17 of 18 links active (nvidia-smi nvlink --status -i 1 shows each link; a link "
        "down on a bridge or baseboard needs the card reseated or the board serviced)"]
    links[11] = (0, 6, fake.NOT_REPORTED)
    text = verdict(health_gates.evaluate(reading(H200_0, dict(H200_1, nvlink=links))), "nvlink")["text"]
    assert text.startswith("NVLink 5, 11 are down: 16 of 18 links active")


def test_no_link_up_is_no_bridge_not_a_fault():
    """An A100 PCIe without its NVLink bridge lists 12 links, all inactive."""
    result = health_gates.evaluate(reading(dict(H200_0, nvlink=[(0, 4, fake.NOT_REPORTED)] * 12)), host="ws1")
    assert result["passed"]
    assert verdict(result, "nvlink", 0)["text"] == "no NVLink link active (12 listed: no bridge or switch connected)"


def test_replays_above_the_bound_fail_with_the_rate():
    counters = dict(H200_COUNTERS, pcie_replay={"before": 112, "after": 149, "delta": 37})
    result = health_gates.evaluate(reading(H200_0, H200_1), host="ws1", benchmark=benchmark(counters))
    assert result["failures"] == [
        LABEL_1 + "PCIe replay counter rose by 37 during the benchmark (41 s, 54 a minute), expected at most 8: the "
        "link resends packets it lost; reseat the card, check its slot or riser and the firmware's PCIe settings"]
    # the bound is the user's
    loose = health_gates.evaluate(reading(H200_0, H200_1), {"pcie_replay_max": "40"}, "ws1", benchmark(counters))
    assert loose["passed"] and loose["options"]["pcie_replay_max"] == 40
    assert health_gates.evaluate(reading(H200_0, H200_1), {"pcie_replay": False}, "ws1", benchmark(counters))["passed"]


def test_a_new_aer_nonfatal_error_fails_and_correctable_ones_are_said():
    aer = {"correctable": {"before": 8, "after": 11, "delta": 3}, "nonfatal": {"before": 0, "after": 1, "delta": 1},
           "fatal": {"before": 0, "after": 0, "delta": 0}}
    counters = dict(H200_COUNTERS, aer=aer)
    result = health_gates.evaluate(reading(H200_0, H200_1), host="ws1", benchmark=benchmark(counters),
                                   stored="2026-11-20T08:00:00Z")
    assert result["failures"] == [
        LABEL_1 + "1 new AER nonfatal error(s) during the benchmark (41 s, result of 2026-11-20T08:00:00Z) (bus "
        "0000:00:07.0), expected none: see the kernel log's AER lines; reseat the card, check its slot or riser and "
        "the firmware's PCIe settings"]
    calm = dict(aer, nonfatal={"before": 0, "after": 0, "delta": 0})
    assert verdict(health_gates.evaluate(reading(H200_0, H200_1), benchmark=benchmark(dict(counters, aer=calm))),
                   "pcie_replay")["text"] == ("PCIe replays +0 during the benchmark (41 s); AER correctable +3, "
                                              "nonfatal +0, fatal +0")


def test_replays_without_a_benchmark_reading_are_unknown():
    result = health_gates.evaluate(reading(H200_0, dict(H200_1, pcie_replay=5)), host="ws1")
    assert result["passed"] and result["unknown"] == [
        LABEL_1 + "5 PCIe replay(s) since the driver loaded, and no benchmark reading to tell whether they came under "
        "load (the benchmark reads the counters before and after its tests when nvidia-ml-py imports in the stack)"]
    geforce = health_gates.evaluate(reading(dict(fh.RTX_5090_IDLE, pcie_replay=fake.NS)), host="ws1")
    assert verdict(geforce, "pcie_replay", 0) == {"status": "not_supported",
                                                  "text": "PCIe replay counter not supported"}


@pytest.mark.parametrize("bound", [-1, 2.5, True, "many"])
def test_the_replay_bound_is_a_whole_number(bound):
    with pytest.raises(ValueError, match="verify_health_pcie_replay_max must be a whole number of replays, 0 or more"):
        health_gates.evaluate({}, {"pcie_replay_max": bound})
