# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""preflight_facts' health option against gpu_health on the same machine (tests/unit/health_machine.py): one NVML
session gives the GPU facts and the health reading gpu_health gives, the kernel log read by the same code, the
health textfile's current text."""
from __future__ import annotations

import pytest

import fake_nvml_health as fh
import fake_pynvml as fake
from health_machine import Machine, probe

from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health, preflight_facts

XID79 = "NVRM: Xid (PCI:0000:18:00): 79, pid=1452, name=python3, GPU has fallen off the bus."


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return Machine(tmp_path, monkeypatch)


def test_one_nvml_session_reads_the_facts_and_the_health(machine, run_module):
    nvml = machine.gpus(fh.H100_HEALTHY)
    machine.journal("Linux version 6.8.0", XID79)
    result = probe(run_module, {"kernel_log": "auto"})
    assert (nvml.inits, nvml.shutdown_calls) == (1, 1)  # one nvmlInit, one nvmlShutdown
    assert result["ansible_facts"]["nvidia_driver"]["source"] == "nvml"
    health = result["health"]
    assert result["preflight"]["health"] == health
    assert (health["kernel_log"], health["textfile_dir"], health["driver_version"], health["textfile"]) == (
        "auto", "", "580.159.04", None)
    assert [(x["pci"], x["xid"]) for x in health["reading"]["kernel_log"]["xids"]] == [("0000:18:00", 79)]
    # the same reading a gpu_health call gives on this machine
    assert health["reading"] == run_module(gpu_health, {"kernel_log": "auto"})[1]["health"]


def test_no_health_unless_asked_and_nvidia_ml_py_imports(machine, run_module, monkeypatch):
    nvml = machine.gpus(fh.H100_HEALTHY)
    result = probe(run_module, None)
    assert (result["health"], result["preflight"]["health"], nvml.inits) == (None, None, 1)
    monkeypatch.setattr(preflight_facts, "pynvml", None)
    result = probe(run_module, {"kernel_log": "never"})
    assert result["health"] is None and result["ansible_facts"]["nvidia_driver"]["source"] == "procfs"


def test_nvml_that_does_not_start_is_reported_as_gpu_health_reports_it(machine, run_module):
    machine.gpus(fh.H100_HEALTHY, init_error=fake.NVMLError_DriverNotLoaded)
    result = probe(run_module, {"kernel_log": "never"})
    reading = result["health"]["reading"]
    assert reading["gpus"] == [] and reading["nvml_error"].startswith("NVMLError_DriverNotLoaded")
    assert reading == run_module(gpu_health, {"kernel_log": "never"})[1]["health"]
    assert result["health"]["driver_version"] == result["ansible_facts"]["nvidia_driver"]["version"] == "580.159.04"


def test_the_textfile_read_is_its_current_text(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    asked = {"kernel_log": "never", "textfile_dir": str(machine.textfile_dir)}
    assert probe(run_module, asked)["health"]["textfile"] is None  # no directory yet
    machine.textfile_dir.mkdir()
    (machine.textfile_dir / "blackwell_pytorch_health.prom").write_text("# old\n")
    assert probe(run_module, asked)["health"]["textfile"] == "# old\n"


def test_a_bad_kernel_log_mode_is_refused(machine, run_module):
    machine.gpus(fh.H100_HEALTHY)
    status, result = run_module(preflight_facts, {"health": {"kernel_log": "dmesg"}})
    assert status == "fail" and "kernel_log" in result["msg"]
