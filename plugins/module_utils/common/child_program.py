# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Child programs built from real modules: the one way this collection runs code in a child.

Child code lives in ordinary modules, so it is read, linted and imported by unit tests like
any other. Their sources are read through each module's loader, which works for plain files
and for the zip AnsiballZ ships, and installed in the child under their own names in
sys.modules, dependencies first, so their imports of one another resolve there as they do
here. The entry module's main(argv, emit) runs last; emit() prints the result line that
common.child_run parses. The program stays under Linux's 128 KiB limit for one argument.
"""
from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import emit_result_source

MAX_ARG_BYTES = 128 * 1024

_INSTALL = '''import sys as _sys, types as _types


def _install(name, source):
    module = _types.ModuleType(name)
    module.__file__ = "<%s>" % name
    _sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)


'''


def module_source(module: ModuleType) -> str:
    """The source text of an imported module, through its loader."""
    spec = module.__spec__
    source = spec.loader.get_source(spec.name)
    if not source:
        raise RuntimeError("no source available for %s" % spec.name)
    return source


def child_program(modules: Sequence[ModuleType], entry: ModuleType, what: str = "child") -> str:
    """Python source that installs `modules` (dependencies first) and runs entry.main(argv[1:], emit)."""
    parts = [emit_result_source(), _INSTALL]
    for module in modules:
        parts.append("_install(%r, %r)\n" % (module.__name__, module_source(module)))
    parts.append("from %s import main\nmain(_sys.argv[1:], emit)\n" % entry.__name__)
    program = "".join(parts)
    if len(program.encode("utf-8")) >= MAX_ARG_BYTES:
        raise RuntimeError("the %s program exceeds %d bytes" % (what, MAX_ARG_BYTES))
    return program
