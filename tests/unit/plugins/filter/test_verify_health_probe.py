# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify_health_probe filter over preflight_facts' health reading answers what a gpu_health call answers on the
same machine (tests/unit/health_machine.py): the reading, the verdict, the textfile's content; another driver,
kernel log mode or textfile directory, a run that benchmarks and bad gate options leave the work to gpu_health."""
from __future__ import annotations

import os

import pytest

import fake_nvml_health as fh
from health_machine import Machine, probe

from ansible_collections.blackwell.pytorch.plugins.filter.verify_health_probe import FilterModule
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health

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


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return Machine(tmp_path, monkeypatch)


def request(kernel_log, textfile_dir, gates=None):
    return {"host": "ws1", "device": "cuda", "kernel_log": kernel_log, "textfile_dir": textfile_dir,
            "gates": GATES if gates is None else gates}


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
