# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's health gates run for real against this machine (CPU mode, the CPU torch venv of the
unit layer): gpu_health reads this machine's kernel log; only NVML is a stand-in, a `pynvml` module on the
path of the interpreter the role runs gpu_health with (blackwell_tools_python), answering for one H100.

A healthy GPU passes and the textfile carries dcgm-exporter's names; a GPU with a row remap pending and
uncorrected ECC errors fails the verdict with the gates' messages, in verify.json too; when the stored
result stands (the fingerprint unchanged), the health is read again and a GPU that got sick since fails.
"""
from __future__ import annotations

import json
import os
import sys

import pytest

from playbook import ROOT, outcome, results, run

TORCH_PYTHON = os.path.join(ROOT, ".build", "torch-cpu", "bin", "python")
HELPERS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/unit: fake_nvml_health
PYNVML = '''import json, os, sys
sys.path.insert(0, %r)
import fake_nvml_health as fh
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "gpu.json")) as handle:
    _changes = json.load(handle)
if "remap" in _changes:
    _changes["remap"] = tuple(_changes["remap"])
if "ecc_errors" in _changes:
    _changes["ecc_errors"] = dict((int(k), v) for k, v in _changes["ecc_errors"].items())
_nvml = fh.HealthNVML([dict(fh.H100_HEALTHY, **_changes)])
for _name in dir(_nvml):
    if _name.startswith(("nvml", "NVML")):
        globals()[_name] = getattr(_nvml, _name)
'''
SICK = {"remap": [0, 1, 1, 0], "ecc_errors": {"0": 2, "1": 2}}
LABEL = "GPU 0 (NVIDIA H100 80GB HBM3, 0000:18:00.0)"


def stand_in_python(directory, changes):
    """An interpreter whose `import pynvml` answers for one H100 with `changes` to its readings."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "pynvml.py").write_text(PYNVML % HELPERS)
    set_gpu(directory, changes)
    python = directory / "python"
    python.write_text('#!/bin/sh\nPYTHONPATH=%s exec %s "$@"\n' % (directory, sys.executable))
    python.chmod(0o755)
    return str(python)


def set_gpu(directory, changes):
    (directory / "gpu.json").write_text(json.dumps(changes))


def host_vars(tmp_path, name, changes):
    return {"verify_python": TORCH_PYTHON, "verify_device": "cpu", "verify_tests": ["gemm_fp32"],
            "verify_gates": {"gemm_fp32": {"min_tflops": 0.0001}}, "verify_results_dir": str(tmp_path / name / "results"),
            "verify_cuda_home": str(tmp_path / "no-cuda"), "verify_prometheus_textfile_dir": str(tmp_path / name / "prom"),
            "blackwell_tools_python": stand_in_python(tmp_path / name / "nvml", changes)}


def play(tmp_path, workdir, hosts):
    (tmp_path / workdir).mkdir()
    tasks = [{"name": "Run verify", "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify"}}]
    rc, stdout, stderr = run(tmp_path / workdir, tasks, hosts, check=False)
    assert "plays" in stdout, stderr
    return rc, stdout


def verdict(stdout, host):
    # hosts whose steps differ (their textfile paths) include the verdict's file separately: the task this host ran
    return [by_host[host] for task, by_host in results(stdout) if task.endswith("Verification verdict") and host in by_host][0]


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("health")
    hosts = {"healthy": host_vars(tmp_path, "healthy", {}), "sick": host_vars(tmp_path, "sick", SICK)}
    first = play(tmp_path, "first", hosts)
    # the healthy host's GPU gets a row remap pending; its stored result stands (nothing else changed)
    set_gpu(tmp_path / "healthy" / "nvml", {"remap": [0, 1, 1, 0]})
    second = play(tmp_path, "second", {"healthy": hosts["healthy"]})
    return tmp_path, first, second


def stored(tmp_path, host):
    return json.loads((tmp_path / host / "results" / "verify.json").read_text())


def test_a_healthy_gpu_passes_and_the_kernel_log_is_read_or_said(runs):
    tmp_path, (rc, stdout), second = runs
    assert outcome(stdout, "healthy")["failed_task"] is None
    health = stored(tmp_path, "healthy")["health"]
    assert health["passed"] and health["failures"] == []
    gates = health["gpus"][0]["gates"]
    assert gates["remapped_rows"]["status"] == "passed" and gates["ecc_volatile"]["status"] == "passed"
    # this machine's kernel log: read (no Xid of the stand-in's bus in it), or unknown with the reason
    log = health["kernel_log"]
    if log["source"]:
        assert gates["xid"]["status"] == "passed"
    else:
        assert gates["xid"]["status"] == "unknown" and log["error"] and health["unknown"]
    assert "health: passed on 1 GPU" in verdict(stdout, "healthy")["msg"]
    text = (tmp_path / "healthy" / "prom" / "blackwell_pytorch_health.prom").read_text()
    assert ('DCGM_FI_DEV_ROW_REMAP_PENDING{gpu="0",UUID="GPU-0e2d4c6b-8a9f-1e3d-5c7b-9a1f3e5d7c9b",'
            'pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="') in text
    assert "# TYPE DCGM_FI_DEV_ECC_DBE_VOL_TOTAL counter" in text and "blackwell_pytorch_health_passed{" in text


def test_a_sick_gpu_fails_the_verdict_with_the_gates_messages(runs):
    tmp_path, (rc, stdout), second = runs
    assert rc != 0
    result = outcome(stdout, "sick")
    assert result["failed_task"].endswith("Verification verdict")
    expected = ["sick: %s: a row remap is pending (0 corrected, 1 uncorrected rows remapped), expected none: reset "
                "the GPU (nvidia-smi -r) or reboot to apply it" % LABEL,
                "sick: %s: 2 uncorrected ECC error(s) since the driver loaded, expected 0" % LABEL]
    for message in expected:
        assert message in result["msg"]
    document = stored(tmp_path, "sick")
    assert document["passed"] is False and document["health"]["failures"] == expected
    assert document["message"] == "2 health gate(s) failed: " + "; ".join(expected)
    assert document["benchmark"]["devices"][0]["figures"]["gemm_fp32"]["status"] == "ok"  # the benchmark passed
    textfile = tmp_path / "sick" / "prom" / "blackwell_pytorch_health.prom"
    assert 'blackwell_pytorch_health_passed{Hostname="' in textfile.read_text()


def test_the_health_is_read_again_when_the_stored_result_stands(runs):
    tmp_path, first, (rc, stdout) = runs
    tasks = outcome(stdout, "healthy")["tasks"]
    assert not any("Start torch_benchmark" in name for name in tasks), tasks
    assert any("Read the GPUs' health" in name for name in tasks)
    result = outcome(stdout, "healthy")
    assert result["failed_task"].endswith("Verification verdict")
    assert "verification failed" in result["msg"] and "a row remap is pending" in result["msg"]
    # verify.json is the stored run's, untouched; the textfile says what is true now
    assert stored(tmp_path, "healthy")["passed"] is True
    text = (tmp_path / "healthy" / "prom" / "blackwell_pytorch_health.prom").read_text()
    assert 'blackwell_pytorch_health_gate_passed{gpu="0"' in text and ',gate="remapped_rows"} 0' in text
