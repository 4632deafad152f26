# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import inputs
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError

H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0"}


def refusal(function, *args, **kwargs):
    """The message of the PlanError `function` raises (it must raise one)."""
    with pytest.raises(PlanError) as refused:
        function(*args, **kwargs)
    return str(refused.value)


@pytest.mark.parametrize("value,want", [
    (True, True), (False, False), ("false", False), ("False", False), ("no", False), ("off", False), ("0", False),
    (0, False), ("true", True), ("yes", True), ("1", True), (1, True), (" On ", True)])
def test_booleans_as_ansible_reads_them(value, want):
    assert inputs.as_bool(value, "pytorch_pin_local_label") is want


@pytest.mark.parametrize("value, got", [("maybe", "got 'maybe'"), ("", "got ''"), (None, "not empty"), (2, "got 2"),
                                        ([True], "got [True]"), (1.0, "got 1.0")])
def test_other_booleans_are_refused(value, got):
    with pytest.raises(ValueError) as caught:
        inputs.as_bool(value, "pytorch_pin_local_label")
    assert str(caught.value) == "pytorch_pin_local_label must be true or false, " + got


def test_string_false_reaches_the_pins():
    plan = resolve_stack(version="2.9.1", channel="cu128", gpus=[H100], local_label="false", companions="torchvision")
    assert plan["pins"] == ["torch==2.9.1", "torchvision==0.24.1"]


def test_version_given_as_a_number_is_refused():
    with pytest.raises(ValueError, match=r'pytorch_version is the number 2.1, not a version: YAML reads 2.10 as 2.1. '
                                         r'Quote it \(pytorch_version: "2.1"\)'):
        inputs.as_version(2.1, "pytorch_version")
    assert refusal(resolve_stack, version=2.1).startswith("pytorch_version is the number 2.1")
    assert inputs.as_version(" 2.10 ", "v") == "2.10" and inputs.as_version(None, "v") == ""


@pytest.mark.parametrize("value,want", [
    (["torchvision"], ["torchvision"]), ("torchvision,torchaudio", ["torchvision", "torchaudio"]),
    ("torchvision torchaudio", ["torchvision", "torchaudio"]), ('["torchvision", "torchaudio"]', ["torchvision", "torchaudio"]),
    ("[torchvision]", ["torchvision"]), ("", []), ("[]", []), (None, []), (("torchaudio",), ["torchaudio"])])
def test_lists_given_as_text(value, want):
    assert inputs.as_list(value, "pytorch_companions") == want


@pytest.mark.parametrize("value", [{"a": 1}, 3, 3.5, '{"a": 1}'])
def test_other_lists_are_refused(value):
    with pytest.raises(ValueError, match="pytorch_companions must be a list"):
        inputs.as_list(value, "pytorch_companions")


def test_paths_must_be_absolute():
    assert inputs.as_path("/srv/wheels", "pytorch_wheelhouse") == "/srv/wheels"
    assert inputs.as_path("file:///srv/wheels", "pytorch_wheelhouse") == "/srv/wheels"
    assert inputs.as_path("", "pytorch_wheelhouse") == ""
    with pytest.raises(ValueError, match=r"pytorch_wheelhouse must be an absolute path on the target, got 'wheels'"):
        inputs.as_path("wheels", "pytorch_wheelhouse")
    with pytest.raises(ValueError, match="not empty"):
        inputs.as_path(None, "pytorch_root", required=True)


@pytest.mark.parametrize("value,want", [
    ("13.0", "13.0"), (13.0, "13.0"), (12.8, "12.8"), ("12.8.93", "12.8"), ("cuda-12.8", "12.8"), (13000, "13.0"),
    ("12080", "12.8"), ("", ""), (None, "")])
def test_cuda_versions(value, want):
    assert inputs.as_cuda(value, "pytorch_driver_cuda_version") == want


@pytest.mark.parametrize("value", ["580.95.05", "580", 580, "575.51.03"])
def test_driver_version_where_cuda_belongs_is_refused(value):
    with pytest.raises(ValueError, match="pytorch_driver_cuda_version is %s, a driver version, not a CUDA version" % value):
        inputs.as_cuda(value, "pytorch_driver_cuda_version")
    assert "a driver version" in refusal(resolve_stack, version="2.9.1", driver_cuda=value)


@pytest.mark.parametrize("value", ["x", True, "13"])
def test_other_cuda_text_is_refused(value):
    with pytest.raises(ValueError, match="must be a CUDA version"):
        inputs.as_cuda(value, "v")


def test_integers():
    assert inputs.as_int("2", "pytorch_keep_stacks", 1) == 2 and inputs.as_int(3.0, "k") == 3
    for bad, why in (("two", "whole number"), (2.5, "whole number"), ("0", "at least 1"), (True, "whole number")):
        with pytest.raises(ValueError, match=why):
            inputs.as_int(bad, "pytorch_keep_stacks", 1)
