# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Run torch_benchmark profiles on a GPU machine through the module's own code and time them.

No Ansible needed: the checkout is put on sys.path as ansible_collections.blackwell.pytorch
through a symlink tree, and module_utils' run() does what the module does. For each profile
it prints every figure (value, spread, peak and its source, fraction of peak, check) and
the wall time per GPU against the profile's budget (quick <= 15 s, standard <= 60 s per GPU).
The full result documents go to $OUT (or --json-dir) when set.

    python3 benchmarks/quick_speed.py --profile quick standard
"""
from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time

from collection_path import import_collection

BUDGET_PER_GPU_S = {"quick": 15.0, "standard": 60.0}


def params_for(python, profile, tests=None, sizes=None, gpus=None):
    return {"python": python, "device": "cuda", "gpus": gpus, "profile": profile, "tests": tests,
            "sizes": sizes or {}, "reps": None, "timeout": None, "gates": {}, "dest": None}


def print_table(header, rows):
    widths = [max(len(str(row[i])) for row in [header] + rows) for i in range(len(header))]
    for row in [header, ["-" * width for width in widths]] + rows:
        print("  ".join(str(cell).ljust(width) for cell, width in zip(row, widths)).rstrip())


def _check_text(check):
    if not check:
        return ""
    if "rel_error" in check:
        return "%s %.2g<=%g" % ("ok" if check["ok"] else "BAD", check["rel_error"] or float("nan"), check["bound"])
    return "ok" if check["ok"] else "BAD"


def figure_rows(document):
    located = [("cuda:%s" % device["index"], fig) for device in document["devices"]
               for fig in device["figures"].values()]
    for name, figures in ((document.get("multi_gpu") or {}).get("figures") or {}).items():
        for fig in figures if isinstance(figures, list) else [figures]:
            where = "%s->%s" % (fig["src"], fig["dst"]) if fig.get("src") is not None else "all"
            located.append((where, fig))
    for where, fig in located:
        yield [where, fig["test"], fig["size"], fig["status"],
               "" if fig["value"] is None else "%.1f %s" % (fig["value"], fig["unit"]),
               "" if fig["spread"] is None else "%.3f" % fig["spread"],
               "" if fig["peak"] is None else "%.0f %s" % (fig["peak"], fig["peak_source"]),
               "" if fig["fraction_of_peak"] is None else "%.3f" % fig["fraction_of_peak"],
               _check_text(fig["check"]) or (fig["error"] or "")[:60]]


def run_profile(run, python, profile, gpus, json_dir):
    start = time.monotonic()
    document = run(params_for(python, profile, gpus=gpus), socket.gethostname())
    wall = time.monotonic() - start
    if json_dir:
        with open(os.path.join(json_dir, "torch_benchmark_%s.json" % profile), "w") as handle:
            json.dump(document, handle, indent=2, sort_keys=True)
    print("\n== profile %s: %d GPU(s), torch %s ==" % (profile, len(document["devices"]),
                                                       document["torch"]["version"]))
    print_table(["where", "test", "size", "status", "value", "spread", "peak", "fraction", "check"],
                list(figure_rows(document)))
    children = [(device["device"], device["seconds"]) for device in document["devices"]]
    if document.get("multi_gpu"):
        children.append(("multi", document["multi_gpu"]["seconds"]))
    return wall, len(document["devices"]), children


def _verdict(per_gpu, budget):
    if budget is None:
        return ""
    return "PASS <= %.0f" % budget if per_gpu <= budget else "FAIL > %.0f" % budget


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter of the torch venv")
    parser.add_argument("--profile", nargs="+", default=["quick"], choices=["quick", "standard", "full"])
    parser.add_argument("--gpus", nargs="*", type=int)
    parser.add_argument("--json-dir", default=os.environ.get("OUT"))
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    summary = []
    for profile in args.profile:
        wall, count, children = run_profile(run, args.python, profile, args.gpus, args.json_dir)
        budget = BUDGET_PER_GPU_S.get(profile)
        per_gpu = wall / max(count, 1)
        summary.append([profile, count, "%.1f" % wall, "%.1f" % per_gpu,
                        ", ".join("%s %.1f" % (name, seconds) for name, seconds in children),
                        _verdict(per_gpu, budget)])
    print("\n== wall time (probe + children, seconds) ==")
    print_table(["profile", "GPUs", "wall", "per GPU", "children", "budget"], summary)
    return 0 if all(not row[5].startswith("FAIL") for row in summary) else 1


if __name__ == "__main__":
    sys.exit(main())
