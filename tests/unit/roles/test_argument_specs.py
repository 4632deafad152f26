"""Every role documents every variable it defaults, with the same default, and nothing else."""
from __future__ import annotations

import glob
import os

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLES = sorted(os.path.basename(os.path.dirname(p)) for p in glob.glob(os.path.join(ROOT, "roles", "*", "meta")))


def _load(role, *parts):
    path = os.path.join(ROOT, "roles", role, *parts)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return yaml.safe_load(handle) or {}


def test_there_are_roles():
    assert {"preflight", "tools", "_common"} <= set(ROLES)
    assert _entry_points("_common") == ["cuda_check"] and _entry_points("verify") == ["main"]


def _private(role):
    """A role whose name starts with an underscore is internal (roles/_common): it has no main entry point, only
    the ones other roles include with tasks_from."""
    return role.startswith("_")


def _entry_points(role):
    """The task files other than the included parts: main.yml, or each task file of a private role."""
    tasks = os.path.join(ROOT, "roles", role, "tasks")
    if not _private(role):
        return ["main"]
    return sorted(os.path.splitext(name)[0] for name in os.listdir(tasks) if name.endswith(".yml"))


def _options_of_every_entry_point(role):
    options = {}
    for spec in _load(role, "meta", "argument_specs.yml")["argument_specs"].values():
        options.update(spec.get("options") or {})
    return options


@pytest.mark.parametrize("role", ROLES)
def test_every_entry_point_has_a_spec(role):
    specs = _load(role, "meta", "argument_specs.yml")
    missing = [name for name in _entry_points(role) if name not in ((specs or {}).get("argument_specs") or {})]
    assert specs and not missing, "%s has no meta/argument_specs.yml entry for %s" % (role, ", ".join(missing))
    for name, spec in specs["argument_specs"].items():
        assert spec.get("short_description"), "%s:%s needs a short_description" % (role, name)
        for option, doc in (spec.get("options") or {}).items():
            assert doc.get("description"), "%s: %s has no description" % (role, option)
            assert doc.get("type"), "%s: %s has no type" % (role, option)


@pytest.mark.parametrize("role", ROLES)
def test_defaults_match_the_spec(role):
    defaults = _load(role, "defaults", "main.yml") or {}
    options = _options_of_every_entry_point(role) if _private(role) else \
        _load(role, "meta", "argument_specs.yml")["argument_specs"]["main"].get("options") or {}
    assert sorted(set(defaults) - set(options)) == [], "%s: defaults without a spec" % role
    for name, value in defaults.items():
        if isinstance(value, str) and "{{" in value:
            continue  # a templated default (documented in prose), e.g. preflight_require_gpu
        assert options[name].get("default") == value, "%s: %s default differs from the spec" % (role, name)


@pytest.mark.parametrize("role", ROLES)
def test_user_variables_are_role_prefixed(role):
    defaults = _load(role, "defaults", "main.yml") or {}
    prefixes = (role + "_", "blackwell_" + role + "_")  # the role's or the collection's prefix
    assert [name for name in defaults if not name.startswith(prefixes)] == []
