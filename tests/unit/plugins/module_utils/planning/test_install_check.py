# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.install_check import (
    arch_entries, build_problems, expected_build)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import stack_probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
H100 = {"index": 1, "name": "NVIDIA H100", "sm": "sm_90"}
CU130 = "sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"


def test_expected_build_from_a_plan():
    plan = resolve_stack(version="2.9.1", channel="cu130", gpus=[RTX5090, H100])
    assert expected_build(plan, [RTX5090, H100]) == {
        "stack": "torch-2.9.1-cu130", "channel": "cu130", "cuda": "13.0", "sms": ["sm_120", "sm_90"], "source": False}


def test_arch_entries_of_both_spellings():
    assert arch_entries("sm_75 sm_90a compute_120") == ["sm_75", "sm_90a", "compute_120"]
    assert arch_entries("-gencode arch=compute_90,code=sm_90") == ["compute_90", "sm_90"]


def test_the_planned_build_has_no_problems():
    expected = {"stack": "torch-2.9.1-cu130", "channel": "cu130", "cuda": "13.0", "sms": ["sm_120"], "source": False}
    assert build_problems(expected, {"version": "2.9.1+cu130", "cuda": "13.0", "arch_flags": CU130}) == []
    # PyPI's unlabelled build of the same CUDA is the same build
    assert build_problems(expected, {"version": "2.9.1", "cuda": "13.0", "arch_flags": CU130}) == []


def test_the_reported_case_a_cu130_stack_holding_cu128():
    expected = {"stack": "torch-2.9.1-cu130", "channel": "cu130", "cuda": "13.0", "sms": ["sm_120"], "source": False}
    assert build_problems(expected, {"version": "2.9.1+cu128", "cuda": "12.8", "arch_flags": "sm_90 sm_120"}) == [
        "torch 2.9.1+cu128 is a cu128 build; the plan (torch-2.9.1-cu130) chose cu130",
        "torch 2.9.1+cu128 reports CUDA 12.8 (torch.version.cuda); the plan (torch-2.9.1-cu130) chose cu130, CUDA 13.0"]


def test_missing_kernels_and_cpu_builds():
    expected = {"stack": "torch-2.7.1-cu126", "channel": "cu126", "cuda": "12.6", "sms": ["sm_120"], "source": False}
    assert build_problems(expected, {"version": "2.7.1", "cuda": "12.6", "arch_flags": "sm_80 sm_90"}) == [
        "torch 2.7.1 carries sm_80 sm_90 (torch._C._cuda_getArchFlags()): no native kernels for sm_120, which the "
        "plan (torch-2.7.1-cu126) predicted"]
    cpu = build_problems(expected, {"version": "2.7.1+cpu", "cuda": None, "arch_flags": ""})
    assert cpu[0] == "torch 2.7.1+cpu is a cpu build; the plan (torch-2.7.1-cu126) chose cu126"
    assert "reports CUDA none (a CPU build)" in cpu[1] and "carries no CUDA kernels" in cpu[2]


def test_a_source_build_is_judged_by_its_kernels_only():
    expected = {"stack": "torch-2.9.1-src", "channel": "cu128", "cuda": "12.8", "sms": ["sm_120"], "source": True}
    assert build_problems(expected, {"version": "2.9.1+src", "cuda": "12.9", "arch_flags": "sm_120"}) == []
    assert build_problems({}, {"version": "x"}) == [] and build_problems(expected, None) == []


def test_the_stack_probe_reads_the_build_without_a_gpu():
    class Version(object):
        cuda = "12.8"

    class C(object):
        @staticmethod
        def _cuda_getArchFlags():
            return "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"

    torch = type("torch", (), {"__version__": "2.9.1+cu128", "version": Version, "_C": C})
    assert stack_probe.torch_build(torch) == {"version": "2.9.1+cu128", "cuda": "12.8",
                                              "arch_flags": "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"}
    cpu = type("torch", (), {"__version__": "2.9.1+cpu", "version": type("v", (), {"cuda": None}), "_C": object()})
    assert stack_probe.torch_build(cpu) == {"version": "2.9.1+cpu", "cuda": None, "arch_flags": ""}
