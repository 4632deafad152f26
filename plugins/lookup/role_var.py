# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
name: role_var
version_added: 0.5.0
short_description: Variables of one of this collection's roles, as the role would see them, without entering it
description:
  - Each term names a variable of the role O(role); the answer is its value on this host as the role would see it -
    the role's C(defaults/main.yml) under the play's variables, its C(vars/main.yml) where the play does not set
    the same name - whether or not the role is entered in this play.
  - A term itself is the role's own definition of it, so that a play can give the role's value to other tasks under
    the same name.
  - C(site.yml) reads the tools role's answer this way (what the preflight probe is asked to read of the tools venv,
    whether the venv has work, the interpreter that reads NVML) before the role runs, and only where it has work.
  - Logic in C(plugins/plugin_utils/role_view.py).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
options:
  _terms:
    description: Variable names.
    type: list
    elements: str
    required: true
  role:
    description: A role of this collection.
    type: str
    required: true
"""

EXAMPLES = r"""
- name: Whether the tools venv has work on this host
  ansible.builtin.debug:
    msg: "{{ lookup('blackwell.pytorch.role_var', '_tools_work', role='tools') }}"
"""

RETURN = r"""
_raw:
  description: The value of each term.
  type: list
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.role_view import (
    load_trusted, role_files, trusted, view)

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class LookupModule(LookupBase):
    """A role's variables, as the role would see them."""

    def run(self, terms, variables=None, **kwargs):
        self.set_options(var_options=variables, direct=kwargs)
        role = self.get_option("role")
        paths = role_files(COLLECTION_ROOT, role)
        if not paths:
            raise AnsibleLookupError("role_var: %r is no role of this collection with defaults or vars" % (role,))
        loaded = [load_trusted(self._loader, path) for path in paths]
        merged = view(loaded, variables or {})
        for layer in loaded:  # a term is the role's own definition, which a play may give under the same name
            merged.update((term, layer[term]) for term in terms if term in layer)
        templar = self._templar.copy_with_new_env(available_variables=merged)
        missing = [term for term in terms if term not in merged]
        if missing:
            raise AnsibleLookupError("role_var: role %s has no variable %s" % (role, ", ".join(missing)))
        return [templar.template(trusted("{{ %s }}" % term)) for term in terms]
