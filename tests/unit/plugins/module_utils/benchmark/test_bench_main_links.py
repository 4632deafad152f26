"""The benchmark child's NVML reads: the probe's facts carry each GPU's NVLink links and peers, the device child
reads the link counters (the H200 pair as a virtual machine showed it: no AER files in sysfs)."""
from __future__ import annotations

import types

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import main as bench_main


def test_the_probe_s_nvml_facts_carry_the_links(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "pynvml", fake.FakeNVML([fake.H200_0, fake.H200_1]))
    gpus, error, driver = bench_main._nvml()
    assert error is None and [gpu["pci_bus_id"] for gpu in gpus] == ["0000:00:06.0", "0000:00:07.0"]
    assert driver == fake.FakeNVML([fake.H200_0]).nvmlSystemGetDriverVersion()
    assert [gpu["enforced_power_limit_w"] for gpu in gpus] == [700.0, 700.0]
    assert [len(gpu["nvlink"]) for gpu in gpus] == [18, 18]
    assert gpus[1]["nvlink"][17] == {"link": 17, "state": 1, "version": "4.0", "remote": None}
    assert [gpu["nvlink_p2p"] for gpu in gpus] == [["0000:00:07.0"], ["0000:00:06.0"]]


def test_a_topology_read_that_fails_leaves_the_facts(monkeypatch):
    class Broken(fake.FakeNVML):
        def nvmlDeviceGetNvLinkState(self, h, link):
            raise RuntimeError("an nvidia-ml-py answering in another shape")

    monkeypatch.setitem(__import__("sys").modules, "pynvml", Broken([fake.H200_0]))
    (gpu,), error, _driver = bench_main._nvml()
    assert error is None and gpu["name"] == "NVIDIA H200" and "nvlink" not in gpu


def test_the_device_child_reads_the_counters_through_its_sampler(tmp_path):
    sampler = types.SimpleNamespace(nvml=fake.FakeNVML([fake.H200_1]), handle=fake.H200_1)
    assert bench_main._counters(sampler, str(tmp_path)) == {"bus_id": "0000:00:07.0", "pcie_replay": 0, "aer": None}
    assert bench_main._counters(None) is None
