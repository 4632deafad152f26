# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify_steps filter over preflight_facts' real health reading (tests/unit/health_machine.py): the probe's
reading serves a stored result with one textfile write when the file is absent and no health task once gpu_health
wrote it; without the reading a gpu_health call; a run that benchmarks reads the health in benchmark.yml."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

import fake_nvml_health as fh
from health_machine import Machine, probe

from ansible_collections.blackwell.pytorch.plugins.filter.verify_steps import FilterModule
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
    with pytest.raises(AnsibleFilterError, match="^verify_health_probe: request must be a mapping, got list"):
        STEPS(pending, None, {}, ["not", "a", "request"], {"health": True, "fingerprinted": True})
    with pytest.raises(AnsibleFilterError, match="^verify_health_probe: request must be a mapping, got list"):
        STEPS({"reuse": False, "stored": None}, None, {}, ["not", "a", "request"], {"health": True})
