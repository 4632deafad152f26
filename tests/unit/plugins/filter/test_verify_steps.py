# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify_steps filter over preflight_facts' real health reading (tests/unit/health_machine.py): the probe's
reading serves a stored result with one textfile write when the file is absent and no health task once gpu_health
wrote it; without the reading a gpu_health call; a run that benchmarks reads the health in benchmark.yml."""
from __future__ import annotations

import os

import pytest
from ansible.errors import AnsibleFilterError

import fake_nvml_health as fh
from health_machine import Machine, probe

from ansible_collections.blackwell.pytorch.plugins.filter.verify_steps import FilterModule, judged_health
from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import prometheus

STEPS = FilterModule().filters()["verify_steps"]
GATES = {"pcie_gen": True, "pcie_width": True, "xid": True, "xid_ignore": [13, 31, 43, 45], "remapped_rows": "yes",
         "ecc_volatile": True, "ecc_aggregate": False, "require_known": "false"}
STANDS = {"reuse": True, "stored": {"passed": True, "written": "2026-11-20T08:00:00Z", "benchmark": {}}}


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return Machine(tmp_path, monkeypatch)


def request(textfile_dir):
    return {"host": "ws1", "device": "cuda", "kernel_log": "journal", "textfile_dir": textfile_dir, "gates": GATES}


def files(answer):
    return [step["file"] for step in answer]


def test_the_probe_reading_serves_with_at_most_one_health_task(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    directory = str(machine.textfile_dir)
    first = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    driver = first["ansible_facts"]["nvidia_driver"]
    got = STEPS(STANDS, first["health"], driver, request(directory), {"health": True, "container": "no"})
    # the decision does not say what the verification textfile holds: it is written too (result_files compares it)
    assert files(got) == ["health_textfile.yml", "verify_textfile.yml", "verdict.yml"]
    assert got[0]["decision"] == STANDS and got[0]["health"]["use"] is True
    assert got[0]["health"]["verdict"]["passed"] is True and got[0]["health"]["textfile"]["write"] is True
    # gpu_health writes the same file; the next probe reads it back and the health step runs no task
    status, called = run_module(gpu_health, {"kernel_log": "journal", "gates": GATES, "host": "ws1",
                                             "stored_result": STANDS["stored"], "textfile_dir": directory})
    assert status == "exit" and called["textfile"]["written"] is True
    again = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    written = {"path": "%s/blackwell_pytorch_verify.prom" % directory, "text": prometheus(STANDS["stored"])}
    got = STEPS(dict(STANDS, textfile=written), again["health"], driver, request(directory),
                {"health": True, "container": True})
    assert files(got) == ["verdict.yml", "container.yml"] and got[0]["health"]["verdict"] == called["verdict"]
    # no textfile directory: nothing to write either
    bare = probe(run_module, {"kernel_log": "journal", "textfile_dir": ""})
    assert files(STEPS(STANDS, bare["health"], driver, request(""), {"health": True})) == ["verdict.yml"]


def test_without_a_serving_reading_gpu_health_reads_and_a_run_reads_it_after_the_benchmark(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, None)
    assert result["health"] is None
    driver = result["ansible_facts"]["nvidia_driver"]
    got = STEPS(STANDS, None, driver, request(""), {"health": "yes"})
    assert files(got) == ["health_read.yml", "verdict.yml"] and got[0]["health"]["use"] is False
    run = STEPS({"reuse": False, "stored": None}, None, driver, request(""), {"health": True})
    assert files(run) == ["benchmark.yml", "verdict.yml"]
    off = STEPS(STANDS, None, driver, request(""), {"health": False})
    assert files(off) == ["verdict.yml"] and off[0]["health"]["use"] is False


def test_a_pending_fingerprint_call_comes_first_and_its_answer_gives_the_rest(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, {"kernel_log": "journal", "textfile_dir": ""})
    driver = result["ansible_facts"]["nvidia_driver"]
    pending = dict(STANDS, call=True)
    got = STEPS(pending, result["health"], driver, request(""), {"health": True, "container": True})
    assert files(got) == ["fingerprint.yml"] and got[0]["health"]["use"] is False
    assert got[0]["health"]["reason"] == "the role's stack_fingerprint call comes first"
    answered = STEPS(pending, result["health"], driver, request(""),
                     {"health": True, "container": True, "fingerprinted": "true"})
    assert files(answered) == ["verdict.yml", "container.yml"] and answered[0]["health"]["use"] is True


def test_bad_arguments_name_the_filter():
    with pytest.raises(AnsibleFilterError, match="^verify_steps: health must be true or false, got 'sometimes'$"):
        STEPS(STANDS, None, {}, request(""), {"health": "sometimes"})
    with pytest.raises(AnsibleFilterError, match="^verify_steps: decision must be a mapping, got list"):
        STEPS([], None, {}, request(""), {})


def test_the_probe_reading_is_judged_only_when_the_steps_need_it():
    """A request the judging refuses (a list) is never looked at while the fingerprint call is pending or with the
    health off: the filter's judging is not called; once the health is read after the call, it is."""
    pending = dict(STANDS, call=True)
    assert files(STEPS(pending, None, {}, ["not", "a", "request"], {"health": True})) == ["fingerprint.yml"]
    assert files(STEPS(STANDS, None, {}, ["not", "a", "request"], {"health": False})) == ["verdict.yml"]
    with pytest.raises(AnsibleFilterError, match="^verify_steps: request must be a mapping, got list"):
        STEPS(pending, None, {}, ["not", "a", "request"], {"health": True, "fingerprinted": True})
    with pytest.raises(AnsibleFilterError, match="^verify_steps: request must be a mapping, got list"):
        STEPS({"reuse": False, "stored": None}, None, {}, ["not", "a", "request"], {"health": True})


# The judging of the probe's reading (judged_health): what a gpu_health call answers on the same machine; another
# driver, kernel log mode or textfile directory, a run that benchmarks and bad gate options leave it to gpu_health.
XID79 = "NVRM: Xid (PCI:0000:18:00): 79, pid=1452, name=python3, GPU has fallen off the bus."
XID13 = "NVRM: Xid (PCI:0000:01:00): 13, pid=2210, name=python3, Graphics SM Warp Exception on (GPC 0, TPC 1)."
SICK = dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0))
# The verify role's gates as its variables give them (text where -e gives text).
JUDGED_GATES = {"pcie_gen": True, "pcie_width": True, "xid": True, "xid_ignore": ["13", 31, 43, 45],
                "remapped_rows": "yes", "ecc_volatile": True, "ecc_aggregate": "false", "require_known": False}
STORED = {"written": "2026-11-20T08:00:00Z", "benchmark": {"devices": [{"index": 1, "uuid": fh.RTX_5090_IDLE["uuid"], "figures": {
    "gemm_bf16": {"telemetry": {"pcie_gen": {"min": 1, "median": 5, "max": 5},
                                "pcie_width": {"min": 16, "median": 16, "max": 16}}}}}]}}


def judged_request(kernel_log, textfile_dir, gates=None):
    return {"host": "ws1", "device": "cuda", "kernel_log": kernel_log, "textfile_dir": textfile_dir,
            "gates": JUDGED_GATES if gates is None else gates}


@pytest.mark.parametrize("gpus, lines, stored", [
    ((SICK,), ("Linux version 6.8.0", XID79), {}),
    ((fh.H100_HEALTHY, fh.RTX_5090_IDLE), ("Linux version 6.8.0", XID13), STORED),
    ((fh.RTX_5090_IDLE,), ("Linux version 6.8.0",), {}),
], ids=["sick-h100-xid79", "h100-and-idle-5090-stored-link", "idle-5090-no-telemetry"])
def test_the_judged_health_is_what_gpu_health_answers(machine, run_module, gpus, lines, stored):
    machine.gpus(*gpus)
    machine.journal(*lines)
    directory = str(machine.textfile_dir)
    first = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    status, called = run_module(gpu_health, {"kernel_log": "journal", "gates": JUDGED_GATES, "host": "ws1",
                                             "stored_result": stored, "textfile_dir": directory})
    assert status == "exit" and called["textfile"]["written"] is True
    decision = {"reuse": True, "stored": stored}
    judged = judged_health(first["health"], decision, first["ansible_facts"]["nvidia_driver"],
                           judged_request("journal", directory))
    assert judged["use"] is True, judged["reason"]
    assert judged["health"] == called["health"] and judged["verdict"] == called["verdict"]
    assert judged["verdict"]["passed"] is (gpus[0] is not SICK)
    assert judged["textfile"] == {"path": os.path.join(directory, "blackwell_pytorch_health.prom"),
                                  "content": machine.textfile(), "write": True}  # absent when the probe read it
    # the next run: the probe reads the file gpu_health wrote, nothing is to be written
    again = probe(run_module, {"kernel_log": "journal", "textfile_dir": directory})
    judged = judged_health(again["health"], decision, again["ansible_facts"]["nvidia_driver"],
                           judged_request("journal", directory))
    assert judged["use"] is True and judged["textfile"]["write"] is False


@pytest.mark.parametrize("gates", [{"xid": "maybe"}, dict(JUDGED_GATES, xid_ignore=["thirteen"]),
                                   dict(JUDGED_GATES, bogus=True)], ids=["not-a-boolean", "not-an-xid", "unknown-option"])
def test_bad_gate_options_are_left_to_gpu_health_which_refuses_them(machine, run_module, gates):
    machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, {"kernel_log": "auto"})
    judged = judged_health(result["health"], {"reuse": True, "stored": {}}, result["ansible_facts"]["nvidia_driver"],
                           judged_request("auto", "", gates))
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
    judged = judged_health(result["health"], {"reuse": change.get("reuse", True), "stored": {}},
                           change.get("driver", result["ansible_facts"]["nvidia_driver"]),
                           judged_request(change.get("kernel_log", "auto"), change.get("textfile_dir", "")))
    assert (judged["use"], judged["reason"]) == (False, why)
    assert judged["verdict"] == {} and judged["textfile"]["write"] is False
