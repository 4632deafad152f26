# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stages/tools.py: the tools role's decision, each rule with its values."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.tools import decide, requirements, state

VENV = "/opt/blackwell-pytorch/tools"
PINS = ["nvidia-ml-py==13.615.71"]
WITH_UV = PINS + ["uv==0.13.9"]
SYSTEM = {"executable": "/usr/bin/python3"}


def preflight(pynvml=False, tools=None, executable="/usr/bin/python3"):
    return {"python": {"executable": executable, "pynvml": pynvml}, "tools": tools}


def test_a_python_with_pynvml_needs_no_venv_unless_uv_is_asked():
    found = decide(VENV, PINS, preflight=preflight(pynvml=True), python=SYSTEM)
    assert found["current_has_pynvml"] and not found["venv_wanted"] and found["preflight"] is None
    assert not found["work"] and found["python"] == "" and found["uv_pending"] == ""  # the current interpreter
    with_uv = decide(VENV, WITH_UV, uv=True, preflight=preflight(pynvml=True), python=SYSTEM)
    assert with_uv["venv_wanted"] and with_uv["work"] and with_uv["preflight"] == {
        "venv": VENV, "requirements": WITH_UV, "base_python": "", "wheelhouse": ""}
    # another interpreter than the probe's, or use_existing false: the probe's pynvml does not count
    assert decide(VENV, PINS, preflight=preflight(pynvml=True), python={"executable": "/opt/py"})["venv_wanted"]
    assert decide(VENV, PINS, use_existing=False, preflight=preflight(pynvml=True), python=SYSTEM)["venv_wanted"]


def test_the_probes_reading_of_this_venv_with_these_pins_leaves_no_work():
    ready = {"ready": True, "venv": VENV, "requirements": PINS}
    found = decide(VENV, PINS, preflight=preflight(tools=ready), python=SYSTEM)
    assert found["probe_ready"] and not found["work"] and found["venv_ready"] and found["python"] == VENV + "/bin/python"
    assert decide(VENV, WITH_UV, uv=True, preflight=preflight(tools=ready), python=SYSTEM)["work"]  # other pins
    assert decide("/other", PINS, preflight=preflight(tools=ready), python=SYSTEM)["work"]  # another venv
    assert decide(VENV, PINS, preflight=preflight(tools=dict(ready, ready=False)), python=SYSTEM)["work"]


def test_the_check_and_the_build_decide_what_is_missing_and_the_interpreter():
    fresh = decide(VENV, WITH_UV, uv=True, python={}, check_mode=True)
    assert not fresh["venv_there"] and fresh["missing"] == WITH_UV and fresh["python"] == ""
    assert fresh["uv_pending"] == VENV + "/bin/uv"
    lacking = decide(VENV, WITH_UV, uv=True, python=SYSTEM, check={"rc": 1, "stdout": "uv==0.13.9\n"})
    assert lacking["venv_there"] and lacking["missing"] == ["uv==0.13.9"] and not lacking["venv_ready"]
    built = decide(VENV, WITH_UV, uv=True, python=SYSTEM, check={"rc": 1, "stdout": "uv==0.13.9"}, built={"rc": 0})
    assert built["venv_ready"] and built["python"] == VENV + "/bin/python" and built["uv_pending"] == ""
    # a skipped check (no rc): the venv's interpreter is taken as not there
    assert decide(VENV, PINS, python=SYSTEM, check={"skipped": True})["missing"] == PINS


def test_the_requirements_are_the_pins_and_uvs_when_uv_is_asked_for():
    assert requirements(PINS, False, "uv==0.13.9") == PINS
    assert requirements(PINS, True, "uv==0.13.9") == WITH_UV
    assert requirements([], True, "uv==0.13.9") == ["uv==0.13.9"]


def test_the_interpreter_is_the_venvs_else_the_current_one_else_empty():
    assert decide(VENV, PINS, preflight=preflight(pynvml=True), python=SYSTEM)["interpreter"] == "/usr/bin/python3"
    assert decide(VENV, PINS, python=SYSTEM, built={"rc": 0})["interpreter"] == VENV + "/bin/python"
    assert decide(VENV, PINS, python=SYSTEM)["interpreter"] == "/usr/bin/python3"  # no venv ready yet
    assert decide(VENV, PINS, python={})["interpreter"] == ""  # facts not gathered: the role names the interpreter


def test_state_takes_one_dict_of_the_roles_options_and_the_hosts_readings():
    options = {"venv": VENV, "pip_packages": PINS, "uv": True, "uv_package": "uv==0.13.9", "use_existing": True,
               "base_python": "/usr/bin/python3", "wheelhouse": "/srv/wheels", "preflight": preflight(pynvml=True),
               "python": SYSTEM, "check_mode": True, "check": None, "built": None}
    found = state(options)
    assert found == dict(decide(VENV, WITH_UV, True, True, preflight(pynvml=True), SYSTEM, "/usr/bin/python3",
                                "/srv/wheels", True), packages=WITH_UV)
    assert found["preflight"] == {"venv": VENV, "requirements": WITH_UV, "base_python": "/usr/bin/python3",
                                  "wheelhouse": "/srv/wheels"}
    assert found["uv_pending"] == VENV + "/bin/uv" and found["interpreter"] == "/usr/bin/python3"
    # the venv alone: no uv, the decide() defaults
    assert state({"venv": VENV, "pip_packages": PINS}) == dict(decide(VENV, PINS), packages=PINS)


def test_state_refuses_a_key_it_does_not_know():
    with pytest.raises(ValueError) as raised:
        state({"venv": VENV, "pip_packges": PINS})
    assert str(raised.value).startswith("unknown option(s) pip_packges; known: venv, pip_packages, uv, uv_package, ")
