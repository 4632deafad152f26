# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles keep their decisions in Python: a role's vars/main.yml holds constants and short wiring (1,200 characters at
most), and no Jinja expression in a role or playbook is longer than 120 characters."""
from __future__ import annotations

import os
import re

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


ROLES = sorted(name for name in os.listdir(os.path.join(ROOT, "roles"))
               if os.path.exists(os.path.join(ROOT, "roles", name, "vars", "main.yml")))


def test_the_roles_with_vars_are_all_here():
    assert {"cuda_toolkit", "nvidia_driver", "pytorch", "tools", "verify"} <= set(ROLES), ROLES


@pytest.mark.parametrize("role", ROLES)
def test_role_vars_stay_short(role):
    with open(os.path.join(ROOT, "roles", role, "vars", "main.yml")) as handle:
        text = handle.read()
    assert len(text) <= 1200, "roles/%s/vars/main.yml has %d characters" % (role, len(text))


# Keys whose value is a bare Jinja expression (no braces).
BARE = ("when", "that", "until", "changed_when", "failed_when")


def _strings(node, key=None):
    """(key, string) for every string in a YAML document, with the mapping key it is under."""
    if isinstance(node, dict):
        return [found for name, value in node.items() for found in _strings(value, name)]
    if isinstance(node, list):
        return [found for value in node for found in _strings(value, key)]
    return [(key, node)] if isinstance(node, str) else []


def _expressions(path):
    """Every Jinja expression of a YAML file, whitespace collapsed: each {{ ... }}, and each bare condition."""
    with open(path, encoding="utf-8") as handle:
        document = yaml.safe_load(handle)
    found = []
    for key, text in _strings(document):
        found += re.findall(r"\{\{(.*?)\}\}", text, re.S)
        if key in BARE and "{{" not in text:
            found.append(text)
    return [" ".join(expression.split()) for expression in found]


def _yaml_files():
    for top in ("roles", "playbooks"):
        for folder, _dirs, files in os.walk(os.path.join(ROOT, top)):
            if os.sep + "files" in folder or os.sep + "templates" in folder:
                continue
            for name in sorted(files):
                if name.endswith((".yml", ".yaml")):
                    yield os.path.join(folder, name)


def test_no_jinja_expression_is_longer_than_120_characters():
    long = ["%s: %d: %s" % (os.path.relpath(path, ROOT), len(expression), expression[:60])
            for path in _yaml_files() for expression in _expressions(path) if len(expression) > 120]
    assert long == []


def test_the_expression_reader_finds_braces_and_bare_conditions(tmp_path):
    path = tmp_path / "tasks.yml"
    path.write_text("- name: x\n  ansible.builtin.debug:\n    msg: \"a {{ one }} b {{ two\n   three }}\"\n"
                    "  when: four and five\n")
    assert _expressions(str(path)) == ["one", "two three", "four and five"]


def _private_names(path):
    """Every `__name` a role's or playbook's YAML reads or sets (Python dunders of files excluded)."""
    names = set()
    for folder, _dirs, files in os.walk(path):
        for name in files:
            if name.endswith((".yml", ".yaml", ".j2")):
                with open(os.path.join(folder, name)) as handle:
                    names.update(re.findall(r"\b__[a-z][a-z0-9_]*", handle.read()))
    return names


@pytest.mark.parametrize("role", sorted(os.listdir(os.path.join(ROOT, "roles"))))
def test_a_role_reads_only_its_own_private_variables(role):
    """Roles talk through published facts (blackwell_*, <role>_status): no role reads another's __<role>_*."""
    own = "__%s" % role.lstrip("_")
    foreign = sorted(name for name in _private_names(os.path.join(ROOT, "roles", role))
                     if name != own and not name.startswith(own + "_"))
    assert foreign == [], "roles/%s reads %s" % (role, foreign)


def test_playbooks_read_no_private_variable_of_a_role():
    roles = [name.lstrip("_") for name in os.listdir(os.path.join(ROOT, "roles"))]
    read = sorted(name for name in _private_names(os.path.join(ROOT, "playbooks"))
                  if any(name == "__" + role or name.startswith("__%s_" % role) for role in roles))
    assert read == [], read
