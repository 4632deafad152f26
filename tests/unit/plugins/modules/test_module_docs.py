"""Every module's DOCUMENTATION, EXAMPLES and RETURN parse as YAML, and DOCUMENTATION names the module.

ansible-doc and the sanity layer find a broken one too, minutes later; a `: ` inside a plain description line is the
usual cause (YAML reads it as a mapping)."""
from __future__ import annotations

import ast
import os

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))
MODULES = sorted(name[:-3] for name in os.listdir(os.path.join(ROOT, "plugins", "modules"))
                 if name.endswith(".py") and not name.startswith("_"))


def blocks(name):
    with open(os.path.join(ROOT, "plugins", "modules", name + ".py")) as handle:
        tree = ast.parse(handle.read())
    return dict((node.targets[0].id, node.value.value) for node in tree.body
                if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in ("DOCUMENTATION", "EXAMPLES", "RETURN"))


@pytest.mark.parametrize("name", MODULES)
def test_the_documentation_blocks_parse(name):
    found = blocks(name)
    assert sorted(found) == ["DOCUMENTATION", "EXAMPLES", "RETURN"], name
    for block, text in sorted(found.items()):
        try:
            yaml.safe_load(text)
        except yaml.YAMLError as err:
            pytest.fail("%s %s is not YAML: %s" % (name, block, err))
    assert yaml.safe_load(found["DOCUMENTATION"])["module"] == name


RETURN_KEYS = {"description", "returned", "type", "sample", "contains", "elements", "version_added"}


def return_key_problems(entries, where):
    """Keys of RETURN entries that are not the documentation schema's (a `, ` inside a {flow: mapping} description
    splits it into a new key)."""
    problems = []
    for name, entry in (entries or {}).items():
        if not isinstance(entry, dict):
            problems.append("%s%s is not a mapping" % (where, name))
            continue
        problems += ["%s%s has the key %r" % (where, name, key) for key in sorted(set(entry) - RETURN_KEYS)]
        problems += return_key_problems(entry.get("contains"), "%s%s." % (where, name))
    return problems


@pytest.mark.parametrize("name", MODULES)
def test_the_return_values_use_only_the_schemas_keys(name):
    assert return_key_problems(yaml.safe_load(blocks(name)["RETURN"]), "") == []
