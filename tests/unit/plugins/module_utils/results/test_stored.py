# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every stored JSON file the collection reads back, damaged but parseable (wrong kinds) and unparseable: not
trusted, said, no traceback (docs/reliability.md). verify.json and cuda_check.json (results/stored.py, through
stack_fingerprint and the pytorch plan's converged check), the fleet report's inputs (the hosts' results), the
CUDA toolkit's version.json, the CDI spec's record, the stack marker; the previous fleet.json is
test_fleet_history.py's. Real files in a temporary directory; stack_fingerprint's main() as Ansible calls it."""
from __future__ import annotations

import copy
import json

import pytest

from verify_results import h100_result
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers import cdi
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint as vf
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import stored
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_report, report, steps
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.fleet_html import html
from ansible_collections.blackwell.pytorch.plugins.modules import stack_fingerprint

CHECK = {"schema": stored.SCHEMA, "passed": True, "written": "2026-11-23T03:00:00Z", "fingerprint": {"code": "c"},
         "result": {"build": {"torch_version": "2.11.0+cu130"}, "gpus": [{"index": 0, "name": "NVIDIA H100"}]}}


def damaged(document, path, value):
    """A deep copy of `document` with the key at `path` (a tuple of keys and indexes) set to `value`."""
    copied = copy.deepcopy(document)
    place = copied
    for key in path[:-1]:
        place = place[key]
    place[path[-1]] = value
    return copied


# (where, value, what the problem says) of verify.json (h100_result) and cuda_check.json (CHECK)
VERIFY_DAMAGE = [
    (("benchmark",), "x", "benchmark is the text 'x', not a mapping"),
    (("passed",), "yes", "passed is the text 'yes', not true or false"),
    (("summary",), "GPU 0", "summary is the text 'GPU 0', not a list"),
    (("failed_gates",), ["gemm_bf16"], "failed_gates[0] is the text 'gemm_bf16', not a mapping"),
    (("benchmark", "devices"), {"0": {}}, "benchmark.devices is a mapping, not a list"),
    (("benchmark", "devices", 0), "GPU 0", "benchmark.devices[0] is the text 'GPU 0', not a mapping"),
    (("benchmark", "devices", 0, "figures", "gemm_bf16", "value"), "795", "benchmark.devices[0].figures.gemm_bf16.value is "
     "the text '795', not a number"),
    (("benchmark", "devices", 0, "figures", "memcpy", "telemetry"), [], "benchmark.devices[0].figures.memcpy.telemetry is "
     "a list, not a mapping"),
    (("written",), 20261123, "written is 20261123, not a text"),
    (("fingerprint",), None, "fingerprint is null, not a mapping"),
]
CHECK_DAMAGE = [
    (("result",), "passed", "result is the text 'passed', not a mapping"),
    (("result", "gpus"), "GPU 0", "result.gpus is the text 'GPU 0', not a list"),
    (("result", "gpus", 0), "GPU 0", "result.gpus[0] is the text 'GPU 0', not a mapping"),
    (("result", "build"), ["2.11"], "result.build is a list, not a mapping"),
]


def write(tmp_path, name, document):
    path = tmp_path / name
    path.write_text(document if isinstance(document, str) else json.dumps(document))
    return str(path)


def test_whole_results_as_the_roles_write_them_are_read():
    assert stored.problems(h100_result()) == [] and stored.problems(CHECK) == []
    deferred = {"schema": stored.SCHEMA, "host": "ws", "status": "busy", "passed": False, "deferred": True,
                "message": "busy: GPU 0 pid 4242", "written": "2026-11-23T03:00:00Z", "reused": False,
                "results": "/var/lib/blackwell-pytorch/verify.json", "fingerprint": {}, "product_line": "datacenter",
                "gates": {}, "failed_gates": [], "summary": ["busy"], "busy": {"state": "busy", "processes": []}}
    assert stored.problems(deferred) == []


@pytest.mark.parametrize("where, value, problem", VERIFY_DAMAGE, ids=[".".join(map(str, d[0])) for d in VERIFY_DAMAGE])
def test_a_damaged_verify_json_is_not_used_and_says_which_file_and_why(tmp_path, where, value, problem):
    # was: "benchmark": "x" with the fingerprint intact counted as passed, then the fleet report crashed
    path = write(tmp_path, "verify.json", damaged(h100_result(), where, value))
    document, why = stored.read(path)
    assert document is None and why.startswith("%s is damaged: " % path) and problem in why, why
    assert vf.load(path) is None
    reuse, reason, changed = vf.decide(document, {}, False, why)
    assert (reuse, reason, changed) == (False, "the stored result is not used: " + why, list(vf.COMPONENTS))


@pytest.mark.parametrize("where, value, problem", CHECK_DAMAGE, ids=[".".join(map(str, d[0])) for d in CHECK_DAMAGE])
def test_a_damaged_cuda_check_json_is_not_used_and_says_why(tmp_path, where, value, problem):
    path = write(tmp_path, "cuda_check.json", damaged(CHECK, where, value))
    document, why = stored.read(path)
    assert document is None and problem in why, why
    # the pytorch plan's converged check: not as asked, and the standing says why
    stands, reason = converged.check_stands(document, {"code": "c"}, False, why)
    assert stands is False and reason == "the stored result is not used: " + why


@pytest.mark.parametrize("text, problem", [
    ("{not json", "is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))"),
    ("", "is not JSON (Expecting value: line 1 column 1 (char 0))"),
    ("[1, 2]", "is damaged: it is a list, not a mapping"),
    ('{"schema": "other/2", "passed": true, "fingerprint": {}}', "is damaged: its schema is the text 'other/2', not "
     "blackwell.pytorch.verify/1"),
    ('{"schema": "blackwell.pytorch.verify/1", "passed": true}', "is damaged: fingerprint is missing"),
], ids=["not-json", "empty", "a-list", "other-schema", "no-fingerprint"])
def test_an_unparseable_or_foreign_stored_file_is_not_used_and_says_why(tmp_path, text, problem):
    path = write(tmp_path, "verify.json", text)
    assert stored.read(path) == (None, "%s %s" % (path, problem))


def test_a_missing_file_is_no_problem_and_a_directory_is_one(tmp_path):
    assert stored.read(str(tmp_path / "verify.json")) == (None, None)
    (tmp_path / "verify.json").mkdir()
    assert stored.read(str(tmp_path / "verify.json")) == (None, "%s is a directory, not a file" % (tmp_path / "verify.json"))


def _venv(tmp_path):
    site = tmp_path / "venv/lib/python3.11/site-packages"
    (site / "torch-2.13.0+cpu.dist-info").mkdir(parents=True)
    (site / "torch").mkdir()
    (site / "torch/version.py").write_text("__version__ = '2.13.0+cpu'\ncuda = None\ngit_version = 'abc'\n")
    (tmp_path / "venv/bin").mkdir()
    (tmp_path / "venv/bin/python").write_text("#!/bin/sh\n")  # read by path only: the fingerprint runs nothing
    return str(tmp_path / "venv/bin/python")


def test_stack_fingerprint_reverifies_a_damaged_result_and_warns_naming_it(tmp_path, run_module):
    args = {"python": _venv(tmp_path), "cuda_home": str(tmp_path / "no-cuda"), "results": str(tmp_path / "verify.json"),
            "also": [str(tmp_path / "cuda_check.json")]}
    _status, first = run_module(stack_fingerprint, args)
    whole = dict(h100_result(), fingerprint=first["fingerprint"])
    write(tmp_path, "verify.json", whole)
    write(tmp_path, "cuda_check.json", dict(CHECK, fingerprint=first["fingerprint"]))
    _status, good = run_module(stack_fingerprint, args)
    assert good["reuse"] is True and good["also"][0]["reuse"] is True and good["warnings"] == []
    write(tmp_path, "verify.json", dict(whole, benchmark="x"))  # the fingerprint intact
    write(tmp_path, "cuda_check.json", "{")
    status, answer = run_module(stack_fingerprint, args)
    damage = "%s is damaged: benchmark is the text 'x', not a mapping" % (tmp_path / "verify.json")
    unparsed = "%s is not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))" % (
        tmp_path / "cuda_check.json")
    assert (status, answer["reuse"], answer["stored"], answer["reason"]) == (
        "exit", False, None, "the stored result is not used: " + damage)
    assert (answer["also"][0]["reuse"], answer["also"][0]["reason"]) == (False, "the stored result is not used: " + unparsed)
    assert answer["warnings"] == ["%s: not used, checked and verified again" % damage,
                                  "%s: not used, checked and verified again" % unparsed]


def test_the_fleet_report_names_a_damaged_hosts_file_instead_of_crashing():
    # was: "'str' object has no attribute 'get'" on every run until verify_force
    results = {"ws-01": h100_result("ws-01"), "ws-02": dict(h100_result("ws-02"), benchmark="x"),
               "ws-03": damaged(h100_result("ws-03"), ("benchmark", "devices", 0, "figures"), "gemm")}
    document = fleet_report.fleet(results)
    assert document["passed"] == ["ws-01"] and document["missing"] == ["ws-02", "ws-03"]
    by_host = dict((host["host"], host) for host in document["hosts"])
    assert by_host["ws-02"]["message"] == (
        "damaged verification result (/var/lib/blackwell-pytorch/verify.json: benchmark is the text 'x', not a "
        "mapping): not reported; verify the host again (-e verify_force=true)")
    assert "benchmark.devices[0].figures is the text 'gemm', not a mapping" in by_host["ws-03"]["message"]
    markdown = fleet_report.markdown(document)
    assert "**ws-02**: damaged verification result" in markdown and "<html" in html(document).lower()


def test_the_toolkits_damaged_version_json_falls_back_to_version_txt(tmp_path):
    (tmp_path / "version.json").write_text(json.dumps({"cuda": {"version": 13.0}}))
    (tmp_path / "version.txt").write_text("CUDA Version 13.0.2\n")
    assert vf.cuda_toolkit(str(tmp_path)) == "13.0.2"
    (tmp_path / "version.json").write_text('{"cuda": "13.0.2"}')
    assert vf.cuda_toolkit(str(tmp_path)) == "13.0.2"
    (tmp_path / "version.json").write_text("{")
    (tmp_path / "version.txt").unlink()
    assert vf.cuda_toolkit(str(tmp_path)) is None


WRONG_KINDS = json.dumps({"driver": 580, "gpus": "GPU-a", "toolkit": None, "args": {"x": 1}, "spec": ["/etc/cdi"]})


@pytest.mark.parametrize("recorded", ["{", "[]", WRONG_KINDS], ids=["not-json", "a-list", "wrong-kinds"])
def test_a_damaged_cdi_record_regenerates_the_spec_and_says_why(recorded):
    plan = cdi.cdi_plan("580.95.05", ["GPU-a"], recorded, True, "1.17.8", [], "/etc/cdi/nvidia.yaml")
    assert plan["action"] == "regenerate", plan
    assert plan["reason"].startswith("/etc/cdi/nvidia.yaml "), plan


def test_a_damaged_stack_marker_does_not_record_the_plan():
    record = {"stack": "torch-2.11.0-cu130", "method": "wheel", "channel": "cu130", "pins": ["torch==2.11.0"],
              "python": "/usr/bin/python3.11", "managed_by": converged.MANAGED_BY}
    links = {"current": "venvs/torch-2.11.0-cu130"}
    for marker in ("{", "[]", json.dumps(dict(record, pins="torch==2.11.0"))):
        assert converged.stack_problems("torch-2.11.0-cu130", links, marker, record, {}, {}) == [
            "torch-2.11.0-cu130's marker does not record this plan"]


def test_a_stored_result_that_stands_writes_its_missing_or_different_textfile_again():
    document = h100_result()
    content = report.prometheus(document)
    decision = {"reuse": True, "stored": document, "textfile": {"path": "/var/lib/node_exporter/" + stored.TEXTFILE,
                                                                "text": None}}
    found = steps.textfile(decision, "/var/lib/node_exporter/")
    assert found == {"path": "/var/lib/node_exporter/blackwell_pytorch_verify.prom", "content": content, "write": True}
    same = dict(decision, textfile={"path": found["path"], "text": content})
    assert steps.textfile(same, "/var/lib/node_exporter")["write"] is False
    assert steps.textfile(dict(decision, textfile={"path": found["path"], "text": "old"}), "/var/lib/node_exporter")["write"]
    assert steps.textfile(dict(decision, textfile=None), "/var/lib/node_exporter")["write"]  # not read: written
    assert steps.textfile(dict(decision, reuse=False), "/var/lib/node_exporter")["write"] is False  # the run writes it
    assert steps.textfile(decision, "")["write"] is False
    names = [step["file"] for step in steps.steps(decision, dict, {"textfile_dir": "/var/lib/node_exporter"})]
    assert names == ["verify_textfile.yml", "verdict.yml"]
    assert [step["file"] for step in steps.steps(same, dict, {"textfile_dir": "/var/lib/node_exporter"})] == ["verdict.yml"]
