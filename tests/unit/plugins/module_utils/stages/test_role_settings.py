# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each stage's options are the single source of its module's spec and of the probe's question; the role gives
its variables as those options in one place (ROLE_SETTINGS in its vars/main.yml), and every role variable named
there is one its meta/argument_specs.yml declares."""
from __future__ import annotations

import os
import re

import pytest
import yaml

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import registry

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..")


def _load(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _texts(value):
    """Every string inside a YAML value."""
    if isinstance(value, dict):
        return [text for item in value.values() for text in _texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _texts(item)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("stage", registry.STAGES, ids=lambda stage: stage.NAME)
def test_the_roles_settings_are_options_of_its_stage(stage):
    settings = _load("roles", stage.ROLE, "vars", "main.yml")[stage.ROLE_SETTINGS]
    assert sorted(set(settings) - set(stage.OPTIONS)) == []
    assert sorted(set(settings) & set(stage.PROBE_READS)) == []  # the probe's own reading is never a setting
    required = [name for name, spec in stage.OPTIONS.items() if spec.get("required") and name not in stage.PROBE_READS]
    assert sorted(set(required) - set(settings)) == []


@pytest.mark.parametrize("stage", registry.STAGES, ids=lambda stage: stage.NAME)
def test_every_role_variable_the_settings_name_is_declared(stage):
    settings = _load("roles", stage.ROLE, "vars", "main.yml")[stage.ROLE_SETTINGS]
    declared = _load("roles", stage.ROLE, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    named = set(re.findall(r"(?<![\w.])(%s_[a-z0-9_]+)" % stage.ROLE, " ".join(_texts(settings))))
    assert named and sorted(named - set(declared)) == []


def test_the_modules_take_their_stage_options_as_their_spec():
    from ansible_collections.blackwell.pytorch.plugins.modules import cuda_toolkit_state, nvidia_driver_state, pytorch_plan
    from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import driver, pytorch, toolkit
    for module, stage in ((nvidia_driver_state, driver), (cuda_toolkit_state, toolkit), (pytorch_plan, pytorch)):
        assert module.OPTIONS is stage.OPTIONS  # their documentation against it: ansible-test's validate-modules
