"""A GPU's PCIe link counters: AER files as the kernel writes them, files that are absent (a virtual machine),
NVML's replay counter, and what changed between two readings."""
from __future__ import annotations

import errno
import os

import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import link_counters

# /sys/bus/pci/devices/<bus>/aer_dev_* as Linux 6.8 writes them (drivers/pci/pcie/aer.c).
CORRECTABLE = ("RxErr 0\nBadTLP 2\nBadDLLP 5\nRollover 0\nTimeout 1\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\n"
               "TOTAL_ERR_COR 8\n")
NONFATAL = ("Undefined 0\nDLP 0\nSDES 0\nTLP 0\nFCP 0\nCmpltTO 0\nCmpltAbrt 0\nUnxCmplt 0\nRxOF 0\nMalfTLP 0\n"
            "ECRC 0\nUnsupReq 0\nACSViol 0\nUncorrIntErr 0\nBlockedTLP 0\nAtomicOpBlocked 0\nTLPBlockedErr 0\n"
            "PoisonTLPBlocked 0\nTOTAL_ERR_NONFATAL 0\n")
FATAL = NONFATAL.replace("TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL")


def write_aer(root, bus_id, correctable=CORRECTABLE, nonfatal=NONFATAL, fatal=FATAL):
    path = os.path.join(str(root), "bus", "pci", "devices", bus_id)
    os.makedirs(path, exist_ok=True)
    for name, text in (("aer_dev_correctable", correctable), ("aer_dev_nonfatal", nonfatal), ("aer_dev_fatal", fatal)):
        with open(os.path.join(path, name), "w") as handle:
            handle.write(text)


def test_the_total_line_counts():
    assert link_counters.parse_aer(CORRECTABLE) == 8
    assert link_counters.parse_aer(NONFATAL) == 0


def test_without_a_total_line_the_lines_are_summed():
    assert link_counters.parse_aer("RxErr 1\nBadTLP 2\nBadDLLP 5\n") == 8
    assert link_counters.parse_aer("") is None


def test_aer_counters_of_a_gpu_on_bare_metal(tmp_path):
    write_aer(tmp_path, "0000:18:00.0", nonfatal=NONFATAL.replace("CmpltTO 0", "CmpltTO 1").replace(
        "TOTAL_ERR_NONFATAL 0", "TOTAL_ERR_NONFATAL 1"))
    assert link_counters.read_aer("00000000:18:00.0", str(tmp_path)) == {"correctable": 8, "nonfatal": 1, "fatal": 0}


def test_aer_files_absent_as_in_a_virtual_machine(tmp_path):
    os.makedirs(str(tmp_path / "bus" / "pci" / "devices" / "0000:00:06.0"))
    assert link_counters.read_aer("00000000:00:06.0", str(tmp_path)) is None


def test_an_unreadable_aer_file_is_an_unknown_count():
    def reader(path):
        if path.endswith("aer_dev_fatal"):
            raise OSError(errno.EACCES, "Permission denied")
        return CORRECTABLE if path.endswith("correctable") else NONFATAL
    assert link_counters.read_aer("0000:18:00.0", "/sys", reader) == {"correctable": 8, "nonfatal": 0, "fatal": None}


def test_the_h200_counters_nvml_replay_and_no_aer(tmp_path):
    nvml = fake.FakeNVML([fake.H200_0])
    assert link_counters.read_counters(nvml, fake.H200_0, str(tmp_path)) == {
        "bus_id": "0000:00:06.0", "pcie_replay": 0, "aer": None}


def test_a_replay_counter_nvml_does_not_support(tmp_path):
    write_aer(tmp_path, "0000:01:00.0")
    nvml = fake.FakeNVML([fake.RTX_5090])
    assert link_counters.read_counters(nvml, fake.RTX_5090, str(tmp_path)) == {
        "bus_id": "0000:01:00.0", "pcie_replay": None, "aer": {"correctable": 8, "nonfatal": 0, "fatal": 0}}


def test_what_changed_during_the_load():
    before = {"bus_id": "0000:18:00.0", "pcie_replay": 3, "aer": {"correctable": 8, "nonfatal": 0, "fatal": 0}}
    after = {"bus_id": "0000:18:00.0", "pcie_replay": 40, "aer": {"correctable": 11, "nonfatal": 1, "fatal": None}}
    assert link_counters.counter_changes(before, after) == {
        "bus_id": "0000:18:00.0", "pcie_replay": {"before": 3, "after": 40, "delta": 37},
        "aer": {"correctable": {"before": 8, "after": 11, "delta": 3},
                "nonfatal": {"before": 0, "after": 1, "delta": 1},
                "fatal": {"before": 0, "after": None, "delta": None}}}


def test_no_aer_and_no_first_reading():
    h200 = {"bus_id": "0000:00:06.0", "pcie_replay": 0, "aer": None}
    assert link_counters.counter_changes(h200, h200) == {
        "bus_id": "0000:00:06.0", "pcie_replay": {"before": 0, "after": 0, "delta": 0}, "aer": None}
    assert link_counters.counter_changes(None, h200) is None
    assert link_counters.counter_changes(h200, None)["pcie_replay"] == {"before": 0, "after": None, "delta": None}
