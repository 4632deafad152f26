# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os
import sys

from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_plan

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
NVCC = "#!/bin/sh\nprintf 'nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, release 12.8, V12.8.93\\n'\n"


def args(**changes):
    base = {"python": sys.executable, "version": "2.9.1", "channel": "cu128", "gpus": [RTX_5090],
            "driver_cuda": "13.0", "host": "ws-1"}
    base.update(changes)
    return base


def toolkit(tmp_path):
    nvcc = tmp_path / "cuda" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text(NVCC)
    nvcc.chmod(0o755)
    return str(tmp_path / "cuda")


def test_plans_with_this_interpreter_and_changes_nothing(run_module):
    status, result = run_module(pytorch_plan, args(_ansible_check_mode=True))
    assert status == "exit" and not result["changed"] and result["check_mode"]
    assert result["plan"]["stack"] == "torch-2.9.1-cu128" and result["plan"]["error"] is None
    assert result["python_version"] == "%d.%d" % sys.version_info[:2]
    assert result["summary"].startswith("torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 ")
    assert result["toolkit_cuda"] is None and result["fallback"] is None and result["hashes_text"] == ""
    status, result = run_module(pytorch_plan, args())
    assert status == "exit" and not result["check_mode"]


def test_refuses_an_old_interpreter(tmp_path, run_module):
    old = tmp_path / "python3.9"
    old.write_text("#!/bin/sh\necho 'Python 3.9.2' >&2\n")
    old.chmod(0o755)
    status, result = run_module(pytorch_plan, args(python=str(old)))
    assert status == "fail" and result["msg"] == (
        "%s is Python 3.9; PyTorch stacks need 3.10 or newer: set pytorch_python to a newer interpreter." % old)
    status, result = run_module(pytorch_plan, args(python=str(tmp_path / "none")))
    assert status == "fail" and result["msg"].startswith("pytorch_python %s is not there on ws-1" % (tmp_path / "none"))


def test_refuses_missing_paths_and_returns_the_hashes_text(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(wheelhouse=str(tmp_path / "wheels"), constraints_file=str(tmp_path)))
    assert status == "fail" and result["msg"] == "pytorch_wheelhouse %s is not a directory on ws-1. " \
        "pytorch_constraints_file %s is not a file on ws-1." % (tmp_path / "wheels", tmp_path)
    (tmp_path / "wheels").mkdir()
    os.symlink(str(tmp_path / "wheels"), str(tmp_path / "link"))
    hashes = tmp_path / "hashes.txt"
    hashes.write_text("torch==2.9.1+cu128 --hash=sha256:00\n")
    status, result = run_module(pytorch_plan, args(hashes_file=str(hashes)))
    assert status == "exit" and result["hashes_text"] == "torch==2.9.1+cu128 --hash=sha256:00\n"
    status, result = run_module(pytorch_plan, args(wheelhouse=str(tmp_path / "link")))  # there: pip's only source
    assert status == "fail" and result["msg"].startswith(
        "package index %s could not be read: it lists no torch wheel for cp%d%d on Linux " % (
            tmp_path / "link", sys.version_info[0], sys.version_info[1]))


def test_reads_the_toolkit_for_source_and_auto_only(tmp_path, run_module):
    cuda = toolkit(tmp_path)
    status, result = run_module(pytorch_plan, args(method="source", channel="", cuda_home=cuda))
    assert status == "exit" and result["toolkit_cuda"] == "12.8" and result["plan"]["stack"] == "torch-2.9.1-src"
    status, result = run_module(pytorch_plan, args(method="auto", cuda_home=cuda))
    assert result["plan"]["method"] == "wheel" and result["fallback"]["stack"] == "torch-2.9.1-src"
    status, result = run_module(pytorch_plan, args(cuda_home=cuda))
    assert result["toolkit_cuda"] is None
    status, result = run_module(pytorch_plan, args(method="source", channel="", cuda_home=str(tmp_path / "no")))
    assert status == "fail" and result["msg"].startswith(
        "a source build needs a CUDA toolkit and there is none at %s (no bin/nvcc)" % (tmp_path / "no"))


def test_build_host(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(method="source", channel="", build_host="ws-2",
                                                   play_hosts=["ws-1", "ws-2"]))
    assert status == "exit" and not result["builds"]
    status, result = run_module(pytorch_plan, args(method="source", channel="", build_host="ws-9", play_hosts=["ws-1"]))
    assert status == "fail" and result["msg"].startswith("pytorch_build_host ws-9 is not among this play's hosts (ws-1)")


def test_argument_spec_refuses_bad_choices(run_module):
    status, result = run_module(pytorch_plan, args(method="conda"))
    assert status == "fail" and "method" in result["msg"] and "wheel, source, auto" in result["msg"]
    status, result = run_module(pytorch_plan, args(companions=["torchtext"]))
    assert status == "fail" and "companions" in result["msg"]
