# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The low-precision recipes on this machine's GPUs: torch_benchmark's figures beside an independent measurement.

Runs the six low-precision tests (gemm_fp8, gemm_fp8_rowwise, gemm_mxfp8, gemm_mxfp8_nn, gemm_nvfp4,
gemm_grouped_fp8) through torch_benchmark's own code (module_utils run(), profile standard, every GPU), then
measures the same shapes again in a child of the stack's interpreter with plain torch calls and a timing of
its own: CUDA events around 10 repetitions of 5 back-to-back calls after 10 warm-up calls, recipe after recipe
in the benchmark's order, each after 0.5 s idle as between the benchmark's tests - a load like the benchmark's,
whose figures are burst rates (triton.testing.do_bench's 100 ms per recipe after all of them, for reference).
--rounds times, alternated: a burst rate depends on the power state the GPU is in, and both meet the same
states. Prints per GPU and recipe the medians and their ratio (each round's ratio beside), then each GPU's
capability line (verify.json's low_precision). Exit status 1 when the FP8 per-tensor or row-wise GEMM reads
outside 0.95-1.05 of the other measurement (the grouped GEMM's ratio is printed, not judged).

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
import json, sys, time, torch
gpu, m, n, k = int(sys.argv[1]), 8192, 8192, 8192
torch.cuda.set_device(gpu)
def events(fn):
    # median seconds per call: 10 warm-up calls, then 10 repetitions of 5 back-to-back calls
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
    return sorted(times)[len(times) // 2]
fp8 = torch.float8_e4m3fn
a = torch.randn(m, k, device="cuda").to(fp8)
b = torch.randn(n, k, device="cuda").to(fp8)
one = torch.ones((), device="cuda")
rows, cols = torch.full((m, 1), 2.0, device="cuda"), torch.full((1, n), 0.5, device="cuda")
calls = {}
for name, scales in (("gemm_fp8", (one, one)), ("gemm_fp8_rowwise", (rows, cols))):
    calls[name] = (2.0 * m * n * k, lambda scales=scales: torch._scaled_mm(a, b.t(), scale_a=scales[0],
                                                                          scale_b=scales[1], out_dtype=torch.bfloat16))
if hasattr(torch, "_scaled_grouped_mm"):
    groups, gm, gn, gk = 8, 2048, 4096, 4096
    ga = torch.randn(groups * gm, gk, device="cuda").to(fp8)
    gb = torch.randn(groups, gn, gk, device="cuda").to(fp8)
    offs = torch.arange(gm, groups * gm + 1, gm, device="cuda", dtype=torch.int32)
    sa, sb = torch.full((groups * gm,), 2.0, device="cuda"), torch.full((groups, gn), 0.5, device="cuda")
    calls["gemm_grouped_fp8"] = (2.0 * groups * gm * gn * gk, lambda: torch._scaled_grouped_mm(
        ga, gb.transpose(-2, -1), sa, sb, offs=offs, out_dtype=torch.bfloat16))
out = {}
for name, (work, fn) in calls.items():  # in the benchmark's order, each with a load like the benchmark's
    torch.cuda.synchronize()
    time.sleep(0.5)  # idle first, as between the benchmark's tests (its check, telemetry and report)
    try:
        out[name] = {"tflops": work / events(fn) / 1e12}
    except Exception as exc:
        out[name] = {"error": "%s: %s" % (type(exc).__name__, str(exc).strip().splitlines()[0][:160])}
try:  # triton's do_bench after all of them (100 ms each, L2 flushed): for reference, never compared
    from triton.testing import do_bench
    for name, (work, fn) in calls.items():
        if "tflops" in out[name]:
            out[name]["do_bench"] = work / (do_bench(fn, warmup=25, rep=100, return_mode="median") / 1e3) / 1e12
except ImportError:
    pass
print(json.dumps(out))
'''


def independent(python, gpu):
    proc = subprocess.run([python, "-c", INDEPENDENT, str(gpu)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=False, timeout=600)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "exit %d" % proc.returncode}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def median(values):
    ordered = sorted(value for value in values if value)
    return ordered[len(ordered) // 2] if ordered else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--rounds", type=int, default=3, help="benchmark runs, each followed by the other measurement")
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.capability import line
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    params = {"python": args.python, "device": "cuda", "gpus": None, "profile": "standard", "tests": TESTS,
              "sizes": {}, "reps": None, "timeout": None, "gates": {}, "dest": None}
    documents, others = [], []
    for dummy in range(args.rounds):  # alternated, so both meet the GPU in the same states
        documents.append(run(params, socket.gethostname()))
        others.append(dict((device["index"], independent(args.python, device["index"]))
                           for device in documents[-1]["devices"]))
    torch_facts = documents[0]["torch"]
    seconds = ", ".join("%.1f" % doc["seconds"] for doc in documents)
    print("torch %s, CUDA %s; %d rounds, benchmark %s s" % (
        torch_facts["version"], torch_facts["cuda"], args.rounds, seconds))
    outside = 0
    for position, device in enumerate(documents[-1]["devices"]):
        index = device["index"]
        print("\nGPU %s %s (%s); medians of %d rounds, each round's ratio after" % (
            index, device["name"], device.get("sm"), args.rounds))
        print("%-18s %-10s %10s %12s %7s  %s" % ("test", "status", "benchmark", "independent", "ratio", "note"))
        for test in TESTS:
            figs = [doc["devices"][position]["figures"][test] for doc in documents]
            theirs_all = [(other[index].get(test) or {}).get("tflops") for other in others]
            mine, theirs = median(fig.get("value") for fig in figs), median(theirs_all)
            ratio = mine / theirs if mine and theirs else None
            if test in JUDGED and ratio is not None and not BAND[0] <= ratio <= BAND[1]:
                outside += 1
            rounds = ["%.3f" % (fig["value"] / other) for fig, other in zip(figs, theirs_all)
                      if fig.get("value") and other]
            bench = median((other[index].get(test) or {}).get("do_bench") for other in others)
            note = figs[-1].get("error") or (others[-1][index].get(test) or {}).get("error") or \
                others[-1][index].get("error") or "rounds %s; do_bench %s" % (
                    " ".join(rounds), "%.1f" % bench if bench else "-")
            print("%-18s %-10s %10s %12s %7s  %s" % (
                test, figs[-1]["status"], "%.1f" % mine if mine else "-", "%.1f" % theirs if theirs else "-",
                "%.3f" % ratio if ratio else "-", note))
        print(line("GPU %s %s" % (index, device["name"]), device.get("low_precision")))
        print("libraries: %s" % json.dumps((device.get("low_precision") or {}).get("libraries")))
    print("\nratios of %s outside %.2f-%.2f: %d" % (" and ".join(JUDGED), BAND[0], BAND[1], outside))
    return 1 if outside else 0


if __name__ == "__main__":
    sys.exit(main())
