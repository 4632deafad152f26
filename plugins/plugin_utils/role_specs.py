# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The argument specs of several roles' entry points as one spec, read once per controller process.

site.yml validates the inputs of every stage it will run in one task before any host changes (the roles
are then included without their own validation task): a bad value for the verify stage is refused before
the driver stage touches a host, and a converged run has one validation task per host instead of one per role.
"""
from __future__ import annotations

import os

import yaml

_CACHE = {}
# libyaml's loader where PyYAML has it (a fifth of the pure-Python loader's time: site.yml reads seven specs per host)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def entry_options(collection_root, role, entry_point="main"):
    """The options of one role's entry point, as its meta/argument_specs.yml declares them."""
    key = (collection_root, role, entry_point)
    if key not in _CACHE:
        path = os.path.join(collection_root, "roles", role, "meta", "argument_specs.yml")
        with open(path) as stream:
            specs = (yaml.load(stream, Loader=_LOADER) or {}).get("argument_specs", {})  # a safe loader
        if entry_point not in specs:
            raise KeyError("role %s has no entry point %s in %s" % (role, entry_point, path))
        _CACHE[key] = specs[entry_point].get("options", {}) or {}
    return _CACHE[key]


def merged_options(collection_root, roles):
    """One options dict for `roles` ("name" or "name:entry_point"), the first role's spec winning a shared name.

    Raises ValueError when two roles give one option different types (one value cannot satisfy both).
    """
    merged, owner = {}, {}
    for item in roles:
        role, _sep, entry_point = str(item).partition(":")
        for name, spec in entry_options(collection_root, role, entry_point or "main").items():
            if name in merged:
                if merged[name].get("type", "str") != spec.get("type", "str"):
                    raise ValueError("option %s is of type %s in %s and %s in %s" % (
                        name, merged[name].get("type", "str"), owner[name], spec.get("type", "str"), item))
                continue
            merged[name], owner[name] = spec, item
    return merged
