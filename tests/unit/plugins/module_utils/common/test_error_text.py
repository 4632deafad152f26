# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""common.error_text: the one text of an exception that the benchmark, torch_cuda_check and stack probe
children report."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text


@pytest.mark.parametrize("exc, text", [
    (RuntimeError("CUDA error: no kernel image is available\nCUDA kernel errors might be reported later"),
     "RuntimeError: CUDA error: no kernel image is available"),
    (RuntimeError("CUDA error: out of memory\nCUDA kernel errors might be ..."),
     "RuntimeError: CUDA error: out of memory"),
    (AssertionError("  Torch not compiled with CUDA enabled  "),
     "AssertionError: Torch not compiled with CUDA enabled"),
    (OSError("\n\nlibc10.so: cannot open shared object file\nmore"),
     "OSError: libc10.so: cannot open shared object file"),
    (ModuleNotFoundError("No module named 'torch'", name="torch"), "ModuleNotFoundError: No module named 'torch'"),
    (KeyError("cuda"), "KeyError: 'cuda'"),
    (KeyError(), "KeyError"),
    (KeyboardInterrupt(), "KeyboardInterrupt"),
    (OSError(""), "OSError"),
    (ValueError("   \n  "), "ValueError"),
])
def test_err_text_is_the_type_and_the_first_line_of_the_message(exc, text):
    assert err_text(exc) == text
