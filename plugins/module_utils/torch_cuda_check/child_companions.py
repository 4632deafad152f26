# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The companions child of torch_cuda_check: imports torchvision and torchaudio.

Kept apart from the facts child: the imports are slow, and a mismatched companion can kill
the process. main(argv, emit) takes no arguments; it emits after each import, so a crash in
the second keeps the first: {"torchvision": {"version", "import_error"}, ..., "phases"}.
torch is imported first (as the companions import it) only when a companion is there to import: on
an interpreter with neither, each is reported as not found without loading torch (2-3 s of CPU).
Runs in the checked interpreter (Python 3.9+), shipped by common.child_program. No Ansible import.
"""
from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import time
from collections.abc import Callable, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child_base import (
    attempt, import_torch, since)

COMPANION_NAMES = ("torchvision", "torchaudio")


def companion(name: str) -> dict[str, Any]:
    """{"version", "import_error"} of one companion: its __version__, else its installed version."""
    found = {"version": attempt(lambda: importlib.metadata.version(name)), "import_error": None}
    try:
        found["version"] = importlib.import_module(name).__version__
    except BaseException as exc:  # a mismatched wheel raises anything while it loads
        found["import_error"] = err_text(exc)
    return found


def present(name: str) -> bool:
    """True when `name` can be found on the path (found, not imported: nothing of it runs)."""
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def main(argv: Sequence[str], emit: Callable[[dict[str, Any]], None]) -> None:
    phases = {}
    if any(present(name) for name in COMPANION_NAMES):
        _torch, phases = import_torch(emit)
        if phases is None:
            return
    companions = {"phases": phases}
    for name in COMPANION_NAMES:
        start = time.monotonic()
        companions[name] = companion(name)
        phases["import_" + name] = since(start)
        emit(companions)
