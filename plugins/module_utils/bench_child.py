# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The benchmark child program: the source run_child() hands to `python -c`.

The child code lives in ordinary modules (bench_timing, bench_ops, bench_models,
bench_multi, bench_main, and nvml_gpus with its helpers), so it can be read, linted and
imported like any other. Their sources are read through each module's loader, which works
for plain files and for the zip AnsiballZ ships, and installed in the child under their
own names in sys.modules, dependencies first, so their imports of one another resolve
there as they do here. The program stays far under Linux's 128 KiB limit for one argument.
"""
from __future__ import annotations

import json

from ansible_collections.blackwell.pytorch.plugins.module_utils import (
    bench_main, bench_models, bench_multi, bench_ops, bench_sustained, bench_telemetry, bench_timing, gpu_arch,
    nvml_gpus, pci_ids, sysfs_gpus)
from ansible_collections.blackwell.pytorch.plugins.module_utils.child_run import emit_result_source

# Dependencies first: each module imports only modules listed before it.
CHILD_MODULES = (gpu_arch, pci_ids, sysfs_gpus, nvml_gpus, bench_timing, bench_telemetry, bench_ops,
                 bench_sustained, bench_models, bench_multi, bench_main)
MAX_ARG_BYTES = 128 * 1024

_INSTALL = '''import sys as _sys, types as _types


def _install(name, source):
    module = _types.ModuleType(name)
    module.__file__ = "<%s>" % name
    _sys.modules[name] = module
    exec(compile(source, module.__file__, "exec"), module.__dict__)


'''


def module_source(module):
    """The source text of an imported module, through its loader."""
    spec = module.__spec__
    source = spec.loader.get_source(spec.name)
    if not source:
        raise RuntimeError("no source available for %s" % spec.name)
    return source


def child_program():
    """Python source of the child: argv[1] is the JSON plan (see bench_main)."""
    parts = [emit_result_source(), _INSTALL]
    for module in CHILD_MODULES:
        parts.append("_install(%r, %r)\n" % (module.__name__, module_source(module)))
    parts.append("from %s import main\nmain(_sys.argv[1:], emit)\n" % bench_main.__name__)
    program = "".join(parts)
    if len(program.encode("utf-8")) >= MAX_ARG_BYTES:
        raise RuntimeError("the benchmark child program exceeds %d bytes" % MAX_ARG_BYTES)
    return program


def plan_arg(plan):
    """The plan as the child's one argument."""
    return json.dumps(plan, sort_keys=True)
