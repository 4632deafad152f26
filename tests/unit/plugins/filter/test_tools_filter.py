# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools_state filter: one dict of the tools role's options and the host's readings, as Jinja hands them
(booleans as text, null for what did not run), to stages/tools.py state()."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.tools import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.tools import state

tools_state = FilterModule().filters()["tools_state"]
VENV = "/opt/blackwell/tools"
PINS = ["nvidia-ml-py==13.615.71"]


def role_options(**changes):
    """The role's vars/main.yml dict on a fresh host before the check: its defaults, the probe's reading."""
    options = {"venv": VENV, "pip_packages": PINS, "uv": "True", "uv_package": "uv==0.13.9", "use_existing": "true",
               "base_python": "/usr/bin/python3", "wheelhouse": "", "check_mode": False, "check": None, "built": None,
               "preflight": {"python": {"executable": "/usr/bin/python3", "pynvml": False}, "tools": None},
               "python": {"executable": "/usr/bin/python3"}}
    options.update(changes)
    return options


def test_the_filter_converts_what_jinja_hands_it_and_answers_as_state():
    found = tools_state(role_options())
    assert found == state(dict(role_options(), uv=True, use_existing=True))
    assert found["packages"] == PINS + ["uv==0.13.9"] and found["work"] and found["interpreter"] == "/usr/bin/python3"
    assert found["preflight"] == {"venv": VENV, "requirements": PINS + ["uv==0.13.9"],
                                  "base_python": "/usr/bin/python3", "wheelhouse": ""}
    built = tools_state(role_options(uv="false", check={"rc": 1, "stdout": PINS[0]}, built={"rc": 0}))
    assert built["packages"] == PINS and built["missing"] == PINS and built["interpreter"] == VENV + "/bin/python"
    # what is not given takes decide()'s defaults: null and unset read alike
    assert tools_state({"venv": VENV, "pip_packages": PINS, "preflight": None, "python": None}) == \
        state({"venv": VENV, "pip_packages": PINS})


@pytest.mark.parametrize("options,message", [
    (None, "tools_state: options must be a mapping, got NoneType"),
    (role_options(uv="maybe"), "tools_state: uv must be true or false"),
    (role_options(pip_packages="nvidia-ml-py"), "tools_state: pip_packages must be a list, got str"),
    (role_options(check="rc 1"), "tools_state: check must be a mapping, got str"),
    (role_options(wheelhous="/srv"), "tools_state: unknown option(s) wheelhous; known: venv, "),
])
def test_a_bad_option_is_refused_naming_it(options, message):
    with pytest.raises(AnsibleFilterError) as raised:
        tools_state(options)
    assert str(raised.value).startswith(message), str(raised.value)
