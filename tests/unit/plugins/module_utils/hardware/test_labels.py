from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import gpu_label, model_label, slot_label

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120",
           "pci_bus_id": "0000:01:00.0"}
H100 = {"index": 3, "name": "NVIDIA H100 80GB HBM3", "pci_bus_id": "0000:18:00.0"}


def test_each_label_of_one_gpu():
    assert gpu_label(RTX5090) == "GPU 0 (NVIDIA GeForce RTX 5090, sm_120)"
    assert model_label(RTX5090) == "NVIDIA GeForce RTX 5090 (sm_120)"
    assert slot_label(RTX5090) == "GPU 0 (NVIDIA GeForce RTX 5090, 0000:01:00.0)"


@pytest.mark.parametrize("gpu", [{"compute_capability": "12.0"}, {"sm": "sm_120"}, {"compute_capability": "12.0", "sm": "sm_120"}])
def test_the_capability_reads_either_key(gpu):
    entry = dict(gpu, index=1, name="NVIDIA RTX PRO 6000 Blackwell Workstation Edition")
    assert gpu_label(entry) == "GPU 1 (NVIDIA RTX PRO 6000 Blackwell Workstation Edition, sm_120)"
    assert model_label(entry) == "NVIDIA RTX PRO 6000 Blackwell Workstation Edition (sm_120)"


def test_missing_keys_are_named_not_raised():
    # sysfs facts of an unknown PCI id: no capability, no name; the bus id stands in for the index
    sysfs = {"pci_bus_id": "0000:41:00.0"}
    assert gpu_label(sysfs) == "GPU 0000:41:00.0 (unknown GPU, capability unknown)"
    assert model_label(sysfs) == "GPU (capability unknown)"
    assert slot_label({"index": 2}) == "GPU 2 (unknown model, ?)"
    assert gpu_label({}) == "GPU ? (unknown GPU, capability unknown)"


def test_index_zero_is_an_index():
    assert gpu_label(dict(H100, index=0)).startswith("GPU 0 (")
    assert slot_label(H100) == "GPU 3 (NVIDIA H100 80GB HBM3, 0000:18:00.0)"
