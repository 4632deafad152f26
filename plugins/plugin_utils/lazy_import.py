# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Modules a filter file imports on their first use, not when the file is loaded.

To find one filter of a collection, Ansible imports the collection's filter files in name order until one
provides it, and it does so again in each task's worker process (a fresh fork of the controller's main
process, which has loaded none of them). A filter file that imported its module_utils at the top made every
task that calls any of the collection's filters pay for the imports of the files before it (0.08 s a task on a
2-core development machine, 0.11 to 0.19 s on an H100 machine; docs/architecture.md, Filters). Through
`module_utils("verify.rollout")` a filter file costs its own few lines; the task imports only what the filter it
calls runs.
"""
from __future__ import annotations

import importlib

MODULE_UTILS = "ansible_collections.blackwell.pytorch.plugins.module_utils."
PLUGIN_UTILS = "ansible_collections.blackwell.pytorch.plugins.plugin_utils."


class LazyModule(object):
    """Stands for the module `name`: the first attribute read imports it (then Python's own module cache)."""

    __slots__ = ("_lazy_name",)

    def __init__(self, name):
        object.__setattr__(self, "_lazy_name", name)

    def __getattr__(self, attr):
        return getattr(importlib.import_module(self._lazy_name), attr)

    def __repr__(self):
        return "<module %s, imported on first use>" % self._lazy_name


def module_utils(name):
    """The collection's module_utils module `name` ("verify.rollout"), imported on its first use."""
    return LazyModule(MODULE_UTILS + name)


def plugin_utils(name):
    """The collection's plugin_utils module `name` ("versions"), imported on its first use."""
    return LazyModule(PLUGIN_UTILS + name)
