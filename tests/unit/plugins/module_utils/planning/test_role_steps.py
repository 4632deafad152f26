# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the pytorch role derives from pytorch_plan's answer: the plan a host installs, its steps (paths, marker
record, OS packages, source tree), the pip arguments, the gate's policy and the published fact."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_steps as rs

WHEEL = {"stack": "torch-2.9.1-cu128", "method": "wheel", "channel": "cu128", "torch": "2.9.1",
         "pins": ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"], "expected": {"torch": "2.9.1+cu128"}}
SOURCE = dict(WHEEL, stack="torch-2.9.1-cu128-src", method="source", built_wheel="", pins=["torch==2.9.1"])
SETTINGS = {"root": "/opt/pytorch", "python": "/usr/bin/python3", "os_family": "Debian", "build_tools": True,
            "host": "ws-1", "build_host": "", "source_ref": "", "source_dir": "", "adopt_path": ""}
PIP = {"index": "", "channel_base": "https://download.pytorch.org/whl/", "extra_indexes": [], "wheelhouse": "",
       "built_wheelhouse": "/opt/pytorch/wheelhouse", "trusted_hosts": [], "proxy": "", "ca_path": "",
       "client_cert": "", "cache_dir": "", "constraints_file": "", "hashes_file": "", "extra_args": []}


@pytest.mark.parametrize("family, builds_wheel, tools, packages", [
    ("Debian", False, True, ["python3-venv"]),
    ("Debian", True, True, ["python3-venv", "git", "build-essential", "cmake", "ninja-build", "python3-dev"]),
    ("Debian", True, False, ["python3-venv"]),
    ("RedHat", False, True, []),
    ("RedHat", True, True, ["git", "gcc-c++", "make", "cmake", "ninja-build", "python3-devel"]),
    ("Suse", True, True, []),
], ids=["debian", "debian-build", "debian-build-no-tools", "redhat", "redhat-build", "unknown"])
def test_os_packages(family, builds_wheel, tools, packages):
    assert rs.os_packages(family, builds_wheel, tools) == packages


def test_wheel_steps_name_the_stack_its_paths_and_the_marker_record():
    steps = rs.stack_steps(WHEEL, SETTINGS)
    assert steps["stack"] == "torch-2.9.1-cu128"
    assert steps["stack_dir"] == "/opt/pytorch/venvs/torch-2.9.1-cu128"
    assert steps["python"] == "/opt/pytorch/venvs/torch-2.9.1-cu128/bin/python"
    assert steps["install_log"] == "/opt/pytorch/venvs/.torch-2.9.1-cu128.pip.log"
    assert steps["record"] == converged.stack_record(WHEEL, "/usr/bin/python3")
    assert (steps["builds_here"], steps["builds_wheel"], steps["packages"]) == (True, False, ["python3-venv"])
    assert (steps["already_current"], steps["nothing_to_prune"]) == (False, False)
    assert steps["plan"] == WHEEL and steps["fetches_wheel"] is False
    assert rs.stack_steps(None, SETTINGS) is None


def test_source_steps_clone_the_release_tag_or_take_the_given_tree():
    steps = rs.stack_steps(SOURCE, dict(SETTINGS, root="/opt/pytorch/"))
    assert steps["builds_wheel"] and "build-essential" in steps["packages"]
    assert steps["source"] == {"ref": "v2.9.1", "tree": "/opt/pytorch/build/src/pytorch-v2.9.1", "clone": True,
                               "dir": "/opt/pytorch/build", "venv": "/opt/pytorch/build/venv",
                               "log": "/opt/pytorch/build/torch-2.9.1-cu128-src.log"}
    given = rs.stack_steps(SOURCE, dict(SETTINGS, source_ref="main", source_dir="/srv/pytorch"))["source"]
    assert (given["ref"], given["tree"], given["clone"]) == ("main", "/srv/pytorch", False)
    assert rs.stack_steps(SOURCE, dict(SETTINGS, source_ref="main"))["source"]["tree"].endswith("/pytorch-main")


@pytest.mark.parametrize("plan, build_host, builds_wheel", [
    (dict(SOURCE, built_wheel="torch-2.9.1-cp312-linux_x86_64.whl"), "", False),  # an earlier run's wheel
    (SOURCE, "ws-2", False),  # another host builds
    (SOURCE, "ws-1", True),
], ids=["built-before", "other-host-builds", "this-host-builds"])
def test_only_a_source_plan_without_a_wheel_on_its_build_host_compiles(plan, build_host, builds_wheel):
    steps = rs.stack_steps(plan, dict(SETTINGS, build_host=build_host))
    assert steps["builds_wheel"] is builds_wheel
    assert ("cmake" in steps["packages"]) is builds_wheel


@pytest.mark.parametrize("plan, build_host, check_mode, fetches", [
    (SOURCE, "ws-1", False, True),  # builds it in this run
    (SOURCE, "ws-1", True, False),  # a check run builds nothing
    (dict(SOURCE, built_wheel="torch-2.9.1-cp312-linux_x86_64.whl"), "ws-1", True, True),  # an earlier run's wheel
    (SOURCE, "ws-2", False, False),  # another host builds
    (SOURCE, "", False, False),  # no build host: nothing to share
    (WHEEL, "ws-1", False, False),  # no build
], ids=["builds", "check-run", "built-before", "other-host", "no-build-host", "wheel"])
def test_only_the_build_host_fetches_a_wheel_to_the_controller(plan, build_host, check_mode, fetches):
    assert rs.stack_steps(plan, dict(SETTINGS, build_host=build_host), check_mode)["fetches_wheel"] is fetches


def test_adopted_steps():
    adopted = {"stack": "adopted-venv", "python": "/srv/venv/bin/python3", "links": {"current": "venvs/adopted-venv"},
               "stacks": ["adopted-venv"]}
    steps = rs.adopted_steps(adopted, 2, "/opt/pytorch")
    assert (steps["stack"], steps["python"], steps["stack_dir"]) == (
        "adopted-venv", "/srv/venv/bin/python3", "/opt/pytorch/venvs/adopted-venv")
    assert steps["already_current"] and steps["nothing_to_prune"] and steps["packages"] == []
    assert steps["plan"] is None and steps["fetches_wheel"] is False
    moved = rs.adopted_steps(dict(adopted, links={"current": "venvs/other"}, stacks=["a", "b"]), 2, "/opt/pytorch")
    assert not moved["already_current"] and not moved["nothing_to_prune"]
    assert not rs.adopted_steps({"stack": "x", "links": {"current": None}}, 2, "/r")["nothing_to_prune"]


def _own(plan, **more):
    result = {"plan": plan, "summary": "%s (%s)" % (plan["stack"], plan["method"]), "fallback": None,
              "converged": False, "standing": "to change: current is not there", "refusals": [], "check_mode": False,
              "stack": plan["stack"]}
    result.update(more)
    return result


def test_role_state_of_a_host_that_installs_its_own_plan():
    state = rs.role_state(_own(WHEEL, fallback=SOURCE), None, SETTINGS)
    assert state["plan"] == WHEEL and state["fallback"] == SOURCE and not state["adopting"]
    assert state["steps"]["stack"] == WHEEL["stack"] and state["fallback_steps"]["stack"] == SOURCE["stack"]
    assert state["report"] == "torch-2.9.1-cu128 (wheel); to change: current is not there"
    assert not state["converged"] and not state["check_mode"]
    assert state["steps"]["plan"] == WHEEL and state["fallback_steps"]["plan"] == SOURCE
    assert rs.role_state(_own(WHEEL, converged=True, check_mode=True), None, SETTINGS)["converged"]
    assert rs.role_state(_own(WHEEL, fallback=dict(SOURCE, error="no toolkit")), None, SETTINGS)["fallback_steps"] is None


def test_a_host_that_does_not_build_takes_the_build_hosts_plan():
    theirs = dict(SOURCE, stack="torch-2.9.1-cu130-src", channel="cu130")
    settings = dict(SETTINGS, build_host="builder")
    state = rs.role_state(_own(SOURCE, converged=True), _own(theirs, summary="built on builder"), settings)
    assert state["plan"] == theirs and state["steps"]["stack"] == theirs["stack"]
    assert state["steps"]["record"]["python"] == "/usr/bin/python3"  # this host's interpreter makes its venv
    assert not state["converged"]  # this host's answer was about another plan
    assert state["report"].startswith("built on builder; ")
    same = rs.role_state(_own(SOURCE, converged=True), _own(SOURCE), settings)
    assert same["converged"] and same["plan"] == SOURCE
    wheel = rs.role_state(_own(WHEEL), _own(theirs), settings)  # a wheel plan is this host's own
    assert wheel["plan"] == WHEEL


def test_role_state_when_adopting_or_refused():
    adopting = rs.role_state({"converged": True, "standing": "already as asked", "summary": "adopting /srv/venv",
                              "refusals": [], "stack": "adopted-venv"}, None, dict(SETTINGS, adopt_path="/srv/venv"))
    assert adopting["adopting"] and adopting["plan"] is None and adopting["steps"] is None
    assert adopting["converged"] and adopting["stack"] == "adopted-venv"
    refused = rs.role_state({"refusals": ["keep"], "converged": False, "standing": "refused"}, None, SETTINGS)
    assert refused["report"] == "" and refused["plan"] is None and refused["steps"] is None


def test_decide_adds_the_gate_policy_and_what_a_host_already_as_asked_publishes():
    gpus = [{"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}]
    settings = dict(SETTINGS, gpus=gpus, min_verdict="native", require=["bf16", "nccl"])
    own = _own(WHEEL, converged=True, python_version="3.12", check={"build": {"torch_version": "2.9.1+cu128"}},
               cuda_check={"passed": True})
    decided = rs.decide(own, None, settings)
    state = rs.role_state(own, None, settings)
    assert {key: decided[key] for key in state} == state
    assert decided["policy"] == {"min_verdict": "native", "require": ["bf16", "nccl"]}
    assert (decided["gpus"], decided["python_version"]) == (gpus, "3.12")
    check = {"build": {"torch_version": "2.9.1+cu128"}, "reused": True}
    assert decided["check"] == check and decided["cuda_check"] == {"passed": True}
    assert decided["published"] == rs.published(state, WHEEL, state["steps"], check, "/opt/pytorch/current")
    assert decided["published"]["python"] == "/opt/pytorch/current/bin/python"
    assert (decided["root"], decided["adopt_path"]) == ("/opt/pytorch", "")
    assert rs.current_link(decided) == "/opt/pytorch/current" and rs.current_link({}) == ""
    assert rs.decide(own, None, dict(settings, adopt_path="/srv/venv"))["adopt_path"] == "/srv/venv"
    changing = rs.decide(_own(WHEEL), None, dict(settings, gpus=[]))
    assert changing["policy"] == {"min_verdict": "", "require": ["nccl"]}
    assert (changing["published"], changing["check"], changing["cuda_check"], changing["python_version"]) == (
        None, None, None, "")


def test_pip_args_of_a_channel_index_with_every_option():
    pip = dict(PIP, extra_indexes=["https://u:p@mirror/simple"], trusted_hosts=["mirror"], proxy="http://proxy:3128",
               ca_path="/etc/ca.pem", client_cert="/etc/client.pem", cache_dir="/var/cache/pip",
               constraints_file="/etc/c.txt", extra_args=["--timeout", "60"])
    assert rs.pip_args(WHEEL, pip) == [
        "--index-url", "https://download.pytorch.org/whl/cu128", "--extra-index-url=https://u:p@mirror/simple",
        "--only-binary", "torch,torchvision,torchaudio", "--trusted-host=mirror", "--proxy", "http://proxy:3128",
        "--cert", "/etc/ca.pem", "--client-cert", "/etc/client.pem", "--cache-dir", "/var/cache/pip",
        "--constraint", "/etc/c.txt", "--timeout", "60", "torch==2.9.1+cu128", "torchvision==0.24.1+cu128"]


def test_pip_args_of_a_wheelhouse_a_source_plan_and_a_hashes_file():
    assert rs.pip_args(WHEEL, dict(PIP, index="https://pypi.org/simple"))[:2] == ["--index-url", "https://pypi.org/simple"]
    offline = rs.pip_args(SOURCE, dict(PIP, wheelhouse="/srv/wheels", hashes_file="/srv/wheels/hashes.txt"))
    assert offline == ["--no-index", "--find-links", "/srv/wheels", "--find-links", "/opt/pytorch/wheelhouse",
                       "--only-binary", "torch,torchvision,torchaudio",
                       "--require-hashes", "--requirement", "/srv/wheels/hashes.txt"]


def test_build_pip_args():
    assert rs.build_pip_args(PIP) == []
    assert rs.build_pip_args(dict(PIP, wheelhouse="/srv/wheels", trusted_hosts=["a", "b"], proxy="http://p:1")) == [
        "--no-index", "--find-links", "/srv/wheels", "--trusted-host=a", "--trusted-host=b", "--proxy", "http://p:1"]


def test_check_policy_applies_min_verdict_only_with_gpus():
    gpus = [{"index": 0, "sm": "sm_120"}]
    assert rs.check_policy(gpus, "native", ["nccl", "bf16"]) == {"min_verdict": "native", "require": ["nccl", "bf16"]}
    assert rs.check_policy([], "native", ["nccl", "bf16", "torchvision"]) == {
        "min_verdict": "", "require": ["nccl", "torchvision"]}
    assert rs.check_policy(gpus, "", None) == {"min_verdict": "", "require": []}


def test_published_fact_of_a_run_and_of_a_host_already_as_asked():
    state = rs.role_state(_own(WHEEL, fallback=SOURCE), None, SETTINGS)
    check = {"reused": False, "build": {"torch_version": "2.9.1+cu128"}, "gpus": []}
    assert rs.published(state, WHEEL, state["steps"], check, "/opt/pytorch/current/") == {
        "stack": "torch-2.9.1-cu128", "python": "/opt/pytorch/current/bin/python", "torch": "2.9.1+cu128",
        "channel": "cu128", "method": "wheel", "converged": False,
        "check": {"reused": False, "build": {"torch_version": "2.9.1+cu128"}}, "source": None, "warnings": []}
    fell_back = rs.published(state, SOURCE, state["fallback_steps"], None, "/opt/pytorch/current")
    assert (fell_back["stack"], fell_back["method"], fell_back["torch"], fell_back["check"]) == (
        SOURCE["stack"], "source", "2.9.1", None)
    assert fell_back["source"] == {"wheel": "", "built": False, "reports": []}
    stood = rs.role_state(_own(WHEEL, converged=True, stack=SOURCE["stack"]), None, SETTINGS)
    fact = rs.published(stood, WHEEL, stood["steps"], dict(check, reused=True), "/opt/pytorch/current")
    assert fact["converged"] and fact["stack"] == SOURCE["stack"] and fact["check"]["reused"]
    adopted = rs.published({"adopting": True, "converged": False}, None, {"stack": "adopted-venv"}, None, "/c")
    assert (adopted["method"], adopted["stack"], adopted["channel"]) == ("adopted", "adopted-venv", "")


def test_published_of_a_change_path_takes_the_plan_its_steps_carry_and_current_under_the_root():
    state = rs.decide(_own(WHEEL, fallback=SOURCE), None, SETTINGS)
    check = {"reused": False, "build": {"torch_version": "2.9.1+cu128"}}
    assert rs.published(state, None, state["steps"], check, "") == rs.published(
        state, WHEEL, state["steps"], check, "/opt/pytorch/current")
    fell_back = rs.published(state, None, state["fallback_steps"], {}, "", {})
    assert fell_back == rs.published(state, SOURCE, state["fallback_steps"], None, "/opt/pytorch/current")
    adopted = rs.adopted_steps({"stack": "adopted-venv", "python": "/srv/venv/bin/python3"}, 2, "/opt/pytorch")
    fact = rs.published(dict(state, adopting=True), None, adopted, None, "")
    assert (fact["method"], fact["stack"], fact["torch"], fact["python"]) == (
        "adopted", "adopted-venv", "", "/opt/pytorch/current/bin/python")


def test_gate_failure_names_the_failed_stack_and_the_decisions_fallback_and_current():
    failed = {"msg": "found none", "gpus": [{"kernel_image": {"verdict": "none"}}]}
    state = rs.decide(_own(WHEEL, fallback=SOURCE), None, SETTINGS)
    assert rs.gate_failure(failed, state, state["steps"]) == ""  # auto builds from source instead
    assert rs.gate_failure(failed, state, state["fallback_steps"]) == (
        "found none -- /opt/pytorch/venvs/torch-2.9.1-cu128-src is kept for inspection; /opt/pytorch/current was not "
        "moved.")
    alone = rs.decide(_own(WHEEL), None, SETTINGS)
    assert rs.gate_failure(failed, alone, alone["steps"]) == (
        "found none -- /opt/pytorch/venvs/torch-2.9.1-cu128 is kept for inspection; /opt/pytorch/current was not moved.")
    adopted = rs.adopted_steps({"stack": "a"}, 2, "/opt/pytorch")
    assert rs.gate_failure(failed, dict(alone, adopting=True), adopted).startswith(
        "found none -- /opt/pytorch/venvs/a is kept")


def test_published_source_build():
    state = rs.role_state(_own(SOURCE), None, SETTINGS)
    wheel = "torch-2.9.1-cp312-cp312-linux_x86_64.whl"
    built = rs.published(state, SOURCE, state["steps"], None, "/c", {"wheel": wheel, "reports": ["a", "b"]})
    assert built["source"] == {"wheel": wheel, "built": True, "reports": ["a", "b"]}
    skipped = rs.published(state, dict(SOURCE, built_wheel=wheel), state["steps"], None, "/c",
                           {"skipped": True, "changed": False})
    assert skipped["source"] == {"wheel": wheel, "built": False, "reports": []}


def test_the_profile_text_is_the_stack_and_the_runtime_settings_shell_quoted():
    assert rs.profile_text("/opt/pytorch/current", "LAZY", "expandable_segments:True") == (
        "# Ansible managed (blackwell.pytorch role pytorch)\n"
        "# PyTorch runtime settings (docs/domain.md section 6). Activate the stack with:\n"
        "#   . /opt/pytorch/current/bin/activate\n"
        "export PYTORCH_STACK=/opt/pytorch/current\n"
        "export CUDA_MODULE_LOADING=LAZY\n"
        "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True\n")
    text = rs.profile_text("/opt/py torch/current", "EAGER", "a b'c", allow_tf32=True, managed="Lab managed")
    assert text.splitlines()[0] == "# Lab managed (blackwell.pytorch role pytorch)"
    assert "export PYTORCH_STACK='/opt/py torch/current'\n" in text
    assert "export PYTORCH_CUDA_ALLOC_CONF='a b'\"'\"'c'\n" in text
    assert text.endswith("# TF32 matmuls (pytorch_allow_tf32: true): faster, changes numerics.\n"
                         "export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1\n")
