# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pytorch_source_build through main(), building the stand-in tree (tests/fixtures/torch_source) for real:
a venv of this test's Python, pip wheel with the fixture's build backend, a stand-in nvcc."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_run
from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_source_build

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
NVCC = ("#!/bin/sh\ncase \"$1\" in\n  --list-gpu-arch) printf 'compute_%s\\n' 80 89 90 120 ;;\n"
        "  *) printf 'Cuda compilation tools, release 12.8, V12.8.93\\n' ;;\nesac\n")


def setup(tmp_path):
    subprocess.check_call([sys.executable, os.path.join(ROOT, "tests", "fixtures", "torch_source", "make_tree.py"),
                           str(tmp_path / "trees")], stdout=subprocess.DEVNULL)
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text(NVCC)
    nvcc.chmod(0o755)
    return {"tree": str(tmp_path / "trees" / "pytorch"), "ref": "v2.9.1", "version": "2.9.1+src",
            "python": sys.executable, "venv": str(tmp_path / "build" / "venv"), "wheelhouse": str(tmp_path / "wheels"),
            "log": str(tmp_path / "build" / "torch-2.9.1-src.log"), "run_id": "42", "arch_list": "8.9;12.0",
            "cuda_home": str(tmp_path / "cuda"), "cpus": 2, "memory_mb": 6144, "flags": {"USE_NCCL": "0"},
            "env": {"FIXTURE_BUILD_SECONDS": "0"}, "host": "ws-1"}


def test_check_mode_checks_and_writes_nothing(tmp_path, run_module):
    args = setup(tmp_path)
    status, result = run_module(pytorch_source_build, dict(args, _ansible_check_mode=True))
    assert status == "exit" and result["changed"] and "wheel" not in result
    assert result["summary"].startswith("building torch 2.9.1+src on ws-1 from %s: TORCH_CUDA_ARCH_LIST=8.9;12.0 "
                                        "MAX_JOBS=1 " % args["tree"])
    assert not (tmp_path / "build").exists() and not (tmp_path / "wheels").exists()
    status, result = run_module(pytorch_source_build, dict(args, tree=args["tree"] + "-old", _ansible_check_mode=True))
    assert status == "fail" and result["msg"].startswith(
        "TORCH_CUDA_ARCH_LIST=8.9;12.0 cannot be built from %s-old (v2.9.1) with %s: 12.0: 12.0 does not match"
        % (args["tree"], args["cuda_home"]))
    status, result = run_module(pytorch_source_build, dict(args, tree=str(tmp_path), _ansible_check_mode=True))
    assert status == "fail" and "is it a PyTorch source tree?" in result["msg"]


def test_builds_the_wheel_with_its_environment(tmp_path, run_module):
    args = setup(tmp_path)
    status, result = run_module(pytorch_source_build, args)
    assert status == "exit", result.get("msg")
    assert result["wheel"] == "torch-2.9.1+src-py3-none-any.whl" and (tmp_path / "wheels" / result["wheel"]).exists()
    with open(os.path.join(args["tree"], "fixture-build-record.json")) as handle:
        record = json.load(handle)
    assert record["build_env"]["TORCH_CUDA_ARCH_LIST"] == "8.9;12.0" and record["build_env"]["MAX_JOBS"] == "1"
    assert record["build_env"]["USE_NCCL"] == "0" and record["build_env"]["PYTORCH_BUILD_VERSION"] == "2.9.1+src"
    log = (tmp_path / "build" / "torch-2.9.1-src.log").read_text()
    assert "-- Wrote torch-2.9.1+src-py3-none-any.whl" in log
    assert (tmp_path / "build" / "torch-2.9.1-src.log.rc").read_text() == "42 0\n"


def test_cores_and_memory_left_at_zero_are_read_from_the_host(tmp_path, run_module):
    args = setup(tmp_path)
    status, result = run_module(pytorch_source_build, dict(args, cpus=0, memory_mb=0, _ansible_check_mode=True))
    assert status == "exit", result.get("msg")
    with open("/proc/meminfo") as handle:
        free = source_run.free_memory_mb(handle.read())
    assert free > 0
    assert " MAX_JOBS=%d (%d cores, " % (result["max_jobs"], os.cpu_count()) in result["summary"]
    # the memory the host reported a moment ago, within what a running machine frees or takes meanwhile
    seen = int(result["summary"].split(" cores, ")[1].split(" MiB")[0])
    assert abs(seen - free) < max(512, free // 10)
    status, result = run_module(pytorch_source_build, dict(args, cpus=3, memory_mb=2048, _ansible_check_mode=True))
    assert "(3 cores, 2048 MiB available / 4 GiB per job = 0: MAX_JOBS=1)" in result["summary"]


def test_credentials_in_pip_args_are_no_log_values(tmp_path, run_module, no_log_values):
    status, result = run_module(pytorch_source_build, {
        "tree": str(tmp_path / "no-tree"), "version": "2.9.1", "python": sys.executable,
        "venv": str(tmp_path / "venv"), "wheelhouse": str(tmp_path / "wheels"), "log": str(tmp_path / "log"),
        "pip_args": ["--index-url", "https://lab:S3cret@mirror.lab/simple", "--proxy", "http://u:pw@proxy.lab:3128"]})
    assert status == "fail" and "is it a PyTorch source tree?" in result["msg"]
    assert {"S3cret", "pw"} <= no_log_values and "lab" not in no_log_values
