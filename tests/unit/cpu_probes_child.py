# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A child entry for the unit tests: torch_cuda_check.probes run on the CPU with a real torch (no GPU).

Shipped with common.child_program beside the real child modules, as the GPU child ships them.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.probes import (
    SDPA_BACKENDS, close, probe_bf16, probe_sdpa, timed)


def main(argv, emit):
    import torch
    cpu = torch.device("cpu")
    result = dict((name, timed(probe_sdpa, cpu, attr)) for name, attr in SDPA_BACKENDS)
    result["bf16"] = timed(probe_bf16, cpu)
    result["close_off_by_10_percent"] = close(torch.full((4,), 1.1), torch.ones(4), 2e-2)
    emit(result)
