# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An exception as one line of a result: its type and the first line of its message.

Child code: the benchmark child and torch_cuda_check's children ship this module before the modules that
import it (benchmark.child, torch_cuda_check.child). Python 3.9, standard library only, no Ansible import.
"""
from __future__ import annotations


def err_text(exc: BaseException) -> str:
    """"Type: first line of the message" of an exception; the type alone when the message is empty."""
    lines = str(exc).strip().splitlines()
    return "%s: %s" % (type(exc).__name__, lines[0]) if lines else type(exc).__name__
