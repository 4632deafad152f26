# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import re

import pytest
from jinja2 import Environment

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages as msgs
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_steps
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.source_build import arch_rejections

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
OLD_TREE = r'''
    if(arch_name MATCHES "^([0-9]\\.[0-9](\\([0-9]\\.[0-9]\\))?)$")
      set(arch_bin ${CMAKE_MATCH_1})
    else()
      if(${arch_name} STREQUAL "Turing")
      elseif(${arch_name} STREQUAL "Ampere")
'''


def _plan(**kwargs):
    args = dict(version="2.9.1", channel="cu128", torchvision="", torchaudio="", companions=["torchvision", "torchaudio"],
                gpus=[RTX_5090], driver_cuda="13.0", method="wheel", toolkit_cuda=None, builds=True,
                local_label=True, cuda_home="/usr/local/cuda")
    args.update(kwargs)
    return resolve_stack(**args)


def test_plan_summary_of_a_real_plan():
    assert msgs.plan_summary(_plan()) == (
        "torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 torchaudio==2.9.1+cu128 torchvision==0.24.1+cu128; "
        "torch 2.9.1 as requested; predicted: GPU 0 (NVIDIA GeForce RTX 5090, sm_120) native")


def test_plan_summary_without_gpus_says_its_warnings_apart():
    # No channel given: the plan still names one (the newest the driver supports), never "pypi" or None. Its warnings
    # are no clause of the line (pytorch_plan gives them as warnings of their own).
    plan = dict(_plan(gpus=[], channel="", companions=["torchvision"]), warnings=["a", "b"])
    assert msgs.plan_summary(plan) == (
        "torch-2.9.1-cu130 (wheel): torch==2.9.1+cu130 torchvision==0.24.1+cu130; torch 2.9.1 as requested; "
        "channel cu130: the newest build of torch 2.9.1 in the matrix with native kernels for any GPU (none in the "
        "facts) that driver CUDA 13.0 supports; predicted: no GPU in the facts")


def _stat(var, path, want_dir, **stat):
    return {"item": {"var": var, "path": path, "dir": want_dir}, "stat": dict({"exists": True}, **stat)}


def test_missing_paths():
    results = [
        _stat("pytorch_wheelhouse", "/srv/wheels", True, isdir=True, isreg=False),
        {"item": {"var": "pytorch_hashes_file", "path": "", "dir": False}, "skipped": True},
        {"item": {"var": "pytorch_wheelhouse", "path": "/nonexistent/wheels", "dir": True}, "stat": {"exists": False}},
        _stat("pytorch_constraints_file", "/etc/pip", False, isdir=True, isreg=False),
    ]
    assert msgs.missing_paths(results, "ws-1") == [
        "pytorch_wheelhouse /nonexistent/wheels is not a directory on ws-1.",
        "pytorch_constraints_file /etc/pip is not a file on ws-1."]
    assert msgs.missing_paths(results[:2], "ws-1") == []


def test_arch_refusal_names_the_tree_and_the_way_out():
    rejected = arch_rejections(OLD_TREE, "12.0")
    assert msgs.arch_refusal("12.0", rejected, "/srv/pytorch-old", "v2.9.0", "/usr/local/cuda") == (
        "TORCH_CUDA_ARCH_LIST=12.0 cannot be built from /srv/pytorch-old (v2.9.0) with /usr/local/cuda: "
        "12.0: 12.0 does not match the tree's pattern ^([0-9]\\.[0-9](\\([0-9]\\.[0-9]\\))?)$ and is not one of "
        "its names (Ampere, Turing). Use a newer PyTorch ref (or toolkit), or set pytorch_build_arch_list.")
    assert msgs.arch_refusal("8.9", arch_rejections(OLD_TREE, "8.9"), "/t", "v2.9.0", "/c") == ""
    assert msgs.arch_refusal("", [], "/t", "v", "/c").startswith("no GPU with a known compute capability")


CHECK = {"build": {"torch_version": "2.9.1+cu128"},
         "gpus": [{"name": "NVIDIA GeForce RTX 5090", "sm": "sm_120", "kernel_image": {"verdict": "native"}},
                  {"name": "NVIDIA L4", "sm": "sm_89", "kernel_image": {"verdict": "ptx_jit"}}]}


def test_check_summary():
    assert msgs.check_summary("torch-2.9.1-cu128", CHECK, True, "native", ["nccl"]) == (
        "torch-2.9.1-cu128: torch 2.9.1+cu128; NVIDIA GeForce RTX 5090 sm_120 native, NVIDIA L4 sm_89 ptx_jit; "
        "min_verdict native, require nccl: passed")
    assert msgs.check_summary("s", dict(CHECK, gpus=[]), False, "native") == (
        "s: torch 2.9.1+cu128; no GPU visible; no verdict required (no GPU in the facts): passed")


@pytest.mark.parametrize("gpus, min_verdict, require", [
    ([{"index": 0}], "native", ["nccl"]), ([], "native", ["nccl", "bf16"]), ([{"index": 0}], "", [])],
    ids=["gpus", "no-gpu", "no-min-verdict"])
def test_gate_summary_is_check_summary_under_the_gates_policy(gpus, min_verdict, require):
    policy = role_steps.check_policy(gpus, min_verdict, require)
    expected = msgs.check_summary("s", CHECK, bool(gpus), min_verdict, policy["require"])
    assert msgs.gate_summary("s", CHECK, policy) == expected
    assert msgs.gate_summary("s", CHECK, {"min_verdict": "", "require": []}).endswith(
        "; no verdict required (no GPU in the facts): passed")


@pytest.mark.parametrize("text", ["short", "x" * 305, "x" * 306, ("word " * 80).strip(), "a " * 200])
def test_truncate_is_jinjas(text):
    assert msgs.truncate(text) == Environment().from_string("{{ t | truncate(300) }}").render(t=text)


def test_elapsed():
    assert [msgs.elapsed(s) for s in (0, 59.9, 3725, 86399)] == ["0:00:00", "0:00:59", "1:02:05", "23:59:59"]


def test_poll_report_of_a_build_and_of_pip():
    line = "[1021/2400] Building CUDA object aten/src/ATen/native/cuda/Sort.cu.o (sm_89 sm_120)"
    build = msgs.poll_report("torch build", "bw-a", 75, False, line + "\n")
    assert re.match(r"torch build on bw-a: 0:[0-9]{2}:[0-9]{2} elapsed, running; last log line: ", build)
    assert build.endswith(line)
    assert msgs.poll_report("torch build", "bw-a", 3725, True, "") == (
        "torch build on bw-a: 1:02:05 elapsed, finished; last log line: ")
    pip = msgs.poll_report("pip install", "ws", 3, False, "Collecting torch==2.9.1+cu128\n")
    assert pip == "pip install on ws: 0:00:03 elapsed, running; 0 downloads, 0.0 MB; Collecting torch==2.9.1+cu128"


FAILED = {"msg": "GPU 0 (NVIDIA GeForce RTX 5090, sm_120): min_verdict=native required, found none",
          "gpus": [{"name": "NVIDIA GeForce RTX 5090", "sm": "sm_120", "kernel_image": {"verdict": "none"}}]}


def test_gate_failure_keeps_the_stack_and_current():
    assert msgs.gate_failure(FAILED, _plan(), None, "/opt/pytorch/venvs/torch-2.9.1-cu128", "/opt/pytorch/current") == (
        FAILED["msg"] + " -- /opt/pytorch/venvs/torch-2.9.1-cu128 is kept for inspection; "
        "/opt/pytorch/current was not moved.")


def test_gate_failure_gives_way_to_a_source_build_only_for_a_wheel_without_kernels():
    source = _plan(method="source", channel="", toolkit_cuda="12.8")
    assert source["error"] is None
    assert msgs.gate_failure(FAILED, _plan(), source, "k", "c") == ""
    # a stack already built from source, a GPU that has a kernel, or no fallback: the check's failure stands
    assert msgs.gate_failure(FAILED, source, source, "k", "c").endswith("-- k is kept for inspection; c was not moved.")
    ptx = dict(FAILED, gpus=[{"kernel_image": {"verdict": "ptx_jit"}}])
    assert msgs.gate_failure(ptx, _plan(), source, "k", "c").startswith(FAILED["msg"] + " -- k is kept")
    assert msgs.gate_failure(dict(FAILED, gpus=None), _plan(), source, "k", "c").endswith("c was not moved.")


def test_gate_failure_refuses_a_source_plan_that_cannot_work():
    # the fallback plan as host_plan.fallback_plan keeps it: the PlanError's message in "error"
    with pytest.raises(PlanError) as refused:
        _plan(method="source", channel="", toolkit_cuda=None)
    no_toolkit = {"error": str(refused.value)}
    assert msgs.gate_failure(FAILED, _plan(), no_toolkit, "k", "c") == (
        "the wheel has no kernel for some GPU (%s) and %s" % (FAILED["msg"], no_toolkit["error"]))
    assert no_toolkit["error"].startswith("a source build needs a CUDA toolkit and there is none at /usr/local/cuda")
