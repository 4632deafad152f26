# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os

import pytest
import yaml
from ansible.errors import AnsibleLookupError

from ansible_collections.blackwell.pytorch.plugins.lookup.role_argument_spec import COLLECTION_ROOT, LookupModule
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import role_specs

ROLES = ["preflight", "tools", "nvidia_driver", "cuda_toolkit", "container_toolkit", "pytorch", "verify", "fleet_report"]


def _options(role, entry_point="main"):
    with open(os.path.join(COLLECTION_ROOT, "roles", role, "meta", "argument_specs.yml")) as stream:
        return yaml.safe_load(stream)["argument_specs"][entry_point].get("options", {})


def test_every_option_of_every_stage_role_is_in_the_merged_spec():
    (merged,) = LookupModule().run(ROLES)
    for role in ROLES:
        assert set(_options(role)) <= set(merged), role


def test_a_shared_option_keeps_the_first_roles_spec():
    merged = role_specs.merged_options(COLLECTION_ROOT, ["verify", "_common:cuda_check"])
    assert merged["verify_results_dir"] == _options("verify")["verify_results_dir"]
    assert "_common_cuda_check_python" in merged


def test_types_that_disagree_are_an_error(tmp_path):
    for role, kind in (("a", "str"), ("b", "int")):
        meta = tmp_path / "roles" / role / "meta"
        meta.mkdir(parents=True)
        (meta / "argument_specs.yml").write_text(yaml.safe_dump(
            {"argument_specs": {"main": {"options": {"shared": {"type": kind}}}}}))
    with pytest.raises(ValueError, match="option shared is of type str in a and int in b"):
        role_specs.merged_options(str(tmp_path), ["a", "b"])


def test_unknown_role_or_entry_point_is_a_lookup_error():
    with pytest.raises(AnsibleLookupError, match="role_argument_spec: .*no_such_role"):
        LookupModule().run(["no_such_role"])
    with pytest.raises(AnsibleLookupError, match="has no entry point nope"):
        LookupModule().run(["pytorch:nope"])
    with pytest.raises(AnsibleLookupError, match="needs at least one role"):
        LookupModule().run([])
