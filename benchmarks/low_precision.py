# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The low-precision recipes on this machine's GPUs: torch_benchmark's figures beside an independent measurement.

Runs the six low-precision tests (gemm_fp8, gemm_fp8_rowwise, gemm_mxfp8, gemm_mxfp8_nn, gemm_nvfp4,
gemm_grouped_fp8) through torch_benchmark's own code (module_utils run(), profile standard, every GPU), then
measures the same shapes again in a child of the stack's interpreter with plain torch calls and a timing of
its own (CUDA events around 10 repetitions of 5 back-to-back calls after 10 warm-up calls: a load window like
the benchmark's, whose figures are burst rates; triton.testing.do_bench's 100 ms beside it, for reference).
Prints per GPU and recipe the benchmark's figure or refusal, the independent figure and their ratio, then each
GPU's capability line (verify.json's low_precision). Exit status 1 when the FP8 per-tensor or row-wise GEMM
reads outside 0.95-1.05 of the other measurement (the grouped GEMM's ratio is printed, not judged).

    python3 benchmarks/low_precision.py --python /opt/torch/.venv/bin/python3
"""
from __future__ import annotations

import argparse
import json
import socket
import subprocess
import sys

from collection_path import import_collection

TESTS = ["gemm_fp8", "gemm_fp8_rowwise", "gemm_mxfp8", "gemm_mxfp8_nn", "gemm_nvfp4", "gemm_grouped_fp8"]
BAND = (0.95, 1.05)
JUDGED = ("gemm_fp8", "gemm_fp8_rowwise")  # the grouped GEMM's ratio is printed, not judged (benchmarks/README.md)

# The independent measurement: plain torch calls, the same shapes and scales as the benchmark's recipes.
INDEPENDENT = r'''
import json, sys, torch
gpu, m, n, k = int(sys.argv[1]), 8192, 8192, 8192
torch.cuda.set_device(gpu)
def timer(fn):
    """Median seconds per call: CUDA events around 10 repetitions of 5 back-to-back calls after 10 warm-up calls
    (a load window like the benchmark's, about 40 ms), and triton's do_bench (100 ms, L2 flushed) beside it."""
    for _ in range(10):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(5):
            fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 5 / 1e3)
    try:
        from triton.testing import do_bench
        other = do_bench(fn, warmup=25, rep=100, return_mode="median") / 1e3
    except ImportError:
        other = None
    return sorted(times)[len(times) // 2], other
fp8 = torch.float8_e4m3fn
a = torch.randn(m, k, device="cuda").to(fp8)
b = torch.randn(n, k, device="cuda").to(fp8)
one = torch.ones((), device="cuda")
rows, cols = torch.full((m, 1), 2.0, device="cuda"), torch.full((1, n), 0.5, device="cuda")
out = {}
for name, scales in (("gemm_fp8", (one, one)), ("gemm_fp8_rowwise", (rows, cols))):
    try:
        seconds, other = timer(lambda: torch._scaled_mm(a, b.t(), scale_a=scales[0], scale_b=scales[1],
                                                        out_dtype=torch.bfloat16))
        out[name] = {"tflops": 2.0 * m * n * k / seconds / 1e12,
                     "do_bench": 2.0 * m * n * k / other / 1e12 if other else None}
    except Exception as exc:
        out[name] = {"error": "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:160])}
groups, gm, gn, gk = 8, 2048, 4096, 4096
if hasattr(torch, "_scaled_grouped_mm"):
    ga = torch.randn(groups * gm, gk, device="cuda").to(fp8)
    gb = torch.randn(groups, gn, gk, device="cuda").to(fp8)
    offs = torch.arange(gm, groups * gm + 1, gm, device="cuda", dtype=torch.int32)
    sa, sb = torch.full((groups * gm,), 2.0, device="cuda"), torch.full((groups, gn), 0.5, device="cuda")
    try:
        seconds, other = timer(lambda: torch._scaled_grouped_mm(ga, gb.transpose(-2, -1), sa, sb, offs=offs,
                                                                out_dtype=torch.bfloat16))
        work = 2.0 * groups * gm * gn * gk
        out["gemm_grouped_fp8"] = {"tflops": work / seconds / 1e12, "do_bench": work / other / 1e12 if other else None}
    except Exception as exc:
        out["gemm_grouped_fp8"] = {"error": "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:160])}
print(json.dumps(out))
'''


def independent(python, gpu):
    proc = subprocess.run([python, "-c", INDEPENDENT, str(gpu)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False, timeout=600)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "exit %d" % proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.capability import line
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    params = {"python": args.python, "device": "cuda", "gpus": None, "profile": "standard", "tests": TESTS,
              "sizes": {}, "reps": None, "timeout": None, "gates": {}, "dest": None}
    document = run(params, socket.gethostname())
    torch_facts = document["torch"]
    print("torch %s, CUDA %s; benchmark %.1f s" % (torch_facts["version"], torch_facts["cuda"], document["seconds"]))
    outside = 0
    for device in document["devices"]:
        other = independent(args.python, device["index"])
        print("\nGPU %s %s (%s)" % (device["index"], device["name"], device.get("sm")))
        print("%-18s %-10s %12s %12s %7s  %s" % ("test", "status", "benchmark", "independent", "ratio", "note"))
        for test in TESTS:
            fig = device["figures"][test]
            mine = fig.get("value")
            theirs = (other.get(test) or {}).get("tflops")
            ratio = mine / theirs if mine and theirs else None
            if test in JUDGED and ratio is not None and not BAND[0] <= ratio <= BAND[1]:
                outside += 1
            bench = (other.get(test) or {}).get("do_bench")
            note = fig.get("error") or (other.get(test) or {}).get("error") or other.get("error") or (
                "do_bench %.1f" % bench if bench else "")
            print("%-18s %-10s %12s %12s %7s  %s" % (
                test, fig["status"], "%.1f" % mine if mine else "-", "%.1f" % theirs if theirs else "-",
                "%.3f" % ratio if ratio else "-", note))
        print(line("GPU %s %s" % (device["index"], device["name"]), device.get("low_precision")))
        print("libraries: %s" % json.dumps((device.get("low_precision") or {}).get("libraries")))
    print("\nratios of %s outside %.2f-%.2f: %d" % (" and ".join(JUDGED), BAND[0], BAND[1], outside))
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
