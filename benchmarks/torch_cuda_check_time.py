# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the whole torch_cuda_check on a GPU machine, through the module's own code paths.

Runs module_utils' run_check() and the policy (no Ansible needed: the checkout is put on
sys.path as ansible_collections.blackwell.pytorch through a symlink tree), then prints a
table of every child process (status, seconds) with the total, a summary of what each GPU
got, the unmet requirements, and the full JSON report.

    python3 benchmarks/cuda_check_time.py --python /opt/torch/.venv/bin/python3 \
        --min-verdict native --require native native_sass_launch flash_attention triton
"""
from __future__ import annotations

import argparse
import json
import sys

from collection_path import import_collection


def summary_rows(report):
    for gpu in report["gpus"]:
        verdict = gpu["kernel_image"]
        yield "GPU %s %s (%s)" % (gpu["index"], gpu["name"], gpu["sm"]), "%s via %s, forward_compatible %s" % (
            verdict["verdict"], verdict["image"], verdict["forward_compatible"])
        for mode, run in gpu["runs"].items():
            error = " (%s)" % run["error"] if run["error"] else ""
            expected = "expected" if run["expected"] else "UNEXPECTED"
            yield "  run %s" % mode, "%s %s s%s; %s" % (run["status"], run.get("seconds"), error, expected)
        sass = gpu["native_sass_launch"]
        control = sass.get("negative_control") or {}
        yield "  native_sass_launch", "%s: %s; negative control %s %s" % (
            sass["status"], sass.get("result") or sass.get("error"), control.get("arch"),
            control.get("refused_with") or control.get("error") or control.get("reason"))
        for name, probe in gpu["probes"].items():
            yield "  probe %s" % name, "%s%s" % (probe["status"], ": %s" % (probe.get("error") or probe.get("reason"))
                                                 if probe["status"] != "ok" else "")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter of the venv to check")
    parser.add_argument("--torch-compile", action="store_true", help="include the torch.compile probe")
    parser.add_argument("--require", nargs="*", default=[])
    parser.add_argument("--min-verdict", choices=["native", "ptx_jit"])
    parser.add_argument("--timeout", type=int, default=120)
    parser.add_argument("--parallel", type=int, default=4, help="children at a time (1: one by one)")
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.policy import unmet
    from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.run import run_check

    report = run_check(args.python, timeout=args.timeout, torch_compile=args.torch_compile,
                       parallel=args.parallel)
    if report["error"]:
        print("error: %s" % report["error"])
        return 1
    print("%-16s %-4s %-8s %8s  %s" % ("part", "gpu", "status", "seconds", "phases (s)"))
    for child in report["children"]:
        phases = ", ".join("%s %.2f" % item for item in (child["phases"] or {}).items())
        gpu = "-" if child["gpu"] is None else child["gpu"]
        print("%-16s %-4s %-8s %8.3f  %s" % (child["name"], gpu, child["status"], child["seconds"], phases))
    print("%-16s %-4s %-8s %8.3f  (parallel %d)" % ("total", "", "", float(report["seconds"]), args.parallel))
    print()
    for label, text in summary_rows(report):
        print("%-26s %s" % (label, text))
    failures = unmet(report, args.require, args.min_verdict)
    print("\nrequire %s, min_verdict %s: %s" % (args.require, args.min_verdict, "; ".join(failures) or "all met"))
    print("\n" + json.dumps(report, indent=1, sort_keys=True))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
