# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input of torch_cuda_check and torch_benchmark, through the modules' main() (docs/reliability.md).

Each row asserts the message and that nothing ran: no child was started and no result file written.
Values arrive as Ansible passes them, strings from -e included.
"""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import run as bench_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.run import option_errors
from ansible_collections.blackwell.pytorch.plugins.modules import torch_benchmark, torch_cuda_check

PYTHON = "/nonexistent/venv/bin/python"  # never reached: the input is refused first


@pytest.fixture
def no_children(monkeypatch):
    """Record every attempt to start a check or a benchmark child."""
    started = []

    def refuse(*args, **kwargs):
        started.append((args, kwargs))
        raise AssertionError("a child was started")

    monkeypatch.setattr(torch_cuda_check, "run_check", refuse)
    monkeypatch.setattr(bench_run, "run_child", refuse)
    monkeypatch.setattr(bench_run, "StagedChild", refuse)
    monkeypatch.setattr(bench_run, "check_interpreter", refuse)
    return started


@pytest.mark.parametrize("args,message", [
    ({"timeout": -5}, "timeout must be a positive number of seconds, got -5"),
    ({"timeout": 0}, "timeout must be a positive number of seconds, got 0"),
    ({"compile_timeout": -1}, "compile_timeout must be a positive number of seconds, got -1"),
    ({"parallel": 0}, "parallel must be a whole number from 1 (one child after the other) to 64, got 0"),
    ({"parallel": 1000}, "parallel must be a whole number from 1 (one child after the other) to 64, got 1000"),
    ({"timeout": "abc"}, "argument 'timeout' is of type str and we were unable to convert to int"),
    ({"parallel": "four"}, "argument 'parallel' is of type str and we were unable to convert to int"),
    ({"torch_compile": "maybe"}, "argument 'torch_compile' is of type str and we were unable to convert to bool"),
    ({"require": ["flash_atention"]}, "value of require must be one or more of"),
    ({"min_verdict": "jit"}, "value of min_verdict must be one of: native, ptx_jit, got: jit"),
], ids=['timeout-negative', 'timeout-zero', 'compile-timeout-negative', 'parallel-zero', 'parallel-1000',
        'timeout-text', 'parallel-text', 'torch-compile-text', 'require-typo', 'min-verdict-typo'])
def test_torch_cuda_check_bad_input_is_refused_before_any_child(no_children, run_module, args, message):
    status, result = run_module(torch_cuda_check, dict(args, python=PYTHON))
    assert status == "fail" and message in result["msg"], result["msg"]
    assert no_children == []


def test_torch_cuda_check_numbers_from_the_command_line_are_read_as_numbers():
    # -e timeout=300 arrives as text; the module's int type converts it, the check then accepts it
    assert option_errors(300, 600, 1) == [] and option_errors(0.5, 1, 64) == []
    assert option_errors(True, 600, 6) and option_errors(120, 600, 2.5)


@pytest.mark.parametrize("args,message", [
    ({"gates": {"gemm_bf16": {"min_fraction_of_peak": 1.5}}},
     "gate gemm_bf16.min_fraction_of_peak is a fraction from 0 to 1 (0.7: 70 % of the peak), got 1.5"),
    ({"profile": "standard", "gates": {"sustained": {"min_sustained_ratio": 1.2}}},
     "gate sustained.min_sustained_ratio is a fraction from 0 to 1"),
    ({"gates": {"gemm_bf16": {"min_tflops": -1}}}, "gate gemm_bf16.min_tflops must be a non-negative number, got -1"),
    ({"gates": {"gemm_bf16": {"min_fraction_of_peak": "0.7"}}},
     "gate gemm_bf16.min_fraction_of_peak must be a non-negative number, got '0.7'"),
    ({"gates": {"gemm_bf16": {"min_fraction_of_peak": True}}},
     "gate gemm_bf16.min_fraction_of_peak must be a non-negative number, got True"),
    ({"gates": {"gemm_bf16": 0.7}}, "gates.gemm_bf16 must be a non-empty dict of bounds"),
    ({"device": "cpu", "gates": {"gemm_bf16": {"min_fraction_of_peak": 0.5}}},
     "gate gemm_bf16.min_fraction_of_peak cannot be evaluated with device cpu: CPU mode has no peak"),
    ({"gates": {"gemm_bf16": {"forbid_clock_reasons": ["too_hot"]}}},
     "gate gemm_bf16.forbid_clock_reasons names unknown reason(s) too_hot"),
    ({"timeout": -5}, "timeout must be positive, got -5"),
    ({"timeout": "soon"}, "argument 'timeout' is of type str and we were unable to convert to float"),
    ({"reps": "many"}, "argument 'reps' is of type str and we were unable to convert to int"),
    ({"profile": "long"}, "value of profile must be one of: quick, standard, full, got: long"),
    ({"gpus": ["first"]}, "Elements value for option 'gpus' is of type str and we were unable to convert to int"),
], ids=['fraction-1.5', 'sustained-ratio-1.2', 'tflops-negative', 'fraction-as-text', 'fraction-as-bool',
        'bounds-not-a-dict', 'fraction-on-cpu', 'reason-typo', 'timeout-negative', 'timeout-text',
        'reps-text', 'profile-typo', 'gpus-text'])
def test_torch_benchmark_bad_input_is_refused_before_any_child(no_children, run_module, tmp_path, args, message):
    dest = tmp_path / "verify.json"
    status, result = run_module(torch_benchmark, dict(args, python=PYTHON, dest=str(dest)))
    assert status == "fail" and message in result["msg"], result["msg"]
    assert no_children == [] and not dest.exists()
