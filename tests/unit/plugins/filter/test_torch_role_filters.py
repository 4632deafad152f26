# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch role's decision filters: each argument reaches planning.role_steps, bad ones are named."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.torch import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_steps
from shells import assert_each_argument_matters

F = FilterModule().filters()
PLAN = {"stack": "torch-2.9.1-cu128", "method": "wheel", "channel": "cu128", "torch": "2.9.1",
        "pins": ["torch==2.9.1+cu128"], "expected": {"torch": "2.9.1+cu128"}}
SETTINGS = {"root": "/opt/pytorch", "python": "/usr/bin/python3", "os_family": "Debian", "host": "ws-1",
            "build_host": "builder"}
OWN = {"plan": dict(PLAN, method="source", stack="torch-2.9.1-cu128-src"), "summary": "own", "standing": "as asked",
       "refusals": [], "converged": True}


def test_decide_passes_every_argument():
    base = {"own": OWN, "build_host_result": None, "settings": SETTINGS}
    result = assert_each_argument_matters(
        F["torch_decide"], base,
        {"own": dict(OWN, converged=False), "build_host_result": dict(OWN, plan=PLAN, summary="theirs"),
         "settings": dict(SETTINGS, root="/srv/pytorch")})
    assert result == role_steps.decide(OWN, None, SETTINGS)
    with pytest.raises(AnsibleFilterError, match="torch_decide: settings must be a mapping, got list"):
        F["torch_decide"](OWN, None, [])


def test_wheelhouse_filters_pass_every_argument(tmp_path):
    state = role_steps.decide(dict(OWN, plan=PLAN, converged=False), None, dict(SETTINGS, build_host=""))
    base = {"state": state, "fetch_dir": "/srv/wheels", "wheelhouse": ""}
    result = assert_each_argument_matters(F["torch_wheelhouse"], base,
                                          {"state": dict(state, root="/srv"), "fetch_dir": "/w", "wheelhouse": "/srv/wh"})
    assert result == {"refusal": "", "cache": {"stack": "torch-2.9.1-cu128", "hashes": "hashes.txt",
                                               "controller_dir": "/srv/wheels/torch-2.9.1-cu128",
                                               "host_dir": "/opt/pytorch/wheelhouses/torch-2.9.1-cu128"},
                      "hashes_path": "/srv/wheels/torch-2.9.1-cu128/hashes.txt", "pins": ["torch==2.9.1+cu128"],
                      "check_mode": False}
    assert F["torch_wheelhouse"](dict(state, adopt_path="/srv/venv", plan=None))["cache"] is None
    download = {"files": ["/w/torch-2.9.1+cu128-py3-none-any.whl", "/w/hashes.txt"]}
    line = assert_each_argument_matters(F["torch_wheelhouse_report"], {"names": result, "download": download},
                                        {"names": dict(result, check_mode=True), "download": {"skipped": True}})
    assert line.endswith("(1 wheels downloaded from the index once)")
    assert F["torch_wheelhouse_report"](result, {"skipped": True}).endswith("(already complete, nothing downloaded)")
    assert F["torch_wheelhouse_report"](dict(result, check_mode=True)).endswith(
        "(check mode: not there yet; a run without --check downloads the planned wheels (torch==2.9.1+cu128) and "
        "their dependencies from the index once)")
    with pytest.raises(AnsibleFilterError, match="torch_wheelhouse_report: download must be a mapping, got list"):
        F["torch_wheelhouse_report"](result, download["files"])
    with pytest.raises(AnsibleFilterError, match="torch_wheelhouse_report: no fleet wheelhouse to report: "):
        F["torch_wheelhouse_report"](F["torch_wheelhouse"](dict(state, plan=None, adopt_path="/srv/venv")))
    source = {"stack": "torch-2.9.1-cu128", "controller_dir": str(tmp_path), "hashes": "hashes.txt"}
    used = assert_each_argument_matters(F["torch_wheelhouse_use"], {"source": source, "root": "/opt/pytorch",
                                                                    "check_mode": False},
                                        {"source": dict(source, stack="other"), "root": "/srv"})
    assert (used["dir"], used["hashes_file"], used["pending"]) == (
        "/opt/pytorch/wheelhouses/torch-2.9.1-cu128", "/opt/pytorch/wheelhouses/torch-2.9.1-cu128/hashes.txt", False)
    assert F["torch_wheelhouse_use"](source, "/opt/pytorch", "true")["pending"] is False  # on the controller
    assert F["torch_wheelhouse_use"](dict(source, controller_dir=str(tmp_path / "no")), "/r", "true")["pending"]
    with pytest.raises(AnsibleFilterError, match="torch_wheelhouse_use: check_mode must be true or false"):
        F["torch_wheelhouse_use"](source, "/r", "perhaps")


def test_adopted_steps_passes_every_argument():
    adopted = {"stack": "a", "python": "/srv/venv/bin/python3", "links": {"current": "venvs/a"}, "stacks": ["a"]}
    base = {"adopted": adopted, "keep": 2, "root": "/opt/pytorch"}
    result = assert_each_argument_matters(F["torch_adopted_steps"], base,
                                          {"adopted": dict(adopted, stack="b"), "keep": 1, "root": "/srv"})
    assert result == role_steps.adopted_steps(adopted, 2, "/opt/pytorch")


def test_pip_args_for_the_install_and_the_build():
    pip = {"index": "https://pypi.org/simple", "wheelhouse": "", "proxy": "http://p:1"}
    base = {"pip": pip, "plan": PLAN, "build": False}
    result = assert_each_argument_matters(F["torch_pip_args"], base,
                                          {"pip": dict(pip, proxy=""), "plan": dict(PLAN, pins=["torch"]),
                                           "build": "true"})
    assert result == role_steps.pip_args(PLAN, pip)
    assert F["torch_pip_args"](pip, build=True) == ["--proxy", "http://p:1"]
    with pytest.raises(AnsibleFilterError, match="torch_pip_args: plan must be a mapping, got NoneType"):
        F["torch_pip_args"](pip)


def test_check_policy_passes_every_argument():
    base = {"gpus": [{"index": 0}], "min_verdict": "native", "require": ["bf16"]}
    result = assert_each_argument_matters(F["torch_check_policy"], base,
                                          {"gpus": [], "min_verdict": "ptx", "require": ["nccl"]})
    assert result == {"min_verdict": "native", "require": ["bf16"]}
    with pytest.raises(AnsibleFilterError, match="torch_check_policy: require must be a list, got str"):
        F["torch_check_policy"]([], "native", "nccl")


def test_published_passes_every_argument():
    state = role_steps.role_state(dict(OWN, plan=PLAN, converged=False), None, dict(SETTINGS, build_host=""))
    base = {"state": state, "plan": PLAN, "steps": state["steps"], "check": {"reused": True, "build": {}},
            "current": "/opt/pytorch/current", "build": None}
    result = assert_each_argument_matters(
        F["torch_published"], dict(base, plan=dict(PLAN, method="source")),
        {"state": dict(state, adopting=True), "plan": dict(PLAN, channel="cu130"), "steps": {"stack": "other"},
         "check": None, "current": "/srv/current", "build": {"wheel": "w.whl", "reports": []}})
    assert result["source"] == {"wheel": "", "built": False, "reports": []}
    result = F["torch_published"](**base)
    assert result == role_steps.published(state, PLAN, state["steps"], {"reused": True, "build": {}},
                                          "/opt/pytorch/current")


def test_published_of_the_change_path_from_the_decision_and_its_steps():
    state = role_steps.decide(dict(OWN, plan=PLAN, converged=False), None, dict(SETTINGS, build_host=""))
    check = {"reused": False, "build": {"torch_version": "2.9.1+cu128"}}
    base = {"state": state, "steps": state["steps"], "check": check, "build": {}}
    result = assert_each_argument_matters(
        F["torch_published"], base,
        {"state": dict(state, root="/srv"), "steps": dict(state["steps"], plan=dict(PLAN, channel="cu130")),
         "check": {}})
    assert result == F["torch_published"](state, PLAN, state["steps"], check, "/opt/pytorch/current")
    assert result["python"] == "/opt/pytorch/current/bin/python" and result["channel"] == "cu128"
    built = F["torch_published"](state, steps=dict(state["steps"], plan=dict(PLAN, method="source")),
                                 build={"wheel": "w.whl", "reports": ["a"]})
    assert built["source"] == {"wheel": "w.whl", "built": True, "reports": ["a"]} and built["check"] is None


def test_gate_failure_from_the_decision_and_the_failed_steps():
    failed = {"msg": "found none", "gpus": [{"kernel_image": {"verdict": "none"}}]}
    fallback = dict(PLAN, method="source", stack="torch-2.9.1-cu128-src")
    state = role_steps.decide(dict(OWN, plan=PLAN, fallback=fallback, converged=False), None,
                              dict(SETTINGS, build_host=""))
    base = {"check": failed, "steps": state["fallback_steps"], "state": state}
    result = assert_each_argument_matters(F["torch_gate_failure"], base, {
        "check": dict(failed, msg="other"), "steps": state["steps"], "state": dict(state, root="/srv")})
    assert result == role_steps.gate_failure(failed, state, state["fallback_steps"]) == (
        "found none -- /opt/pytorch/venvs/torch-2.9.1-cu128-src is kept for inspection; /opt/pytorch/current was not "
        "moved.")
    assert F["torch_gate_failure"](failed, steps=state["steps"], state=state) == ""
    with pytest.raises(AnsibleFilterError, match="torch_gate_failure: steps must be a mapping, got str"):
        F["torch_gate_failure"](failed, steps="s", state=state)


def test_settled_is_the_decision_steps_and_the_probes_one_rule():
    own = dict(OWN, plan=PLAN, check={"build": {"torch_version": "2.9.1+cu128"}}, cuda_check={"passed": True})
    state = role_steps.role_state(own, None, dict(SETTINGS, build_host=""))
    assert state["converged"]
    base = {"state": state, "own": own, "current": "/opt/pytorch/current"}
    result = assert_each_argument_matters(
        F["torch_settled"], base, {"own": dict(own, check={}, cuda_check=None), "current": "/srv/current"})
    assert result == role_steps.settled_facts(state, own, "/opt/pytorch/current")
    check = {"build": {"torch_version": "2.9.1+cu128"}, "reused": True}
    assert result == {"published": role_steps.published(state, PLAN, state["steps"], check, "/opt/pytorch/current"),
                      "check": check, "cuda_check": {"passed": True}}
    # adopting: no plan in the fact; not as asked: nothing (the change path publishes)
    assert F["torch_settled"](dict(state, adopting=True), own, "/c")["published"]["method"] == "adopted"
    assert F["torch_settled"](dict(state, converged=False), own, "/c") is None
    with pytest.raises(AnsibleFilterError, match="torch_settled: own must be a mapping, got list"):
        F["torch_settled"](state, [], "/c")
