# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pytorch_plan against real PyPI-like indexes on disk (wheel_index_fixture's wheels and pages) where the newest torch
has no torchvision / torchaudio: the plan takes the newest torch that has every companion of pytorch_companions, and
what it passed over, or left out, is a module warning (Ansible's [WARNING]), not a clause of the plan's line."""
from __future__ import annotations

import os

import pytest

import wheel_index_fixture
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import plan_call
from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_plan

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
CUDA_130 = "cuda-toolkit[cublas,cudart,nvrtc]==13.0.2" + wheel_index_fixture.LINUX


def newest_bare_index(root):
    """A PyPI-like index: torch 2.15.0 without companions, 2.14.1 with torchvision 0.29.1 and torchaudio 2.14.1."""
    files = os.path.join(root, "files")
    os.makedirs(files)
    pages = {"torch": [wheel_index_fixture.wheel(files, "torch", version, [CUDA_130], members=1500)
                       for version in ("2.14.1", "2.15.0")],
             "torchvision": [wheel_index_fixture.wheel(files, "torchvision", "0.29.1", ["torch==2.14.1"])],
             "torchaudio": [wheel_index_fixture.wheel(files, "torchaudio", "2.14.1", ["torch==2.14.1"])]}
    for name, names in pages.items():
        wheel_index_fixture._page(os.path.join(root, "pypi"), name, names, ("torchvision", "torchaudio"), files)
    return "file://%s/pypi" % root


@pytest.fixture
def planning(tmp_path, run_module, monkeypatch):
    monkeypatch.setattr(plan_call.platform, "machine", lambda: "x86_64")
    python = tmp_path / "python3.11"  # the fixture wheels are cp311
    python.write_text("#!/bin/sh\necho 'Python 3.11.9'\n")
    python.chmod(0o755)

    def call(index, **changes):
        options = {"python": str(python), "gpus": [RTX_5090], "driver_cuda": "13.0", "host": "ws-1", "index": index}
        options.update(changes)
        return run_module(pytorch_plan, options)
    return call


def test_the_default_plan_takes_the_newest_torch_with_its_companions_and_warns_what_it_passed_over(tmp_path, planning):
    index = newest_bare_index(str(tmp_path / "bare"))
    status, result = planning(index)
    assert status == "exit" and result["plan"]["torch"] == "2.14.1"
    assert result["plan"]["pins"] == ["torch==2.14.1", "torchaudio==2.14.1", "torchvision==0.29.1"]
    warning = ("passed over torch 2.15.0 (no torchvision, torchaudio) on index %s: planned torch 2.14.1, the newest "
               "with every companion of pytorch_companions. To install 2.15.0 without them: "
               'make site ARGS="-e pytorch_version=2.15.0"' % index)
    assert result["warnings"] == [warning] and result["plan"]["warnings"] == [warning]
    assert "passed over" not in result["summary"] and result["summary"].startswith("torch-2.14.1-cu130 (wheel): ")


def test_a_pinned_torch_is_planned_without_the_companions_the_index_lacks_with_a_warning(tmp_path, planning):
    index = newest_bare_index(str(tmp_path / "bare"))
    status, result = planning(index, version="2.15.0")
    assert status == "exit" and result["plan"]["pins"] == ["torch==2.15.0"]
    assert result["warnings"] == [
        "torch 2.15.0 is installed without torchvision, torchaudio: index %s has none for it. Leave pytorch_version "
        "empty for the newest torch that has them, or set pytorch_companions: [] to install torch alone" % index]
    assert "without" not in result["summary"]


def test_no_companions_asked_plans_the_newest_torch_alone_and_warns_nothing(tmp_path, planning):
    status, result = planning(newest_bare_index(str(tmp_path / "bare")), companions=[])
    assert status == "exit" and result["plan"]["pins"] == ["torch==2.15.0"] and result["warnings"] == []


def test_the_index_is_read_further_back_until_a_torch_has_every_companion(tmp_path, planning):
    """The shared PyPI-like fixture: 2.15.0 has no companion, 2.14.1 and 2.12.1 a torchvision only, 2.9.1 both; the
    three newest lines are read first, then older ones until one has every companion."""
    tree = wheel_index_fixture.build(str(tmp_path / "indexes"))
    index = "file://%s/pypi" % tree
    status, result = planning(index, driver_cuda="13.2")
    assert status == "exit" and result["plan"]["torch"] == "2.9.1" and result["plan"]["channel"] == "cu128"
    assert result["plan"]["pins"] == ["torch==2.9.1", "torchaudio==2.9.1", "torchvision==0.24.1"]
    assert result["warnings"] == [
        "passed over torch 2.15.0 (no torchvision, torchaudio), 2.14.1 (no torchaudio), 2.12.1 (no torchaudio) on "
        "index %s: planned torch 2.9.1, the newest with every companion of pytorch_companions. To install 2.15.0 "
        'without them: make site ARGS="-e pytorch_version=2.15.0"' % index]
    assert sorted(result["plan"]["index"]["read"]) == ["2.12.1", "2.14.1", "2.15.0", "2.9.1"]
    status, result = planning(index, driver_cuda="13.2", companions=["torchvision"])
    assert result["plan"]["torch"] == "2.14.1" and sorted(result["plan"]["index"]["read"]) == [
        "2.12.1", "2.14.1", "2.15.0"]
    assert result["warnings"] == [
        "passed over torch 2.15.0 (no torchvision) on index %s: planned torch 2.14.1, the newest with every companion "
        'of pytorch_companions. To install 2.15.0 without them: make site ARGS="-e pytorch_version=2.15.0"' % index]
