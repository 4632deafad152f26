# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""preflight_facts' health option against gpu_health on the same machine: one NVML session gives the GPU facts and
the health reading gpu_health gives, and the verify_health_probe filter over that reading answers what a gpu_health
call answers (the reading, the verdict, the textfile's content). NVML is a fake pynvml, the journal a journalctl
stand-in script on PATH, sysfs and procfs files under a temporary directory."""
from __future__ import annotations

import os

import pytest

import fake_nvml_health as fh
import fake_pynvml as fake
from sysfs_tree import OPEN_LINE, add_pci

from ansible_collections.blackwell.pytorch.plugins.filter.health_probe import FilterModule
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health, preflight_facts

PROBE = FilterModule().filters()["verify_health_probe"]
XID79 = "NVRM: Xid (PCI:0000:18:00): 79, pid=1452, name=python3, GPU has fallen off the bus."
XID13 = "NVRM: Xid (PCI:0000:01:00): 13, pid=2210, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1)."
SICK = dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0))
# The verify role's gates as its variables give them (text where -e gives text).
GATES = {"pcie_gen": True, "pcie_width": True, "xid": True, "xid_ignore": ["13", 31, 43, 45], "remapped_rows": "yes",
         "ecc_volatile": True, "ecc_aggregate": "false", "require_known": False}
STORED = {"written": "2026-11-20T08:00:00Z", "benchmark": {"devices": [{"index": 1, "uuid": fh.RTX_5090_IDLE["uuid"], "figures": {
    "gemm_bf16": {"telemetry": {"pcie_gen": {"min": 1, "median": 5, "max": 5},
                                "pcie_width": {"min": 16, "median": 16, "max": 16}}}}}]}}


class CountingNVML(fh.HealthNVML):
    """HealthNVML that counts its sessions."""

    inits = 0

    def nvmlInit(self):
        super().nvmlInit()
        self.inits += 1


@pytest.fixture
def machine(tmp_path, monkeypatch):
    sys_root = tmp_path / "sys"
    (sys_root / "bus" / "pci" / "devices").mkdir(parents=True)
    (sys_root / "firmware").mkdir()
    (tmp_path / "lib_modules").mkdir()
    proc = tmp_path / "proc_version"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    for name, value in (("SYS_ROOT", sys_root), ("PROC_VERSION", proc), ("FIRMWARE_DIR", sys_root / "firmware"),
                        ("MODULES_ROOT", tmp_path / "lib_modules"), ("APT_LISTS", tmp_path / "apt"),
                        ("DNF_CACHE", tmp_path / "dnf"), ("KMSG", tmp_path / "kmsg")):
        monkeypatch.setattr(preflight_facts, name, str(value))
    monkeypatch.setattr(gpu_health, "KMSG", str(tmp_path / "kmsg"))

    class Machine:
        textfile_dir = tmp_path / "textfile"

        def gpus(self, *gpus, **kwargs):
            nvml = CountingNVML(list(gpus), **kwargs)
            for gpu in gpus:
                add_pci(sys_root, gpu["bus_id"][4:].lower(), 0x10DE, gpu["pci_device_id"] >> 16, 0x030200)
            proc.write_text(OPEN_LINE)
            (sys_root / "module" / "nvidia").mkdir(parents=True, exist_ok=True)
            monkeypatch.setattr(preflight_facts, "pynvml", nvml)
            monkeypatch.setattr(gpu_health, "pynvml", nvml)
            return nvml

        def journal(self, *messages):
            script = bin_dir / "journalctl"
            text = "\n".join("2026-11-26T10:00:0%d+0000 ws1 kernel: %s" % (n, m) for n, m in enumerate(messages))
            script.write_text("#!/bin/sh\n/bin/cat <<'END'\n%s\nEND\n" % text)
            script.chmod(0o755)

        def textfile(self):
            path = self.textfile_dir / "blackwell_pytorch_health.prom"
            return path.read_text() if path.exists() else None

    return Machine()


def probe(run_module, health):
    status, result = run_module(preflight_facts, {"health": health} if health is not None else {})
    assert status == "exit" and result["changed"] is False, result
    return result


def request(kernel_log, textfile_dir, gates=None):
    return {"host": "ws1", "device": "cuda", "kernel_log": kernel_log, "textfile_dir": textfile_dir,
            "gates": GATES if gates is None else gates}


def test_one_nvml_session_reads_the_facts_and_the_health(machine, run_module):
    nvml = machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0", XID79)
    result = probe(run_module, {"kernel_log": "auto"})
    assert (nvml.inits, nvml.shutdown_calls) == (1, 1)  # one nvmlInit, one nvmlShutdown
    assert result["ansible_facts"]["nvidia_driver"]["source"] == "nvml"
    health = result["health"]
    assert result["preflight"]["health"] == health
    assert (health["kernel_log"], health["textfile_dir"], health["driver_version"], health["textfile"]) == (
        "auto", "", "580.159.04", None)
    assert [(x["pci"], x["xid"]) for x in health["reading"]["kernel_log"]["xids"]] == [("0000:18:00", 79)]
    # the same reading a gpu_health call gives on this machine
    assert health["reading"] == run_module(gpu_health, {"kernel_log": "auto"})[1]["health"]


def test_no_health_unless_asked_and_nvidia_ml_py_imports(machine, run_module, monkeypatch):
    nvml = machine.gpus(fh.H100_HEALTHY)
    result = probe(run_module, None)
    assert (result["health"], result["preflight"]["health"], nvml.inits) == (None, None, 1)
    monkeypatch.setattr(preflight_facts, "pynvml", None)
    result = probe(run_module, {"kernel_log": "never"})
    assert result["health"] is None and result["ansible_facts"]["nvidia_driver"]["source"] == "procfs"


def test_nvml_that_does_not_start_is_reported_as_gpu_health_reports_it(machine, run_module):
    machine.gpus(fh.H100_HEALTHY, init_error=fake.NVMLError_DriverNotLoaded)
    result = probe(run_module, {"kernel_log": "never"})
    reading = result["health"]["reading"]
    assert reading["gpus"] == [] and reading["nvml_error"].startswith("NVMLError_DriverNotLoaded")
    assert reading == run_module(gpu_health, {"kernel_log": "never"})[1]["health"]
    assert result["health"]["driver_version"] == result["ansible_facts"]["nvidia_driver"]["version"] == "580.159.04"


def test_the_textfile_read_is_its_current_text(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    asked = {"kernel_log": "never", "textfile_dir": str(machine.textfile_dir)}
    assert probe(run_module, asked)["health"]["textfile"] is None  # no directory yet
    machine.textfile_dir.mkdir()
    (machine.textfile_dir / "blackwell_pytorch_health.prom").write_text("# old\n")
    assert probe(run_module, asked)["health"]["textfile"] == "# old\n"


def test_a_bad_kernel_log_mode_is_refused(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    status, result = run_module(preflight_facts, {"health": {"kernel_log": "dmesg"}})
    assert status == "fail" and "kernel_log" in result["msg"]


@pytest.mark.parametrize("gpus, lines, stored", [
    ((SICK,), ("Linux version 6.8.0", XID79), {}),
    ((fh.H100_HEALTHY, fh.RTX_5090_IDLE), ("Linux version 6.8.0", XID13), STORED),
    ((fh.RTX_5090_IDLE,), ("Linux version 6.8.0",), {}),
], ids=["sick-h100-xid79", "h100-and-idle-5090-stored-link", "idle-5090-no-telemetry"])
def test_the_filter_answers_what_gpu_health_answers(machine, run_module, gpus, lines, stored):
    machine.gpus(*gpus)
    machine.journal(*lines)
    directory = str(machine.textfile_dir)
    first = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    status, called = run_module(gpu_health, {"kernel_log": "journal", "gates": GATES, "host": "ws1",
                                             "stored_result": stored, "textfile_dir": directory})
    assert status == "exit" and called["textfile"]["written"] is True
    decision = {"reuse": True, "stored": stored}
    judged = PROBE(first["health"], decision, first["ansible_facts"]["nvidia_driver"], request("journal", directory))
    assert judged["use"] is True, judged["reason"]
    assert judged["health"] == called["health"] and judged["verdict"] == called["verdict"]
    assert judged["verdict"]["passed"] is (gpus[0] is not SICK)
    assert judged["textfile"] == {"path": os.path.join(directory, "blackwell_pytorch_health.prom"),
                                  "content": machine.textfile(), "write": True}  # absent when the probe read it
    # the next run: the probe reads the file gpu_health wrote, nothing is to be written
    again = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    judged = PROBE(again["health"], decision, again["ansible_facts"]["nvidia_driver"], request("journal", directory))
    assert judged["use"] is True and judged["textfile"]["write"] is False


@pytest.mark.parametrize("gates", [{"xid": "maybe"}, dict(GATES, xid_ignore=["thirteen"]), dict(GATES, bogus=True)],
                         ids=["not-a-boolean", "not-an-xid", "unknown-option"])
def test_bad_gate_options_are_left_to_gpu_health_which_refuses_them(machine, run_module, gates):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, {"kernel_log": "auto"})
    judged = PROBE(result["health"], {"reuse": True, "stored": {}}, result["ansible_facts"]["nvidia_driver"],
                   request("auto", "", gates))
    assert judged["use"] is False and judged["reason"].startswith("the gates' options: ")
    status, failed = run_module(gpu_health, {"kernel_log": "auto", "gates": gates, "host": "ws1"})
    assert status == "fail" and failed["msg"]


@pytest.mark.parametrize("change, why", [
    ({"driver": {"version": "580.95.05"}}, "the probe read the health under driver 580.159.04, 580.95.05 is loaded now"),
    ({"kernel_log": "kmsg"}, "the probe read the kernel log with 'auto', not 'kmsg'"),
    ({"textfile_dir": "/var/lib/node_exporter/textfile"},
     "the probe read the textfile directory '', not '/var/lib/node_exporter/textfile'"),
    ({"reuse": False}, "the stack is verified in this run: its health is read after the benchmark"),
], ids=["another-driver", "another-kernel-log-mode", "another-textfile-dir", "a-run-that-benchmarks"])
def test_another_driver_mode_or_directory_leaves_it_to_gpu_health(machine, run_module, change, why):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, {"kernel_log": "auto"})
    judged = PROBE(result["health"], {"reuse": change.get("reuse", True), "stored": {}},
                   change.get("driver", result["ansible_facts"]["nvidia_driver"]),
                   request(change.get("kernel_log", "auto"), change.get("textfile_dir", "")))
    assert (judged["use"], judged["reason"]) == (False, why)
    assert judged["verdict"] == {} and judged["textfile"]["write"] is False
