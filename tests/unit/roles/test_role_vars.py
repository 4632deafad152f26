# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles keep their decisions in Python: a role's vars/main.yml holds constants and short wiring, 30 lines at most."""
from __future__ import annotations

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


ROLES = sorted(name for name in os.listdir(os.path.join(ROOT, "roles"))
               if os.path.exists(os.path.join(ROOT, "roles", name, "vars", "main.yml")))


def test_the_roles_with_vars_are_all_here():
    assert {"cuda_toolkit", "nvidia_driver", "pytorch", "tools", "verify"} <= set(ROLES), ROLES


@pytest.mark.parametrize("role", ROLES)
def test_role_vars_stay_short(role):
    with open(os.path.join(ROOT, "roles", role, "vars", "main.yml")) as handle:
        lines = handle.read().splitlines()
    assert len(lines) <= 30, "roles/%s/vars/main.yml has %d lines" % (role, len(lines))


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
