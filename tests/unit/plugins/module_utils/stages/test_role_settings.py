# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each stage's options are the single source of its module's spec and of the probe's question; each stage names the
role variable every option is read from (ROLE_VARIABLES, read by the stage_question lookup), and every public role
variable named there is one the role's meta/argument_specs.yml declares."""
from __future__ import annotations

import os

import pytest
import yaml

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import registry

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..")


def _load(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as handle:
        return yaml.safe_load(handle)


def _names(mapping):
    """Every variable name of a ROLE_VARIABLES map (its top-level name where it is dotted)."""
    return [name for value in mapping.values()
            for name in (_names(value) if isinstance(value, dict) else [value.split(".", 1)[0]])]


@pytest.mark.parametrize("stage", registry.STAGES, ids=lambda stage: stage.NAME)
def test_the_role_variables_are_options_of_the_stage(stage):
    assert sorted(set(stage.ROLE_VARIABLES) - set(stage.OPTIONS)) == []
    assert sorted(set(stage.ROLE_VARIABLES) & set(stage.PROBE_READS)) == []  # the probe's own reading is never read
    required = [name for name, spec in stage.OPTIONS.items() if spec.get("required") and name not in stage.PROBE_READS]
    assert sorted(set(required) - set(stage.ROLE_VARIABLES)) == []
    for option, value in stage.ROLE_VARIABLES.items():  # a map only for a dict option
        assert not isinstance(value, dict) or stage.OPTIONS[option]["type"] == "dict", option


@pytest.mark.parametrize("stage", registry.STAGES, ids=lambda stage: stage.NAME)
def test_every_variable_named_is_the_roles_declared_or_private_one(stage):
    declared = _load("roles", stage.ROLE, "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    private = set(_load("roles", stage.ROLE, "vars", "main.yml")) | set(_load("roles", stage.ROLE, "defaults", "main.yml"))
    own = [name for name in _names(stage.ROLE_VARIABLES) if name.startswith(stage.ROLE + "_")]
    assert own and sorted(set(own) - set(declared)) == []
    inner = [name for name in _names(stage.ROLE_VARIABLES) if name.startswith("_")]
    assert sorted(set(inner) - private) == []
    # the rest are other roles' public variables (verify_force) or Ansible's (ansible_play_hosts)
    other = [name for name in _names(stage.ROLE_VARIABLES) if name not in own and name not in inner]
    assert all(name.startswith(("verify_", "blackwell_", "ansible_")) for name in other), other


def test_the_modules_take_their_stage_options_as_their_spec():
    from ansible_collections.blackwell.pytorch.plugins.modules import cuda_toolkit_state, nvidia_driver_state, pytorch_plan
    from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import driver, pytorch, toolkit
    for module, stage in ((nvidia_driver_state, driver), (cuda_toolkit_state, toolkit), (pytorch_plan, pytorch)):
        assert module.OPTIONS is stage.OPTIONS  # their documentation against it: ansible-test's validate-modules
