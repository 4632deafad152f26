# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
name: role_argument_spec
version_added: 0.4.0
short_description: The argument specs of several of this collection's roles as one spec
description:
  - Reads C(meta/argument_specs.yml) of each role named in the terms (C(role) for its C(main) entry point, or
    C(role:entry_point)) from the installed collection, on the controller, once per process, and returns their
    options as one dict for M(ansible.builtin.validate_argument_spec).
  - C(site.yml) validates the inputs of every stage it will run this way, in one task, before any host changes;
    it then includes the roles with C(rolespec_validate=false).
  - An option two roles share keeps the first role's spec; two roles that give it different types are an error.
  - Logic in C(plugins/plugin_utils/role_specs.py).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
options:
  _terms:
    description: Role names of this collection, each optionally followed by C(:entry_point).
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Validate the inputs of the driver and pytorch roles before either runs
  ansible.builtin.validate_argument_spec:
    argument_spec: "{{ query('blackwell.pytorch.role_argument_spec', 'nvidia_driver', 'pytorch') | first }}"
"""

RETURN = r"""
_raw:
  description: One element, the merged options (name -> spec, as in C(meta/argument_specs.yml)).
  type: list
  elements: dict
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.role_specs import merged_options

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class LookupModule(LookupBase):
    """The merged argument spec of this collection's roles."""

    def run(self, terms, variables=None, **kwargs):
        if not terms:
            raise AnsibleLookupError("role_argument_spec needs at least one role name")
        try:
            return [merged_options(COLLECTION_ROOT, terms)]
        except (OSError, KeyError, ValueError) as err:
            raise AnsibleLookupError("role_argument_spec: %s" % err)
