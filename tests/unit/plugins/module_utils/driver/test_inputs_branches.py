"""nvidia_driver_branch against the branch catalogue: known branches pass, an announced-only branch is refused,
an unknown or ended branch passes with a warning (driver/inputs.py)."""
from __future__ import annotations

import datetime

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.inputs import (
    branch_problems, branch_warnings)

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
GB300 = {"index": 0, "name": "NVIDIA GB300", "compute_capability": "10.3", "sm": "sm_103"}
BEFORE = datetime.date(2026, 7, 1)
AFTER = datetime.date(2026, 11, 29)
RECOMMENDED = "580 (long-term support branch, supported to June 2028, CUDA 13.0)"


@pytest.mark.parametrize("branch", ["580", "595", "610", 595, " 610 "])
def test_a_known_branch_passes_for_blackwell(branch):
    assert branch_problems(branch, [RTX5090, GB300]) == []


def test_the_announced_only_branch_is_refused():
    assert branch_problems("620", [RTX5090]) == [
        "nvidia_driver_branch 620 is announced by NVIDIA but has no packages yet: 620 (long-term support branch, "
        "announced, no packages yet, supported to September 2029, CUDA version not yet published). Set "
        "nvidia_driver_branch: 580 (long-term support branch) until NVIDIA publishes it"]
    assert branch_problems(620) == branch_problems("620", [RTX5090])


@pytest.mark.parametrize("branch", ["999", "600", "590"])
def test_an_unknown_three_digit_branch_passes_as_before(branch):
    assert branch_problems(branch, [RTX5090]) == []


def test_an_unknown_branch_too_old_for_the_gpu_is_still_refused():
    assert branch_problems("565", [RTX5090]) == [
        "nvidia_driver_branch 565 cannot drive the GPUs here: NVIDIA GeForce RTX 5090 (sm_120) needs branch 570 "
        "or newer. Set nvidia_driver_branch: 580 (long-term branch)"]


def test_what_is_no_branch_is_refused_as_before():
    assert branch_problems("580.95.05") == [
        "nvidia_driver_branch must be a driver branch of three digits such as 580, not '580.95.05' (a branch is "
        "the first number of a driver version: 580; the flavor is nvidia_driver_flavor)"]


@pytest.mark.parametrize("branch", ["580", "595", "610"])
def test_no_warning_for_a_known_branch_in_support(branch):
    assert branch_warnings(branch, BEFORE) == []


def test_a_branch_past_its_end_of_support_is_warned():
    assert branch_warnings("610", AFTER) == [
        "nvidia_driver_branch 610 is past its end of support (610 (new feature branch, supported to August 2026, "
        "CUDA 13.3)): it gets no more fixes; move to %s" % RECOMMENDED]
    assert branch_warnings("595", AFTER) == []


def test_an_unknown_branch_is_warned():
    assert branch_warnings(999, BEFORE) == [
        "nvidia_driver_branch 999 is not in the collection's branch catalogue (580, 595, 610, 620): its kind, "
        "support window and CUDA version are unknown here, and it installs only if NVIDIA's repository has it; "
        "the long-term choice is %s" % RECOMMENDED]


@pytest.mark.parametrize("branch", ["", None, "580-open", "abc", "58"])
def test_no_warning_for_what_is_no_branch(branch):
    assert branch_warnings(branch, BEFORE) == []
