"""gpu_health's readers: Xid lines as drivers log them, the kernel log's sources, NVML's health fields."""
from __future__ import annotations

import errno

import pytest

import fake_nvml_health as fh
import fake_pynvml as fake
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import gpu_health

# Xid lines as the open and proprietary drivers write them (550 to 580), with dmesg's and the journal's prefixes.
XID_LINES = [
    ("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, name=python3, Graphics SM Warp Exception on "
     "(GPC 0, TPC 1, SM 0): Out Of Range Address", "0000:3b:00", 13, "4242", "python3"),
    ("2026-11-26T10:00:01+0000 ws1 kernel: NVRM: Xid (PCI:0000:3b:00): 31, pid=1811, name=pt_main_thread, "
     "Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f1e_2c000000. "
     "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ", "0000:3b:00", 31, "1811", "pt_main_thread"),
    ("NVRM: Xid (PCI:0000:18:00): 43, pid=2210, name=python, Ch 00000010", "0000:18:00", 43, "2210", "python"),
    ("NVRM: Xid (PCI:0000:18:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) "
     "has been detected on GPU in the framebuffer at partition 6, subpartition 0.", "0000:18:00", 48, "'<unknown>'",
     "<unknown>"),
    ("NVRM: Xid (PCI:0000:18:00): 63, pid='<unknown>', name=<unknown>, Row Remapper: New row (0x00000000000b8b6d) "
     "was marked for remapping, reset gpu to activate.", "0000:18:00", 63, "'<unknown>'", "<unknown>"),
    ("NVRM: Xid (PCI:0000:18:00): 64, pid='<unknown>', name=<unknown>, Row Remapper Error: (0x0000000bf8b6d) - "
     "All reserved rows for bank are remapped", "0000:18:00", 64, "'<unknown>'", "<unknown>"),
    ("NVRM: Xid (PCI:0000:2a:00): 74, pid=3310, name=torchrun, NVLink: fatal error detected on link 3(0x0, 0x0, "
     "0x10000, 0x0, 0x0, 0x0, 0x0)", "0000:2a:00", 74, "3310", "torchrun"),
    ("[ 8811.000001] NVRM: Xid (PCI:0000:3b:00): 79, pid=1452, name=python3, GPU has fallen off the bus.",
     "0000:3b:00", 79, "1452", "python3"),
    ("NVRM: Xid (PCI:0000:07:00 GPU-I:05): 94, pid=9120, name=python3, Contained: SM (0x1). RST: No, D-RST: No",
     "0000:07:00", 94, "9120", "python3"),
    ("NVRM: Xid (PCI:0000:07:00): 95, pid=9120, name=python3, Uncontained: FBHUB. RST: Yes, D-RST: No",
     "0000:07:00", 95, "9120", "python3"),
    # an older driver: no pid or name
    ("NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.", "0000:01:00", 79, None, None),
]


@pytest.mark.parametrize("line, pci, xid, pid, process", XID_LINES)
def test_xid_lines_parse(line, pci, xid, pid, process):
    (record,) = gpu_health.parse_xids([line])
    assert (record["pci"], record["xid"], record["pid"], record["process"]) == (pci, xid, pid, process)
    assert record["text"] and not record["text"].startswith(",")


def test_other_kernel_lines_are_no_xid():
    lines = ["NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  Release Build",
             "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:762)",
             "nvidia-modeset: Loading NVIDIA Kernel Mode Setting Driver for UNIX platforms  580.159.04",
             "pcieport 0000:00:01.1: AER: Corrected error received: 0000:3b:00.0"]
    assert gpu_health.parse_xids(lines) == []
    eight_digit = "NVRM: Xid (PCI:00000000:3B:00): 79, pid=1, name=x, GPU has fallen off the bus."
    assert gpu_health.parse_xids([eight_digit])[0]["pci"] == "0000:3b:00"


def test_kmsg_records():
    record = "4,1190,8811000001,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1452, name=python3, GPU has fallen off the bus.\n"
    assert gpu_health.kmsg_message(record).endswith("fallen off the bus.")
    assert gpu_health.kmsg_first_seq(record) == 1190
    assert gpu_health.kmsg_first_seq("garbage") is None
    assert gpu_health.kmsg_message("no header") == "no header"


JOURNAL = "\n".join([
    "2026-11-26T09:58:00+0000 ws1 kernel: Linux version 6.1.0-28-amd64",
    "2026-11-26T10:00:01+0000 ws1 kernel: " + XID_LINES[7][0].split("] ", 1)[1],
    "2026-11-26T10:00:02+0000 ws1 kernel: " + XID_LINES[2][0],
])


def _no_kmsg():
    raise AssertionError("the journal answered; /dev/kmsg is not read")


def test_the_journal_first():
    log = gpu_health.read_kernel_log(lambda: (0, JOURNAL, ""), _no_kmsg)
    assert (log["source"], log["complete"], log["error"]) == ("journal", True, None)
    assert [(x["pci"], x["xid"]) for x in log["xids"]] == [("0000:3b:00", 79), ("0000:18:00", 43)]


def _kmsg(records):
    return lambda: list(records)


def _denied(code):
    def read():
        raise OSError(code, "denied")
    return read


@pytest.mark.parametrize("journal, why", [
    (None, "journalctl: not installed"),
    (lambda: (1, "", "Failed to get boot: No such boot ID in journal"), "journalctl -k -b: exit 1: Failed to get boot"),
    # a container's journal holds no kernel message
    (lambda: (0, "-- No entries --\n", ""), "the journal holds no kernel message of this boot"),
])
def test_the_ring_buffer_when_the_journal_has_nothing(journal, why):
    records = ["6,0,0,-;Linux version 6.1.0-28-amd64\n", "4,57,1000,-;" + XID_LINES[9][0] + "\n"]
    run = journal if journal is not None else (lambda: None)
    log = gpu_health.read_kernel_log(run, _kmsg(records))
    assert (log["source"], log["complete"]) == ("/dev/kmsg", True)
    assert [x["xid"] for x in log["xids"]] == [95]
    # without the ring buffer either: unknown, with both reasons
    log = gpu_health.read_kernel_log(run, _denied(errno.EACCES))
    assert log["source"] is None and log["xids"] == []
    assert why in log["error"] and "/dev/kmsg: permission denied" in log["error"]


def test_a_ring_buffer_that_wrapped_is_incomplete():
    log = gpu_health.read_kernel_log(None, _kmsg(["6,91822,4000000,-;usb 1-1: new device\n"]))
    assert (log["source"], log["complete"], log["xids"]) == ("/dev/kmsg", False, [])


@pytest.mark.parametrize("code, text", [(errno.EPERM, "not permitted"), (errno.ENOENT, "no such device")])
def test_kmsg_errors_are_named(code, text):
    assert gpu_health.read_kernel_log(None, _denied(code))["error"] == "/dev/kmsg: " + text
    assert gpu_health.read_kernel_log(None, _kmsg([]))["error"] == "/dev/kmsg: no record"


def test_read_kmsg_file_reads_until_the_end(tmp_path):
    path = tmp_path / "kmsg"
    path.write_text("6,0,0,-;Linux version\n")
    assert gpu_health.read_kmsg_file(str(path)) == ["6,0,0,-;Linux version\n"]
    with pytest.raises(OSError) as err:
        gpu_health.read_kmsg_file(str(tmp_path / "absent"))
    assert err.value.errno == errno.ENOENT


def test_healthy_h100():
    reading = gpu_health.nvml_health(fh.HealthNVML([fh.H100_HEALTHY]))
    assert reading["nvml_error"] is None
    (gpu,) = reading["gpus"]
    assert (gpu["name"], gpu["pci_bus_id"], gpu["bus_id"], gpu["device"]) == (
        "NVIDIA H100 80GB HBM3", "0000:18:00.0", "00000000:18:00.0", "nvidia0")
    assert (gpu["pcie_gen_current"], gpu["pcie_gen_max"], gpu["pcie_gen_gpu_max"], gpu["pcie_width_current"],
            gpu["pcie_width_max"], gpu["pstate"], gpu["utilization_gpu"]) == (5, 5, 5, 16, 16, 0, 0)
    assert gpu["remapped_rows"] == {"corrected": 0, "uncorrected": 0, "pending": False, "failure": False}
    assert gpu["retired_pages"] is None
    assert (gpu["ecc_uncorrected_volatile"], gpu["ecc_uncorrected_aggregate"]) == (0, 0)
    assert gpu["unsupported"] == ["retired_pages_pending", "retired_pages_sbe", "retired_pages_dbe"]
    assert gpu["errors"] == {}
    assert gpu["pcie_replay"] == 0 and len(gpu["nvlink"]) == 18
    assert gpu["nvlink"][17] == {"link": 17, "state": 1, "version": "4.0", "remote": None}


def test_geforce_fields_not_supported_and_errors_kept_apart():
    sick = dict(fh.RTX_5090_IDLE, ecc_errors={0: fh.NVMLError_Unknown, 1: fake.NS})
    (gpu,) = gpu_health.nvml_health(fh.HealthNVML([sick]))["gpus"]
    assert gpu["remapped_rows"] is None and gpu["ecc_uncorrected_volatile"] is None
    assert "remapped_rows" in gpu["unsupported"] and "ecc_uncorrected_aggregate" in gpu["unsupported"]
    assert gpu["errors"] == {"ecc_uncorrected_volatile": "NVMLError_Unknown: Unknown Error"}
    assert (gpu["pcie_gen_current"], gpu["pstate"], gpu["device"]) == (1, 8, "nvidia1")
    assert gpu["nvlink"] is None and "nvlink" in gpu["unsupported"]


def test_retired_pages_on_a_pre_ampere_gpu():
    volta = dict(fh.H100_HEALTHY, name="Tesla V100-SXM2-32GB", remap=fake.NS, retired_pending=1,
                 retired={0: [0x1a2b000, 0x1a2c000], 1: [0x3f00000]})
    (gpu,) = gpu_health.nvml_health(fh.HealthNVML([volta]))["gpus"]
    assert gpu["retired_pages"] == {"pending": True, "sbe": 2, "dbe": 1}
    assert gpu["remapped_rows"] is None and gpu["unsupported"] == ["remapped_rows"]


def test_an_nvlink_link_that_is_down_and_the_replay_counter_are_read():
    links = [(1, 6, fake.NOT_REPORTED)] * 18
    links[5] = (0, 6, fake.NOT_REPORTED)
    (gpu,) = gpu_health.nvml_health(fh.HealthNVML([dict(fh.H100_HEALTHY, nvlink=links, pcie_replay=37)]))["gpus"]
    assert gpu["pcie_replay"] == 37 and gpu["nvlink"][5] == {"link": 5, "state": 0, "version": "4.0", "remote": None}
    assert [link["state"] for link in gpu["nvlink"]].count(1) == 17


def test_an_nvidia_ml_py_without_the_nvlink_calls_is_not_supported():
    class Old(fh.HealthNVML):
        nvmlDeviceGetNvLinkState = property()  # reading the attribute raises AttributeError
    (gpu,) = gpu_health.nvml_health(Old([fh.H100_HEALTHY]))["gpus"]
    assert gpu["nvlink"] is None and "nvlink" in gpu["unsupported"]


def test_an_old_nvidia_ml_py_without_a_call():
    class Old(fh.HealthNVML):
        nvmlDeviceGetRemappedRows = property()  # reading the attribute raises AttributeError
    (gpu,) = gpu_health.nvml_health(Old([fh.H100_HEALTHY]))["gpus"]
    assert "remapped_rows" in gpu["unsupported"]


@pytest.mark.parametrize("nvml, error", [
    (None, "nvidia-ml-py is not installed"),
    (fh.HealthNVML([], init_error=fake.NVMLError_DriverNotLoaded), "NVMLError_DriverNotLoaded: Driver Not Loaded"),
])
def test_no_nvml(nvml, error):
    assert gpu_health.nvml_health(nvml) == {"gpus": [], "nvml_error": error}
