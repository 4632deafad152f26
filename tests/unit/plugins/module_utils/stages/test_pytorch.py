# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stages/pytorch.py: the PyTorch stage's question answered in the preflight probe's call - when it may be asked, the
plan with the probe's own GPUs and driver, and what a host found as asked publishes (a real stack in files under
the test's directory, this interpreter, real commands)."""
from __future__ import annotations

import pytest

import converged_stack
from real_run import run

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import pytorch, registry
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Reading

HOST = "ws-5090-02"
RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
ROOT_USER = {"uid": 0, "name": "root"}
NVML = {"loaded": True, "version": "580.95.05", "cuda_driver_version": "13.0", "source": "nvml"}


@pytest.fixture
def python(tmp_path):
    """pytorch_python: an interpreter that says it is 3.11 (the plan reads only its --version)."""
    path = tmp_path / "python3.11"
    path.write_text("#!/bin/sh\necho 'Python 3.11.9'\n")
    path.chmod(0o755)
    return str(path)


def options(python="/usr/bin/python3", **changes):
    """pytorch_plan's defaults but the probe's own options, the GPUs and driver left to the probe."""
    given = dict((name, entry.get("default")) for name, entry in registry.probe_spec(pytorch).items())
    given.update(python=python, version="2.9.1", channel="cu128")
    given.update(changes)
    return given


def reading(loaded=None, gpus=(RTX_5090,), user=None, tools=None):
    """The probe's reading of HOST."""
    warned = []
    return Reading(host=HOST, user=user or ROOT_USER, gpus=list(gpus), loaded=NVML if loaded is None else loaded,
                   preflight={}, run=run, has_program=lambda _name: True, warn=warned.append, tools=tools)


def ask(given, loaded=None, gpus=(RTX_5090,)):
    """The answer, with what a settled host publishes under `facts` (the probe returns it beside the answer)."""
    answer, facts = pytorch.ask(given, reading(loaded, gpus), {})
    assert answer["settled"] is (facts != {})
    return dict(answer, facts=facts)


def waits(driver, toolkit, tools, loaded, given):
    return pytorch.waits(given, {"driver": driver, "toolkit": toolkit}, reading(loaded, tools=tools))


def test_it_waits_for_every_stage_before_it_that_changes_its_inputs():
    given = options()
    assert waits(None, None, None, NVML, given) == ""
    assert waits({"converged": True}, {"converged": True}, {"ready": True}, NVML, given) == ""
    assert waits({"converged": False}, None, None, NVML, given) == \
        "the driver stage changes the driver first"
    assert waits(None, {"converged": False}, None, NVML, given) == \
        "the toolkit stage changes the toolkits first"
    assert waits(None, None, {"ready": False}, NVML, options(installer="uv")) == \
        "the tools venv (uv) is completed first"
    # pip installs, or nothing is installed (adopting): the venv's NVML is covered by the facts' source below
    assert waits(None, None, {"ready": False}, NVML, given) == ""
    assert waits(None, None, {"ready": False}, NVML, options(installer="uv", adopt_path="/env")) == ""
    procfs = dict(NVML, source="procfs")
    assert waits(None, None, None, procfs, given) == "the GPU facts are read again through NVML first"
    # the GPUs and the driver's CUDA set: the facts read later change nothing; no driver loaded: they read the same bus
    assert waits(None, None, None, procfs, options(gpus=[RTX_5090], driver_cuda="13.0")) == ""
    assert waits(None, None, None, {"loaded": False, "source": "none"}, given) == ""


def test_the_gpus_and_the_drivers_cuda_are_the_probes_own_unless_set(python):
    filled = ask(options(python))
    assert filled["ok"] and filled["plan"]["stack"] == "torch-2.9.1-cu128" and filled["settled"] is False
    given = ask(options(python, gpus=[RTX_5090], driver_cuda="13.0"), loaded={"loaded": False}, gpus=())
    assert given["plan"] == filled["plan"] and given["summary"] == filled["summary"]
    assert "GPU 0 (NVIDIA GeForce RTX 5090" in filled["summary"]
    none = ask(options(python), loaded={"loaded": False}, gpus=())
    assert "GPU 0" not in none["summary"]


def test_a_refusal_is_the_answer_with_the_message_the_stage_fails_with(tmp_path, python):
    refused = ask(options(python, keep=0))
    assert not refused["ok"] and refused["msg"].startswith("pytorch_keep_stacks is 0: keep at least 1")
    assert refused["settled"] is False
    missing = ask(options(str(tmp_path / "none")))
    assert not missing["ok"] and missing["msg"].startswith("pytorch_python %s is not there on %s" % (tmp_path / "none", HOST))
    assert missing["refusals"] == [] and not missing["converged"]
    alice, _facts = pytorch.ask(options(python), reading(user={"uid": 1000, "name": "alice"}), {})
    assert not alice["ok"] and alice["msg"].startswith("%s: " % HOST)


def test_a_host_found_as_asked_is_settled_with_what_the_role_publishes(tmp_path, python):
    plan = ask(options(python, root=str(tmp_path / "pytorch")))["plan"]
    check, stack_python, _current = converged_stack.make(tmp_path, plan, python=python)
    found = ask(options(python, **check))
    assert found["ok"] and found["converged"], found["standing"]
    settled = found["facts"]
    # the check's fact moves out of the answer: the probe returns it once
    assert sorted(settled) == ["blackwell_cuda_check", "blackwell_pytorch"] and "cuda_check" not in found
    assert settled["blackwell_cuda_check"]["pythons"][0] == stack_python
    assert settled["blackwell_pytorch"] == {
        "stack": "torch-2.9.1-cu128", "python": str(tmp_path / "pytorch" / "current" / "bin" / "python"),
        "torch": "2.9.1", "channel": "cu128", "method": "wheel", "converged": True,
        "check": {"reused": True, "build": {}}, "source": None, "warnings": []}
    # another host builds for the play: the role decides, reading that host's plan
    other = ask(options(python, build_host="builder", play_hosts=[HOST, "builder"], **check))
    assert other["facts"] == {} and other["cuda_check"]["pythons"][0] == stack_python
    assert ask(options(python, build_host=HOST, play_hosts=[HOST], **check))["settled"] is True


def test_an_adopted_environment_is_settled_without_a_plan(tmp_path):
    adopted = ask(options(str(tmp_path / "none"), root=str(tmp_path / "pytorch"), adopt_path=str(tmp_path / "env")))
    assert adopted["ok"] and "plan" not in adopted and not adopted["converged"] and adopted["settled"] is False
