# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Benchmark child: the model-level tests of profile `full`.

- transformer_encoder: torch.nn.TransformerEncoder inference, tokens per second;
- resnet50: torchvision's ResNet-50 with random weights (never downloaded), images per
  second; skipped when torchvision does not import;
- compile_speedup: eager time over torch.compile time of a matmul with a pointwise tail,
  with the compile time and a check that both give the same numbers.
Same return shape as bench_ops. Runs inside the child, no Ansible import.
"""
from __future__ import annotations

import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.timing import check_close
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text

if TYPE_CHECKING:  # names for the annotations alone, never imported when the code runs
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.ops import Bench

_OP_BOUND = 2e-2


def _finite(torch, out):
    finite = bool(torch.isfinite(out.float()).all())
    return {"ok": finite, "detail": "every output element is finite" if finite else "non-finite output"}


def transformer_encoder(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    dtype = bench.dtype(dtype_name)
    d_model = size["d_model"]
    layer = torch.nn.TransformerEncoderLayer(d_model, size["heads"], dim_feedforward=4 * d_model, dropout=0.0,
                                             batch_first=True)
    model = torch.nn.TransformerEncoder(layer, size["layers"], enable_nested_tensor=False)
    model = model.to(device=bench.device, dtype=dtype).eval()
    sets = bench.input_sets(lambda: (bench.random((size["batch"], size["seq"], d_model), dtype),))
    result = bench.run(lambda index: model(sets[index % len(sets)][0]), len(sets))
    result["check"] = _finite(torch, model(sets[0][0]))
    return result


def resnet50(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    try:
        import torchvision
    except Exception as exc:  # not installed, or built for another torch
        return {"skipped": "torchvision is not importable: %s" % err_text(exc)}
    dtype = bench.dtype(dtype_name)
    model = torchvision.models.resnet50(weights=None)
    model = model.to(device=bench.device, dtype=dtype, memory_format=torch.channels_last).eval()
    shape = (size["batch"], 3, size["image_size"], size["image_size"])
    sets = bench.input_sets(lambda: (bench.random(shape, dtype).contiguous(memory_format=torch.channels_last),))
    result = bench.run(lambda index: model(sets[index % len(sets)][0]), len(sets))
    result["check"] = _finite(torch, model(sets[0][0]))
    return result


def compile_speedup(bench: Bench, size: Mapping[str, Any], dtype_name: str | None) -> dict[str, Any]:
    torch = bench.torch
    functional = torch.nn.functional

    def block(x, w):
        h = x @ w
        return functional.gelu(h) * torch.sigmoid(h) + torch.tanh(h)

    dtype = bench.dtype(dtype_name)
    x = bench.random((size["rows"], size["cols"]), dtype)
    w = bench.random((size["cols"], size["cols"]), dtype)
    eager = bench.run(lambda index: block(x, w), 1)
    compiled = torch.compile(block)
    start = time.perf_counter()
    out = compiled(x, w)
    bench.timer.sync()
    compile_s = time.perf_counter() - start
    result = bench.run(lambda index: compiled(x, w), 1)
    result["eager_times_s"] = eager["times_s"]
    result["compile_s"] = compile_s
    result["check"] = check_close(torch, out, block(x, w).double(), _OP_BOUND)
    return result


OPS = {"transformer_encoder": transformer_encoder, "resnet50": resnet50, "compile_speedup": compile_speedup}
