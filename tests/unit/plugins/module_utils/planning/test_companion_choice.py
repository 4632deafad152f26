# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Companions (torchvision, torchaudio) are never dropped quietly: the default choice is the newest torch for which
every companion of pytorch_companions is on the index; a torch without them only when pytorch_version names it (then
with a warning) or pytorch_companions leaves them out. Catalogs as planning.index_catalog reads them from a PyPI-like index
(unlabelled builds; "" where the index has no companion for the torch)."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
INDEX = "https://pypi.lab.example/simple"


def catalog(companions, channels=None):
    """A PyPI-like index's catalog: {torch: {companion: version or ""}}; every build cu130 unless given."""
    return {"source": "index %s" % INDEX, "index": True, "notes": [], "listed": sorted(companions),
            "torch": dict((version, {(channels or {}).get(version, "cu130"): ""}) for version in companions),
            "companions": companions}


NEWEST_BARE = catalog({"2.15.0": {"torchvision": "", "torchaudio": ""},
                       "2.14.1": {"torchvision": "0.29.1", "torchaudio": "2.14.1"}})


def plan(found, **kwargs):
    args = dict(gpus=[RTX5090], driver_cuda="13.0", catalog=found)
    args.update(kwargs)
    return resolve_stack(**args)


def test_default_choice_passes_over_the_newest_torch_without_its_companions_with_one_warning():
    found = plan(NEWEST_BARE)
    assert found["error"] is None and found["torch"] == "2.14.1" and found["channel"] == "cu130"
    assert found["pins"] == ["torch==2.14.1", "torchaudio==2.14.1", "torchvision==0.29.1"]
    assert found["warnings"] == [
        "passed over torch 2.15.0 (no torchvision, torchaudio) on index %s: planned torch 2.14.1, the newest with "
        "every companion of pytorch_companions. To install 2.15.0 without them: "
        'make site ARGS="-e pytorch_version=2.15.0"' % INDEX]
    assert "2.15" not in found["reason"]


def test_every_torch_passed_over_is_named_with_what_it_lacks():
    found = plan(catalog({"2.15.0": {"torchvision": "", "torchaudio": ""},
                          "2.14.1": {"torchvision": "0.29.1", "torchaudio": ""},
                          "2.9.1": {"torchvision": "0.24.1", "torchaudio": "2.9.1"}}, {"2.9.1": "cu128"}))
    assert found["torch"] == "2.9.1" and found["pins"] == ["torch==2.9.1", "torchaudio==2.9.1", "torchvision==0.24.1"]
    assert found["warnings"] == [
        "passed over torch 2.15.0 (no torchvision, torchaudio), 2.14.1 (no torchaudio) on index %s: planned torch "
        "2.9.1, the newest with every companion of pytorch_companions. To install 2.15.0 without them: "
        'make site ARGS="-e pytorch_version=2.15.0"' % INDEX]


def test_a_torch_the_driver_cannot_run_is_not_named_as_passed_over():
    found = plan(catalog({"2.15.0": {"torchvision": "", "torchaudio": ""},
                          "2.14.1": {"torchvision": "0.29.1", "torchaudio": "2.14.1"}}, {"2.15.0": "cu132"}))
    assert found["torch"] == "2.14.1" and found["warnings"] == []
    assert found["reason"].endswith("; skipped 2.15 (no channel fits)")


def test_a_pinned_torch_without_its_companions_is_installed_without_them_with_a_warning():
    found = plan(NEWEST_BARE, version="2.15.0")
    assert found["error"] is None and found["pins"] == ["torch==2.15.0"] and found["companions"] == {}
    assert found["warnings"] == [
        "torch 2.15.0 is installed without torchvision, torchaudio: index %s has none for it. Leave pytorch_version "
        "empty for the newest torch that has them, or set pytorch_companions: [] to install torch alone" % INDEX]


def test_one_missing_companion_of_a_pinned_torch_is_named_alone():
    found = plan(catalog({"2.14.1": {"torchvision": "0.29.1", "torchaudio": ""}}), version="2.14")
    assert found["pins"] == ["torch==2.14.1", "torchvision==0.29.1"]
    assert found["warnings"] == [
        "torch 2.14.1 is installed without torchaudio: index %s has none for it. Leave pytorch_version empty for the "
        "newest torch that has them, or set pytorch_companions: [] to install torch alone" % INDEX]


def test_no_companions_asked_takes_the_newest_torch_and_warns_nothing():
    found = plan(NEWEST_BARE, companions=[])
    assert (found["torch"], found["pins"], found["warnings"]) == ("2.15.0", ["torch==2.15.0"], [])


def test_only_the_companions_asked_for_count():
    found = plan(catalog({"2.15.0": {"torchvision": "0.30.0", "torchaudio": ""},
                          "2.14.1": {"torchvision": "0.29.1", "torchaudio": "2.14.1"}}), companions=["torchvision"])
    assert (found["torch"], found["pins"], found["warnings"]) == ("2.15.0", ["torch==2.15.0", "torchvision==0.30.0"], [])


def test_no_torch_with_every_companion_is_refused_naming_what_to_set():
    with pytest.raises(PlanError) as refused:
        plan(catalog({"2.15.0": {"torchvision": "0.30.0", "torchaudio": ""},
                      "2.14.1": {"torchvision": "0.29.1", "torchaudio": ""}}))
    assert str(refused.value) == (
        "no torch release on index %s has every companion of pytorch_companions (torchvision, torchaudio) with a build "
        "for GPU 0 (NVIDIA GeForce RTX 5090, sm_120) that driver CUDA 13.0 supports: torch 2.15.0 (no torchaudio), "
        "2.14.1 (no torchaudio). Nothing was installed. Leave what is missing out of pytorch_companions, or install "
        'the newest torch without it: make site ARGS="-e pytorch_version=2.15.0"' % INDEX)


def test_the_plan_line_carries_no_warning():
    found = plan(NEWEST_BARE)
    line = role_messages.plan_summary(found)
    assert line == ("torch-2.14.1-cu130 (wheel): torch==2.14.1 torchaudio==2.14.1 torchvision==0.29.1; %s; "
                    "predicted: GPU 0 (NVIDIA GeForce RTX 5090, sm_120) native" % found["reason"])
    assert "passed over" not in line
