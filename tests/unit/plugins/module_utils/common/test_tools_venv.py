# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The preflight probe's reading of the tools venv (module_utils/common/tools_venv.py) on real venvs whose
distributions pip installed from small wheels, each state also checked by the tools role's own check
(tools_check.py run by the venv's interpreter): the reading is never `ready` where the check finds something
missing, and lists what the check lists."""
from __future__ import annotations

import os
import sys

import pytest

import tools_venv_fixture as tv

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import tools_venv

PINS = [tv.NVML, tv.UV]


@pytest.fixture
def wheels(tmp_path_factory):
    directory = tmp_path_factory.mktemp("wheels")
    return {"nvml": tv.nvml_wheel(directory), "uv": tv.uv_wheel(directory),
            "uv_old": tv.uv_wheel(directory, "0.12.0"),
            "nvml_other": tv.nvml_wheel(directory, "13.615.70")}


@pytest.fixture
def venv(tmp_path):
    return tv.venv(tmp_path / "tools")


def agrees(venv, requirements=None):
    """read_venv's answer, asserted to catch what the role's check catches on the same venv: not ready where the
    check fails, and every requirement the check lists among the missing (the same ones, in any order)."""
    requirements = PINS if requirements is None else requirements
    found = tools_venv.read_venv(venv["path"], requirements)
    rc, printed = tv.tools_check(venv, *requirements)
    if rc is None:  # the interpreter does not start: the role builds the venv, everything is missing
        assert not found["ready"] and found["missing"] == list(requirements), found
    else:
        assert sorted(found["missing"]) == sorted(printed.split()), (found, printed)
        assert found["ready"] is (rc == 0), found
    return found


def test_a_venv_pip_filled_with_the_pins_is_ready(venv, wheels):
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    found = agrees(venv)
    assert found == {"venv": venv["path"], "requirements": PINS, "ready": True, "reason": "", "missing": [],
                     "python": venv["python"], "pynvml_site": venv["site"]}
    # a trailing slash names the same venv; bare names, bounds and underscores ask for the distribution alone
    assert tools_venv.read_venv(venv["path"] + "/", PINS)["ready"]
    assert agrees(venv, ["nvidia_ml_py", "uv>=0.1", "uv"])["ready"]


def test_no_venv_or_no_pyvenv_cfg_is_not_ready(tmp_path):
    found = tools_venv.read_venv(str(tmp_path / "absent"), PINS)
    assert (found["ready"], found["missing"], found["python"], found["pynvml_site"]) == (False, PINS, "", "")
    assert found["reason"] == "there is no venv at %s" % (tmp_path / "absent")
    (tmp_path / "plain" / "bin").mkdir(parents=True)
    os.symlink(sys.executable, str(tmp_path / "plain" / "bin" / "python"))
    found = tools_venv.read_venv(str(tmp_path / "plain"), PINS)
    assert not found["ready"] and "no pyvenv.cfg" in found["reason"]


def test_an_empty_venv_lacks_everything(venv):
    found = agrees(venv)
    assert found["missing"] == PINS and found["reason"] == "%s lacks %s, %s" % (venv["path"], tv.NVML, tv.UV)


def test_a_dangling_interpreter_is_not_ready(venv, wheels, tmp_path):
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    os.remove(venv["python"])
    os.symlink(str(tmp_path / "removed" / "python3"), venv["python"])  # the base Python is gone
    found = agrees(venv)
    assert found["reason"] == "%s does not resolve to an interpreter that can run" % venv["python"]
    assert found["python"] == "" and found["pynvml_site"] == ""


def test_a_pin_at_another_version_or_missing_is_listed(venv, wheels):
    tv.pip_install(venv, wheels["nvml"], wheels["uv_old"])
    found = agrees(venv)
    assert found["missing"] == [tv.UV] and found["pynvml_site"] == venv["site"]  # NVML is there at its pin
    tv.pip_uninstall(venv, "uv")
    assert agrees(venv)["missing"] == [tv.UV]
    assert agrees(venv, [tv.NVML, "uv==0.12.0"])["missing"] == ["uv==0.12.0"]


def test_nvml_bindings_whose_module_is_gone_are_missing_and_not_imported(venv, wheels):
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    os.remove(os.path.join(venv["site"], "pynvml.py"))
    found = agrees(venv, [tv.NVML, "uv", "ruff"])  # the check lists it after ruff: its import is tried last
    assert found["missing"] == [tv.NVML, "ruff"] and found["pynvml_site"] == ""


def test_nvml_bindings_at_another_version_are_not_imported(venv, wheels):
    tv.pip_install(venv, wheels["nvml_other"], wheels["uv"])
    found = agrees(venv)
    assert found["missing"] == [tv.NVML] and found["pynvml_site"] == ""


def test_a_file_the_record_lists_that_is_gone_is_missing(venv, wheels):
    """Stricter than the role's check: uv's program removed from bin/ leaves uv missing (pip reinstalls it)."""
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    assert os.access(os.path.join(venv["path"], "bin", "uv"), os.X_OK)
    os.remove(os.path.join(venv["path"], "bin", "uv"))
    found = tools_venv.read_venv(venv["path"], PINS)
    assert (found["ready"], found["missing"]) == (False, [tv.UV])
    assert tv.tools_check(venv, *PINS) == (0, "")  # the role's check does not look


def test_an_interpreter_of_another_version_reads_another_site_packages(venv, wheels, tmp_path):
    """After an upgrade of the system Python the venv's link resolves to python3.N+1, whose site-packages is empty."""
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    newer = tmp_path / "base" / ("python%d.%d" % (sys.version_info[0], sys.version_info[1] + 1))
    newer.parent.mkdir()
    newer.write_text("#!/bin/sh\nexit 1\n")
    newer.chmod(0o755)
    os.remove(venv["python"])
    os.symlink(str(newer), venv["python"])
    found = tools_venv.read_venv(venv["path"], PINS)
    assert not found["ready"] and found["missing"] == PINS
    assert "has no site-packages directory" in found["reason"] and found["pynvml_site"] == ""


def test_pyvenv_cfg_says_the_version_when_the_interpreter_name_does_not():
    assert tools_venv.python_version("/usr/bin/python3.12", {"version": "3.11.2"}) == "3.12"
    assert tools_venv.python_version("/opt/py/bin/python", {"version_info": "3.13.1.final.0"}) == "3.13"
    assert tools_venv.python_version("/opt/py/bin/python", {"version": "3.9.18"}) == "3.9"
    assert tools_venv.python_version("/opt/py/bin/python", {}) == ""


def test_requirements_are_parsed_as_the_check_parses_them():
    assert [tools_venv.requirement(r) for r in ("a==1", "b", "c>=2", "d[x]==3", "e==4; python_version>'3'")] == [
        ("a", "1"), ("b", ""), ("c", ""), ("d", "3"), ("e", "4")]


def test_requirement_names_match_installs_as_pep_503_compares_them():
    installed = {"nvidia-ml-py": ["13.580.82"], "uv": ["0.9.5"]}
    assert tools_venv.unsatisfied(["Nvidia_ML.py==13.580.82", "UV"], installed, True) == []
    assert tools_venv.unsatisfied(["Nvidia_ML.py==13.580.82", "UV"], installed, False) == ["Nvidia_ML.py==13.580.82"]
    assert tools_venv.unsatisfied(["nvidia.ml.py==12.0"], installed, True) == ["nvidia.ml.py==12.0"]


def test_metadata_headers_stop_at_the_body():
    text = "Metadata-Version: 2.1\nName: uv\nVersion: 0.13.9\nSummary: a\n  continued: no\n\nName: not-this\n"
    assert tools_venv.headers(text) == {"metadata-version": "2.1", "name": "uv", "version": "0.13.9", "summary": "a"}


def test_nvml_bindings_come_from_the_venv_when_this_python_has_none(venv, wheels, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)  # undone after the test, whatever the import leaves
    stand_in = object()
    tv.pip_install(venv, wheels["nvml"], wheels["uv"])
    found = tools_venv.read_venv(venv["path"], PINS)
    module, whose, why, after = tools_venv.nvml_bindings(None, found, "/usr/bin/python3")
    assert (module.WHO, whose, why, after) == ("venv", "tools", "", found)
    assert module.__file__ == os.path.join(venv["site"], "pynvml.py") and sys.modules["pynvml"] is module
    assert venv["site"] not in sys.path
    # this Python's own bindings come first; without a reading or bindings in the venv there are none
    assert tools_venv.nvml_bindings(stand_in, found, "/usr/bin/python3") == (stand_in, "python", "", found)
    assert tools_venv.nvml_bindings(None, None, "/usr/bin/python3") == (
        None, "", "NVML not used (nvidia-ml-py is not installed for /usr/bin/python3)", None)
    empty = dict(found, pynvml_site="")
    assert tools_venv.nvml_bindings(None, empty, "/usr/bin/python3")[2:] == (
        "NVML not used (nvidia-ml-py is not installed for /usr/bin/python3, nor in the tools venv %s)" % venv["path"],
        empty)


def test_bindings_that_fail_to_import_are_not_used_and_the_venv_is_not_ready(venv, wheels, monkeypatch):
    monkeypatch.setitem(sys.modules, "pynvml", None)
    tv.pip_install(venv, tv.nvml_wheel(os.path.dirname(wheels["nvml"]), pynvml="raise OSError(5, 'I/O error')\n"),
                   wheels["uv"])
    found = tools_venv.read_venv(venv["path"], PINS)
    assert found["ready"] and found["pynvml_site"] == venv["site"]  # the files are all there
    module, whose, why, after = tools_venv.nvml_bindings(None, found, "/usr/bin/python3")
    assert (module, whose) == (None, "") and "pynvml" not in sys.modules
    error = "pynvml from %s does not import: OSError: [Errno 5] I/O error" % venv["site"]
    assert why == "NVML not used (nvidia-ml-py is not installed for /usr/bin/python3; %s)" % error
    assert after == dict(found, ready=False, missing=[tv.NVML], pynvml_site="",
                         reason="%s lacks %s (%s)" % (venv["path"], tv.NVML, error))
    assert tv.tools_check(venv, *PINS)[0] != 0  # the role's check fails there too
    assert tools_venv.import_from(str(venv["path"]), "pynvml") == (None, "no module pynvml in %s" % venv["path"])
