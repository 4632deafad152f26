# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch role's refusals of bad requests, each with its whole message and nothing made (docs/reliability.md).

One real play (not check mode, as a user runs the role) over seven inventory hosts, this machine under seven names,
each asking for one thing the role must refuse: a version the matrix does not know, a companion from another torch
line, a channel without kernels for the host's RTX 5090, a missing wheelhouse, uv as the installer without uv, no
stack to keep, a source build without a toolkit. The plan reads the stand-in PyTorch index of the unit layer
(tests/fixtures/pypi_index, through file://), as the pytorch scenario's hosts read it; the GPU is declared
(pytorch_gpus). Each host stops at its own refusal, before any change, and its pytorch_root stays empty.
"""
from __future__ import annotations

import os
import sys

import pytest

from playbook import PREFLIGHT, RTX5090, facts, outcome, run

REFUSALS = {
    "unknown-version": (
        {"pytorch_version": "2.5.1"},
        "torch 2.5.1 is not in the version matrix; known versions: 2.6.0, 2.7.0, 2.7.1, 2.8.0, 2.9.0, 2.9.1, 2.10.0, "
        "2.11.0, 2.12.0, 2.12.1, 2.13.0, 2.14.0, 2.14.1, 2.15.0 (set pytorch_version to one of them, or extend "
        "plugins/module_utils/planning/matrix.py)"),
    "companion-from-another-line": (
        {"pytorch_torchvision_version": "0.23.0"},
        "pytorch_torchvision_version: torchvision 0.23.0 does not belong to torch 2.9.1+cu128 (expected 0.24.1); pip "
        "would silently replace torch to match it. Leave pytorch_torchvision_version empty (it follows torch) or set "
        "0.24.1"),
    "cu126-on-sm120": (
        {"pytorch_cuda_channel": "cu126"},
        "channel cu126 has no kernels for GPU 0 (NVIDIA GeForce RTX 5090, sm_120): torch 2.9.1+cu126 wheels carry sm_50 "
        "sm_60 sm_70 sm_75 sm_80 sm_86 sm_90. Nothing was installed. Use cu128 or cu130, or pytorch_install_method: "
        "source"),
    "missing-wheelhouse": (
        {"pytorch_wheelhouse": "/nonexistent/wheels"},
        "pytorch_wheelhouse /nonexistent/wheels is not a directory on missing-wheelhouse."),
    "uv-without-uv": (
        {"pytorch_installer": "uv", "pytorch_uv": "/nonexistent/uv"},
        "pytorch_installer is uv and pytorch_uv /nonexistent/uv is not an executable file on uv-without-uv: run the "
        "blackwell.pytorch.tools role first (it installs uv into blackwell_tools_venv when blackwell_tools_uv is true), "
        "set pytorch_uv to a uv executable, or set pytorch_installer: pip."),
    "keep-no-stack": (
        {"pytorch_keep_stacks": 0},
        "pytorch_keep_stacks is 0: keep at least 1 (the stack `current` points to is never deleted; 2 also keeps the one "
        "a rollback returns to)."),
    "source-without-toolkit": (
        {"pytorch_install_method": "source", "pytorch_cuda_home": "{{ rely_dir }}/no-cuda"},
        "a source build needs a CUDA toolkit and there is none at {no_cuda} (no bin/nvcc): install one (role "
        "blackwell.pytorch.cuda_toolkit), set pytorch_cuda_home, or use pytorch_install_method: wheel"),
}


@pytest.fixture(scope="module")
def refusals(tmp_path_factory, stand_in_wheels):
    tmp_path = tmp_path_factory.mktemp("pytorch-refusals")
    index = "file://%s/whl" % os.path.dirname(stand_in_wheels["files"])
    gpu = dict(RTX5090)
    hosts = {}
    for name, (values, _message) in REFUSALS.items():
        rely_dir = tmp_path / name
        (rely_dir / "pytorch").mkdir(parents=True)
        hosts[name] = dict({"blackwell_preflight": PREFLIGHT, "rely_facts": facts([RTX5090]), "rely_dir": str(rely_dir),
                            "pytorch_python": sys.executable, "pytorch_root": str(rely_dir / "pytorch"),
                            "pytorch_profile_path": "", "pytorch_installer": "pip", "pytorch_gpus": [gpu],
                            "pytorch_driver_cuda_version": "13.0", "pytorch_channel_base_url": index,
                            "pytorch_version": "2.9.1", "pytorch_cuda_channel": "cu128"}, **values)
    tasks = [{"name": "The pytorch role with a bad request", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.pytorch"}, "vars": {"ansible_facts": "{{ rely_facts }}"}}]
    rc, stdout, stderr = run(tmp_path, tasks, hosts, check=False)
    assert "plays" in stdout, stderr[-2000:]
    return {"rc": rc, "stdout": stdout, "tmp": tmp_path}


@pytest.mark.parametrize("host", sorted(REFUSALS))
def test_each_bad_request_is_refused_with_its_message_before_any_change(refusals, host):
    result = outcome(refusals["stdout"], host)
    expected = REFUSALS[host][1].format(no_cuda=refusals["tmp"] / host / "no-cuda")
    assert result["failed_task"] is not None and result["msg"] == expected, (result, expected)
    assert result["changed_before"] == [], result
    assert os.listdir(str(refusals["tmp"] / host / "pytorch")) == [], "the refusal made something under pytorch_root"


def test_the_play_fails(refusals):
    assert refusals["rc"] == 2
