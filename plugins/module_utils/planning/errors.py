# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The planning package's one exception: a refusal of the plan, or a step of a build that failed.

PlanError carries the message the module fails with, word for word, and `result`: what was answered before the
refusal (the module fails with it), or None. It is a ValueError, so the filter shells (plugin_utils/filter_args.call)
and the modules that read a bad input as a ValueError report it as they report any input refused. Python 3.9, no
Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class PlanError(ValueError):
    """A refusal of the plan (the request, the host or the index cannot give it), or a failed build step: str() is the
    message; `result` what was answered before (None when nothing was)."""

    def __init__(self, msg: str, result: Mapping[str, Any] | None = None) -> None:
        super().__init__(msg)
        self.result = result
