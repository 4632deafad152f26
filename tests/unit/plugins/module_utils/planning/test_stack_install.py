from __future__ import annotations

import json
import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.lifecycle import marker_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_install import StackError, install

EXPECTED = {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}
PINS = ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"]
RECORD = {"stack": "torch-2.9.1-cu128", "pins": PINS}


class FakeHost(object):
    """Plays the venv, pip and the probe: `installed` is what pip list reports."""

    def __init__(self, root, installed=None, probe=None, pip_rc=0):
        self.root, self.installed, self.pip_rc = root, installed, pip_rc
        self.found = probe
        self.calls = []

    def run(self, argv, log=None):
        self.calls.append(argv[1:4] if argv[1] == "-m" else argv)
        if argv[1:3] == ["-m", "venv"]:
            os.makedirs(os.path.join(argv[3], "bin"))
            open(os.path.join(argv[3], "bin", "python"), "w").close()
            return 0, "", ""
        if argv[3] == "list":
            return 0, json.dumps([{"name": k, "version": v} for k, v in (self.installed or {}).items()]), ""
        if argv[3] == "install":
            assert argv[-2:] == PINS
            if self.pip_rc:
                return self.pip_rc, "ERROR: No matching distribution found for torch==2.9.1+cu128", ""
            self.installed = dict(EXPECTED)
            return 0, "Successfully installed torch torchvision", ""
        raise AssertionError(argv)

    def probe(self, python, names, pip_check):
        assert pip_check and names == ["torch", "torchvision"]
        return self.found or {"pip_check": "", "versions": dict(self.installed), "errors": {}}


def run(tmp_path, host, check_mode=False):
    return install(host, str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED, PINS, RECORD,
                   check_mode=check_mode)


def test_a_new_stack_is_created_installed_checked_and_marked(tmp_path):
    host = FakeHost(tmp_path)
    result = run(tmp_path, host)
    assert result["changed"] and result["created"] and result["installed"] and result["marker"]
    assert [call[:3] for call in host.calls] == [["-m", "venv", str(tmp_path / "venvs" / "torch-2.9.1-cu128")],
                                                 ["-m", "pip", "install"]]
    marker = tmp_path / "venvs" / "torch-2.9.1-cu128" / ".blackwell-stack.json"
    assert marker.read_text() == marker_text(RECORD)
    assert json.loads(marker.read_text()) == RECORD


def test_a_complete_stack_is_left_alone(tmp_path):
    host = FakeHost(tmp_path)
    run(tmp_path, host)
    host.calls = []
    result = run(tmp_path, host)
    assert not result["changed"] and result["missing"] == []
    assert host.calls == [["-m", "pip", "list"]]


def test_a_stack_with_a_wrong_companion_is_reinstalled(tmp_path):
    host = FakeHost(tmp_path)
    run(tmp_path, host)
    host.installed["torchvision"] = "0.24.0+cu128"
    result = run(tmp_path, host)
    assert result["installed"] and result["missing"] == ["torchvision 0.24.0+cu128 (want 0.24.1+cu128)"]


def test_check_mode_creates_nothing(tmp_path):
    host = FakeHost(tmp_path)
    result = run(tmp_path, host, check_mode=True)
    assert result["changed"] and result["created"] and host.calls == []
    assert not (tmp_path / "venvs").exists()


def test_check_mode_on_a_stack_that_lacks_a_package(tmp_path):
    host = FakeHost(tmp_path)
    run(tmp_path, host)
    host.installed.pop("torchvision")
    host.calls = []
    result = run(tmp_path, host, check_mode=True)
    assert result["changed"] and result["missing"] == ["torchvision missing (want 0.24.1+cu128)"]
    assert host.calls == [["-m", "pip", "list"]]


def test_a_failed_pip_call_removes_the_venv_it_made(tmp_path):
    with pytest.raises(StackError, match=r"torch-2.9.1-cu128: pip install failed \(.*torch-2.9.1-cu128 removed, current "
                                         r"not moved\): ERROR: No matching distribution"):
        run(tmp_path, FakeHost(tmp_path, pip_rc=1))
    assert os.listdir(str(tmp_path / "venvs")) == []


def test_a_failed_pip_call_keeps_a_venv_that_was_there(tmp_path):
    host = FakeHost(tmp_path)
    run(tmp_path, host)
    host.installed["torch"], host.pip_rc = "2.9.0+cu128", 1
    with pytest.raises(StackError, match=r"pip install failed \(.*torch-2.9.1-cu128 kept, current not moved\)"):
        run(tmp_path, host)
    assert (tmp_path / "venvs" / "torch-2.9.1-cu128" / "bin" / "python").exists()


def test_an_inconsistent_stack_is_refused_with_what_broke(tmp_path):
    found = {"pip_check": "torchvision 0.24.1 requires torch==2.9.1", "versions": {"torch": "2.9.1+cu128"},
             "errors": {"torchvision": "RuntimeError: operator torchvision::nms does not exist"}}
    with pytest.raises(StackError) as err:
        run(tmp_path, FakeHost(tmp_path, probe=found))
    assert str(err.value) == (
        "torch-2.9.1-cu128 is not consistent (%s removed, current not moved): pip check: torchvision 0.24.1 requires "
        "torch==2.9.1; import torchvision: RuntimeError: operator torchvision::nms does not exist; versions: "
        "torchvision missing (want 0.24.1+cu128)" % (tmp_path / "venvs" / "torch-2.9.1-cu128"))
    assert not (tmp_path / "venvs" / "torch-2.9.1-cu128").exists()


def test_an_interpreter_that_cannot_be_probed_is_refused(tmp_path):
    host = FakeHost(tmp_path)
    host.probe = lambda python, names, pip_check: "killed by SIGSEGV"
    with pytest.raises(StackError, match=r"could not be probed \(.* removed, current not moved\): killed by SIGSEGV"):
        run(tmp_path, host)


BUILD = {"stack": "torch-2.9.1-cu130", "channel": "cu130", "cuda": "13.0", "sms": ["sm_120"], "source": False}


def test_a_build_of_another_channel_is_refused_before_the_marker(tmp_path):
    found = {"pip_check": "", "versions": dict(EXPECTED), "errors": {},
             "torch_build": {"version": "2.9.1+cu128", "cuda": "12.8",
                             "arch_flags": "sm_70 sm_75 sm_80 sm_86 sm_90 sm_100 sm_120"}}
    with pytest.raises(StackError) as err:
        install(FakeHost(tmp_path, probe=found), str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED,
                PINS, RECORD, build=BUILD)
    assert str(err.value).endswith(
        "torch 2.9.1+cu128 is a cu128 build; the plan (torch-2.9.1-cu130) chose cu130; torch 2.9.1+cu128 reports CUDA "
        "12.8 (torch.version.cuda); the plan (torch-2.9.1-cu130) chose cu130, CUDA 13.0")
    assert not (tmp_path / "venvs").joinpath("torch-2.9.1-cu128").exists()


def test_the_planned_build_passes(tmp_path):
    found = {"pip_check": "", "versions": dict(EXPECTED), "errors": {},
             "torch_build": {"version": "2.9.1+cu130", "cuda": "13.0", "arch_flags": "sm_75 sm_80 sm_90 sm_100 sm_120"}}
    result = install(FakeHost(tmp_path, probe=found), str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3",
                     EXPECTED, PINS, RECORD, build=BUILD)
    assert result["marker"] and result["created"]


class FakeUvHost(FakeHost):
    """FakeHost whose install call is uv's: it records the argv and the environment uv gets."""

    def run(self, argv, log=None, env=None):
        if argv[0] != "/opt/tools/bin/uv":
            assert env is None
            return FakeHost.run(self, argv, log)
        self.calls.append(argv[:3])
        self.uv = (argv, env, log)
        if self.pip_rc:
            return self.pip_rc, "error: Because torch was not found in the package registry ...", ""
        self.installed = dict(EXPECTED)
        return 0, "Installed 2 packages in 40ms", ""


UV = {"name": "uv", "uv": "/opt/tools/bin/uv", "cache_dir": "/r/.cache/uv", "environ": {"UV_LINK_MODE": "copy", "A": "1"}}


def test_uv_installs_into_the_venv_python_made(tmp_path):
    host = FakeUvHost(tmp_path)
    result = install(host, str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED,
                     ["--no-index", "--find-links", "/w"] + PINS, RECORD, log="/r/log", installer=UV)
    venv = str(tmp_path / "venvs" / "torch-2.9.1-cu128")
    assert result["changed"] and result["created"] and result["installed"] and result["marker"]
    assert host.calls == [["-m", "venv", venv], ["/opt/tools/bin/uv", "pip", "install"]]
    argv, env, log = host.uv
    assert argv[3:] == ["--python", venv + "/bin/python", "--link-mode", "hardlink", "--compile-bytecode", "--no-config", "--cache-dir",
                        "/r/.cache/uv", "--offline", "--no-index", "--find-links", "/w"] + PINS
    assert env == {"A": "1", "UV_CACHE_DIR": "/r/.cache/uv", "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never",
                   "UV_NO_PROGRESS": "1"}
    assert log == "/r/log"


def test_a_failed_uv_call_removes_the_venv_it_made_and_names_uv(tmp_path):
    with pytest.raises(StackError, match=r"torch-2.9.1-cu128: uv pip install failed \(.*torch-2.9.1-cu128 removed, "
                                         r"current not moved\): error: Because torch was not found"):
        install(FakeUvHost(tmp_path, pip_rc=1), str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED,
                PINS, RECORD, installer=UV)
    assert os.listdir(str(tmp_path / "venvs")) == []


def test_a_complete_stack_needs_no_uv_call(tmp_path):
    host = FakeUvHost(tmp_path)
    install(host, str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED, PINS, RECORD, installer=UV)
    host.calls = []
    result = install(host, str(tmp_path), "torch-2.9.1-cu128", "/usr/bin/python3", EXPECTED, PINS, RECORD, installer=UV)
    assert not result["changed"] and host.calls == [["-m", "pip", "list"]]
