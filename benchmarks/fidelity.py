# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fidelity of torch_benchmark: its figures against triton.testing.do_bench of the same ops.

In one run, on one GPU: bf16 GEMM 8192^3 (torch.matmul into a preallocated output) and a
4 GiB device-to-device copy (bytes read + written), first through the module's own code
(module_utils' run(), one child process, profiles quick and standard), then in this process
through triton.testing.do_bench (its defaults: 25 ms warm-up, 100 ms of repetitions, L2
flushed before each call; the median). Prints values, the ratio module / reference (the
acceptance bound is >= 0.97) and the fraction of peak; exits 1 when a ratio is below it.

    python3 benchmarks/fidelity.py --gpu 0
"""
from __future__ import annotations

import argparse
import os
import socket
import sys

from collection_path import import_collection
from quick_speed import params_for, print_table

GEMM = 8192
COPY_MIB = 4096
MIB = 1024 * 1024
MIN_RATIO = 0.97
PROFILES = ("quick", "standard")


def module_figures(python, gpu):
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    sizes = {"gemm_bf16": {"m": GEMM, "n": GEMM, "k": GEMM}, "memcpy": {"mib": COPY_MIB}}
    figures = {}
    for profile in PROFILES:
        document = run(params_for(python, profile, tests=["gemm_bf16", "memcpy"], sizes=sizes, gpus=[gpu]),
                       socket.gethostname())
        figures[profile] = document["devices"][0]["figures"]
    return figures


def _gemm_ms(torch, do_bench):
    a = torch.randn((GEMM, GEMM), dtype=torch.bfloat16, device="cuda")
    b = torch.randn((GEMM, GEMM), dtype=torch.bfloat16, device="cuda")
    c = torch.empty((GEMM, GEMM), dtype=torch.bfloat16, device="cuda")
    return do_bench(lambda: torch.matmul(a, b, out=c), return_mode="median")


def _copy_ms(torch, do_bench):
    src = torch.randint(0, 256, (COPY_MIB * MIB,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    return do_bench(lambda: dst.copy_(src), return_mode="median")


def reference_figures(gpu):
    """The same two ops through triton.testing.do_bench, in this process."""
    import torch
    from triton.testing import do_bench
    torch.cuda.set_device(gpu)
    gemm_ms = _gemm_ms(torch, do_bench)
    torch.cuda.empty_cache()
    copy_ms = _copy_ms(torch, do_bench)
    return {"gemm_bf16": 2.0 * GEMM ** 3 / (gemm_ms * 1e-3) / 1e12,
            "memcpy": 2.0 * COPY_MIB * MIB / (copy_ms * 1e-3) / 1e9}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter of the torch venv")
    parser.add_argument("--gpu", type=int, default=0)
    args = parser.parse_args()
    os.environ["CUDA_DEVICE_ORDER"] = "PCI_BUS_ID"  # the module's children number GPUs this way
    import_collection()
    module = module_figures(args.python, args.gpu)
    reference = reference_figures(args.gpu)
    rows, passed = [], True
    for test in ("gemm_bf16", "memcpy"):
        first = module[PROFILES[0]][test]
        rows.append([test, first["size"], "triton do_bench (median)", "%.1f %s" % (reference[test], first["unit"]),
                     "", "%.3f" % (reference[test] / first["peak"]) if first["peak"] else "", ""])
        for profile in PROFILES:
            fig = module[profile][test]
            ratio = fig["value"] / reference[test] if fig["value"] else None
            ok = ratio is not None and ratio >= MIN_RATIO
            passed = passed and ok
            rows.append([test, fig["size"], "module, profile %s (median of %s)" % (profile, fig["reps"]),
                         "%s %s" % (fig["value"], fig["unit"]), "" if ratio is None else "%.3f" % ratio,
                         "" if fig["fraction_of_peak"] is None else "%.3f" % fig["fraction_of_peak"],
                         "PASS" if ok else "FAIL (%s)" % (fig["error"] or "ratio < %.2f" % MIN_RATIO)])
    peaks = ["%s: peak %s %s (%s)" % (test, module[PROFILES[0]][test]["peak"], module[PROFILES[0]][test]["unit"],
                                      module[PROFILES[0]][test]["peak_source"]) for test in ("gemm_bf16", "memcpy")]
    print("\n== fidelity on GPU %d: %s ==" % (args.gpu, "; ".join(peaks)))
    print_table(["test", "size", "method", "value", "module/ref", "of peak", "verdict"], rows)
    return 0 if passed else 1


if __name__ == "__main__":
    sys.exit(main())
