# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where the torch children keep the bytecode of a stack that holds none.

A stack installed without compiling (uv without --compile-bytecode, some images) has no `__pycache__` beside torch's
modules. Python then compiles every module it imports, on every import, when it may not write beside them: the
directory is not writable, or PYTHONDONTWRITEBYTECODE is set (some images and lab profiles set it). torch and
torchvision took 3.5-6.6 s each to import so on an H100 host, against 1.5-2.0 s from bytecode (docs/roles/verify.md).

plan() decides, without running the interpreter, from the venv layout (<prefix>/lib/python3.X/site-packages/torch):
- torch holds bytecode, or is not found in a venv layout, or Python may write beside it: nothing to do;
- else the children get PYTHONPYCACHEPREFIX=<cache_dir> (Python keeps the bytecode there, keyed by each source's
  path, validated by its size and modification time as beside the source) and PYTHONDONTWRITEBYTECODE removed;
  the finding says so and how to give the stack its own bytecode.

No Ansible import; the module shells call apply() on their own environment before starting children.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Callable, Mapping
from typing import Any

DONT_WRITE = "PYTHONDONTWRITEBYTECODE"
PREFIX = "PYTHONPYCACHEPREFIX"


def torch_dir(python: str) -> str | None:
    """The torch package directory of the venv whose interpreter is `python` (not resolving its symlink), or None."""
    prefix = os.path.dirname(os.path.dirname(python or ""))
    found = sorted(glob.glob(os.path.join(prefix, "lib", "python3*", "site-packages", "torch", "__init__.py")))
    return os.path.dirname(found[-1]) if found else None


def has_bytecode(package: str) -> bool:
    """True when the package's __init__ has compiled bytecode beside it (any CPython 3 tag)."""
    return bool(glob.glob(os.path.join(package, "__pycache__", "__init__.cpython-3*.pyc")))


def plan(python: str, environ: Mapping[str, str], cache_dir: str,
         writable: Callable[[str], bool] | None = None) -> dict[str, Any]:
    """{"env": entries to add (None removes), "finding": text or None, "cache_dir": the directory used or None}.

    `writable(path)` says whether this process may write `path` (default os.access W_OK)."""
    writable = writable or (lambda path: os.access(path, os.W_OK))
    nothing = {"env": {}, "finding": None, "cache_dir": None}
    package = torch_dir(python)
    if not package or has_bytecode(package):
        return nothing
    why = []
    if environ.get(DONT_WRITE):
        why.append("%s is set" % DONT_WRITE)
    if not writable(package):
        why.append("%s is not writable here" % package)
    if not why:
        return nothing  # Python writes the bytecode beside the modules on the first import
    stack = os.path.dirname(os.path.dirname(python))
    fix = ("give the stack its bytecode: %s -m compileall -q %s (or install it with uv pip install --compile-bytecode, as "
           "the pytorch role does)" % (python, os.path.dirname(package)))
    if not cache_dir:
        return dict(nothing, finding="torch in %s has no bytecode and %s: every import compiles it; %s"
                    % (stack, " and ".join(why), fix))
    return {"env": {PREFIX: cache_dir, DONT_WRITE: None}, "cache_dir": cache_dir,
            "finding": "torch in %s has no bytecode and %s: the checks keep theirs in %s; every other import compiles it; %s"
            % (stack, " and ".join(why), cache_dir, fix)}


def apply(environ: dict[str, str], python: str, cache_dir: str, makedirs: Callable[..., None] = os.makedirs) -> str:
    """plan() applied to `environ` (a mapping the children inherit, e.g. os.environ): the cache directory made
    (mode 0755), the entries set or removed. Returns the finding (None when nothing was needed). A cache directory
    that cannot be made leaves `environ` as it was and says so in the finding."""
    decided = plan(python, environ, cache_dir)
    if decided["cache_dir"]:
        try:
            makedirs(decided["cache_dir"], 0o755, exist_ok=True)
        except OSError as err:
            return "%s (no cache: %s)" % (plan(python, environ, "")["finding"], err)
    for key, value in decided["env"].items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    return decided["finding"]
