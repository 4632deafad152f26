# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
name: stage_question
version_added: 0.5.0
short_description: A stage's question (its module's options) read from its role's variables
description:
  - Each term names a stage (V(driver), V(toolkit), V(pytorch)); the answer is that stage's options - the options of
    M(blackwell.pytorch.nvidia_driver_state), M(blackwell.pytorch.cuda_toolkit_state) or
    M(blackwell.pytorch.pytorch_plan) but those the module reads on the host - each read from the role variable the
    stage names for it (C(ROLE_VARIABLES) in C(plugins/module_utils/stages/)).
  - The variables are the role's as the role would see them on this host, whether or not the role is entered in
    this play - its C(defaults/main.yml) under the play's variables, its C(vars/main.yml) where the play does not set
    the same name. C(site.yml) asks the stages' questions in the preflight probe this way, before any stage role
    runs; each role's own call asks the same question the same way.
  - An option whose variable is not defined (a variable of a role the play does not run, such as C(verify_force))
    takes the module's default.
  - Logic in C(plugins/plugin_utils/role_view.py).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
options:
  _terms:
    description: Stage names.
    type: list
    elements: str
    required: true
"""

EXAMPLES = r"""
- name: Ask the driver stage's question
  blackwell.pytorch.nvidia_driver_state:
    host: "{{ inventory_hostname }}"
    gpus: "{{ ansible_facts['nvidia_gpus'] }}"
    loaded: "{{ ansible_facts['nvidia_driver'] }}"
    preflight: "{{ blackwell_preflight }}"
  module_defaults:
    blackwell.pytorch.nvidia_driver_state: "{{ lookup('blackwell.pytorch.stage_question', 'driver') }}"
"""

RETURN = r"""
_raw:
  description: One dict of options per term.
  type: list
  elements: dict
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.registry import STAGES
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.role_view import (
    load_trusted, render, role_files, stage_of, trusted, view)

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class LookupModule(LookupBase):
    """A stage's options from its role's variables."""

    def run(self, terms, variables=None, **kwargs):
        answers = []
        for term in terms:
            stage = stage_of(str(term), STAGES)
            if stage is None:
                raise AnsibleLookupError("stage_question: %r is no stage; the stages: %s"
                                         % (term, ", ".join(known.NAME for known in STAGES)))
            loaded = [load_trusted(self._loader, path) for path in role_files(COLLECTION_ROOT, stage.ROLE)]
            merged = view(loaded, variables or {})
            templar = self._templar.copy_with_new_env(available_variables=merged)
            answers.append(render(stage.ROLE_VARIABLES, merged.__contains__,
                                  lambda name: templar.template(trusted("{{ %s }}" % name)), stage.OPTIONS))
        return answers
