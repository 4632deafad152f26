# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""preflight_facts' tools option: the tools venv read from its files, and NVML read through the venv's pynvml when
the module's own Python has none (tests/unit/health_machine.py's machine; the venv a real one whose nvidia-ml-py pip
installed, its pynvml handing every call to the machine's NVML stand-in)."""
from __future__ import annotations

import sys

import pytest

import fake_nvml_health as fh
import tools_venv_fixture as tv
from health_machine import Machine

from ansible_collections.blackwell.pytorch.plugins.modules import gpu_health, preflight_facts

PINS = [tv.NVML, tv.UV]


@pytest.fixture
def machine(tmp_path, monkeypatch):
    return Machine(tmp_path, monkeypatch)


@pytest.fixture
def venv(tmp_path, monkeypatch):
    """A tools venv holding the pins; its pynvml the stand-in of tools_venv_fixture.CURRENT."""
    monkeypatch.setitem(sys.modules, "pynvml", None)  # undone after the test, whatever the import leaves
    monkeypatch.setattr(tv, "CURRENT", [None])
    target = tv.venv(tmp_path / "tools")
    tv.pip_install(target, tv.nvml_wheel(tmp_path, pynvml=tv.STAND_IN_PYNVML), tv.uv_wheel(tmp_path))
    return target


def probe(run_module, args):
    status, result = run_module(preflight_facts, args)
    assert status == "exit" and result["changed"] is False, result
    return result


def test_nvml_is_read_through_the_tools_venv_when_this_python_lacks_it(machine, venv, run_module, monkeypatch):
    nvml = machine.gpus(fh.H100_HEALTHY)
    tv.CURRENT[0] = nvml
    monkeypatch.setattr(preflight_facts, "pynvml", None)  # this Python has no nvidia-ml-py
    machine.journal("Linux version 6.8.0")
    result = probe(run_module, {"tools": {"venv": venv["path"], "requirements": PINS},
                                "health": {"kernel_log": "auto"}})
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["source"], driver["nvml_error"], driver["version"]) == ("nvml", None, "580.159.04")
    assert [g["uuid"] for g in result["ansible_facts"]["nvidia_gpus"]] == [fh.H100_HEALTHY["uuid"]]
    assert (nvml.inits, nvml.shutdown_calls) == (1, 1)  # one NVML session for the facts and the health
    assert result["python"] == {"executable": sys.executable, "pynvml": False, "nvml_from": "tools"}
    tools = result["tools"]
    assert tools == result["preflight"]["tools"]
    assert (tools["ready"], tools["missing"], tools["pynvml_site"]) == (True, [], venv["site"])
    # the health the verify role reads is gpu_health's reading on this machine
    assert result["preflight"]["health"]["reading"] == run_module(gpu_health, {"kernel_log": "auto"})[1]["health"]
    assert sys.modules["pynvml"].__file__.startswith(venv["site"])


def test_this_pythons_own_nvml_comes_first(machine, venv, run_module):
    nvml = machine.gpus(fh.H100_HEALTHY)
    result = probe(run_module, {"tools": {"venv": venv["path"], "requirements": PINS}})
    assert result["python"]["nvml_from"] == "python" and result["python"]["pynvml"] is True
    assert result["ansible_facts"]["nvidia_driver"]["source"] == "nvml" and nvml.inits == 1
    assert sys.modules["pynvml"] is None  # nothing was imported from the venv


def test_a_venv_without_the_pins_gives_no_nvml_and_says_so(machine, venv, run_module, monkeypatch, tmp_path):
    machine.gpus(fh.H100_HEALTHY)
    monkeypatch.setattr(preflight_facts, "pynvml", None)
    tv.pip_uninstall(venv, "nvidia-ml-py")
    result = probe(run_module, {"tools": {"venv": venv["path"], "requirements": PINS},
                                "health": {"kernel_log": "never"}})
    assert result["tools"]["missing"] == [tv.NVML] and not result["tools"]["ready"]
    driver = result["ansible_facts"]["nvidia_driver"]
    assert driver["source"] == "procfs" and result["health"] is None and result["python"]["nvml_from"] == ""
    assert driver["nvml_error"] == "NVML not used (nvidia-ml-py is not installed for %s, nor in the tools venv %s)" % (
        sys.executable, venv["path"])
    absent = probe(run_module, {"tools": {"venv": str(tmp_path / "none"), "requirements": PINS}})["tools"]
    assert (absent["ready"], absent["missing"]) == (False, PINS)


def test_without_the_option_nothing_is_read(machine, run_module, monkeypatch):
    machine.gpus(fh.H100_HEALTHY)
    monkeypatch.setattr(preflight_facts, "pynvml", None)
    result = probe(run_module, {})
    assert result["tools"] is None and result["preflight"]["tools"] is None
    assert result["ansible_facts"]["nvidia_driver"]["nvml_error"] == (
        "NVML not used (nvidia-ml-py is not installed for %s)" % sys.executable)
    status, failed = run_module(preflight_facts, {"tools": {"venv": "/opt/blackwell/tools"}})
    assert status == "fail" and "requirements" in failed["msg"]
