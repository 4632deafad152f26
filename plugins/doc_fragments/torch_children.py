# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment(object):
    # The options of the modules that run children in a PyTorch stack's interpreter (torch_cuda_check,
    # torch_benchmark) and mean the same in both.
    DOCUMENTATION = r"""
options:
  bytecode_cache_dir:
    description:
      - Where the children keep the bytecode of a stack that holds none (installed without compiling) when Python
        may not write it beside torch's modules (C(PYTHONDONTWRITEBYTECODE) set, or a directory this user cannot
        write); the children then get C(PYTHONPYCACHEPREFIX) set to it, and the finding is returned in
        RV(bytecode) (M(blackwell.pytorch.torch_cuda_check) also warns it). Without it such a stack compiles torch on
        every import (seconds per child).
      - Unset or empty, nothing is changed and the finding is still returned. A stack with bytecode is never
        affected.
    type: path
"""
