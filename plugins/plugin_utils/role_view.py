# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A role's variables as the role would see them on a host, without importing the role: its defaults under the
play's variables, its vars where the play does not set the same name (the stage_question and role_var lookups).

site.yml asks the stages' questions in the preflight probe, before any stage role is entered; the roles' own calls
ask them the same way, so one map (each stage's ROLE_VARIABLES, plugins/module_utils/stages/) is the only place a
stage's options are read from the role's variables.
"""
from __future__ import annotations

import os
from typing import Any, Callable, Mapping, Optional

try:  # ansible-core 2.19+: only text trusted as a template is templated
    from ansible.template import trust_as_template as _TRUST
except ImportError:  # older: every string is a template
    _TRUST = None


def trusted(text: str) -> Any:
    """The text as a template Ansible renders (trusted on ansible-core 2.19+, where an untrusted one stays text)."""
    return _TRUST(text) if _TRUST else text


def role_files(collection_root: str, role: str) -> list[str]:
    """The role's defaults/main.yml and vars/main.yml that exist, lowest precedence first."""
    paths = [os.path.join(collection_root, "roles", role, folder, "main.yml") for folder in ("defaults", "vars")]
    return [path for path in paths if os.path.exists(path)]


def load_trusted(loader: Any, path: str) -> dict[str, Any]:
    """A role file's variables, their templates trusted as Ansible trusts a role's own files."""
    try:
        found = loader.load_from_file(path, trusted_as_template=True)
    except TypeError:  # ansible-core before 2.19 has no template trust
        found = loader.load_from_file(path)
    return dict(found or {})


def view(loaded: list[Mapping[str, Any]], variables: Mapping[str, Any]) -> dict[str, Any]:
    """The role's files' variables (lowest first) under the play's: a name the play sets is the play's."""
    merged: dict[str, Any] = {}
    for layer in loaded:
        merged.update(layer)
    merged.update(variables)
    return merged


def render(mapping: Any, defined: Callable[[str], bool], value_of: Callable[[str], Any],
           spec: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """A ROLE_VARIABLES map ({option: variable name, or a map of the same shape for a dict option}) rendered: each
    name's value (a dotted name reads into a dict); an option whose variable is not defined takes its default in
    `spec` (the module's options), else is left out."""
    rendered: dict[str, Any] = {}
    for option, name in mapping.items():
        if isinstance(name, Mapping):
            rendered[option] = render(name, defined, value_of)
        elif defined(name.split(".", 1)[0]):
            rendered[option] = value_of(name)
        elif "default" in (spec or {}).get(option, {}):
            rendered[option] = spec[option]["default"]
    return rendered


def stage_of(name: str, stages: Any) -> Optional[Any]:
    """The stage of this name in the registry's STAGES, None when there is none."""
    return next((stage for stage in stages if stage.NAME == name), None)
