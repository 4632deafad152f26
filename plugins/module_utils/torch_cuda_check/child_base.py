# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What every torch_cuda_check child shares: phase seconds, importing torch (and the error text of
common.error_text, shipped before this module).

Runs in the checked interpreter (Python 3.9+), shipped by common.child_program (see
torch_cuda_check.child). No Ansible import; torch is imported inside import_torch() only.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from types import ModuleType
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text


def since(start: float) -> float:
    """Seconds since the time.monotonic() value `start`, to the millisecond."""
    return round(time.monotonic() - start, 3)


def attempt(func: Callable[..., Any], *args: Any) -> Any:
    """func(*args), or None when it raises."""
    try:
        return func(*args)
    except Exception:
        return None


def import_error_result(exc: BaseException, seconds: float) -> dict[str, Any]:
    """What a child emits when `import torch` raised `exc` after `seconds`."""
    return {"torch_import_error": err_text(exc), "phases": {"import_torch": seconds},
            "torch_missing": isinstance(exc, ImportError) and getattr(exc, "name", None) == "torch"}


def import_torch(emit: Callable[[dict[str, Any]], None]) -> tuple[ModuleType | None, dict[str, float] | None]:
    """(torch, phases with the import's seconds); (None, None) after emitting why torch did not import."""
    start = time.monotonic()
    try:
        import torch
    except BaseException as exc:  # a broken install fails with anything while it loads
        emit(import_error_result(exc, since(start)))
        return None, None
    return torch, {"import_torch": since(start)}
