# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Argument conversion shared by the collection's filters (controller side).

A filter converts what Jinja hands it (None, text, lists, mappings, booleans as text) and calls
one module_utils function; every bad argument and every ValueError of that function becomes an
AnsibleFilterError that names the filter and the argument.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping

from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

# Imported on the first as_bool() call: loading a filter file imports no module_utils (lazy_import.py).
_inputs = module_utils("planning.inputs")


def text(value):
    """None -> "", anything else its str()."""
    return "" if value is None else str(value)


def as_list(value, name, filter_name):
    """None -> [], a list or other sequence -> list; text, a mapping or a scalar is refused."""
    if value is None:
        return []
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise AnsibleFilterError("%s: %s must be a list, got %s" % (filter_name, name, type(value).__name__))
    return list(value)


def as_dicts(value, name, filter_name):
    """A list of mappings (gpu facts, ...) -> list of dicts; any other entry is refused."""
    items = as_list(value, name, filter_name)
    for index, item in enumerate(items):
        if not isinstance(item, Mapping):
            raise AnsibleFilterError("%s: %s[%d] must be a mapping, got %s" % (
                filter_name, name, index, type(item).__name__))
    return [dict(item) for item in items]


def as_dict(value, name, filter_name, allow_none=True):
    """None -> {} (unless allow_none is false), a mapping -> dict; anything else is refused."""
    if value is None and allow_none:
        return {}
    if not isinstance(value, Mapping):
        raise AnsibleFilterError("%s: %s must be a mapping, got %s" % (filter_name, name, type(value).__name__))
    return dict(value)


def as_bool(value, name, filter_name):
    """true / false / yes / no / on / off / 1 / 0 (as Ansible reads them) -> bool, read by planning.inputs.as_bool;
    anything else is refused: "<filter_name>: <name> must be true or false, got 'x'"."""
    return call(filter_name, _inputs.as_bool, value, name)


def call(filter_name, function, *args, **kwargs):
    """function(*args, **kwargs), its ValueError raised again as AnsibleFilterError("<filter_name>: ...")."""
    try:
        return function(*args, **kwargs)
    except ValueError as err:
        raise AnsibleFilterError("%s: %s" % (filter_name, err)) from err
