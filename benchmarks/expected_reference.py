# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Measure rows of the expected-figure table (plugins/module_utils/hardware/expected_figures.py) on a GPU machine.

Runs the quick profile RUNS times on every GPU through torch_benchmark's own code (module_utils run(), the
method every verification uses), optionally the sustained test once per GPU (--sustained SECONDS), and prints
per model, test, size and backend: the fraction of peak of each run and card, their median, min and max,
and the row to put in the table (the median, rounded down to two digits). The documents go to $OUT.

    python3 benchmarks/expected_reference.py --python /opt/torch/.venv/bin/python3 --runs 3 [--sustained 25]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import socket
import sys

from collection_path import import_collection


def params(python, tests=None, sizes=None):
    return {"python": python, "device": "cuda", "gpus": None, "profile": "quick", "tests": tests,
            "sizes": sizes or {}, "reps": None, "timeout": None, "gates": {}, "dest": None}


def collect(documents):
    """{(model, test, size, backend): [fraction of peak, ...]} over every figure of every document."""
    found = {}
    for document in documents:
        for device in document["devices"]:
            for fig in device["figures"].values():
                if fig["fraction_of_peak"] is not None:
                    key = (device["name"], fig["test"], fig["size"], fig.get("backend"))
                    found.setdefault(key, []).append(fig["fraction_of_peak"])
    return found


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", maxsplit=1)[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--sustained", type=int, default=0, help="seconds of one sustained run per GPU (0: none)")
    args = parser.parse_args()
    import_collection()
    from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
    documents = [run(params(args.python), socket.gethostname()) for dummy in range(args.runs)]
    if args.sustained:
        documents.append(run(params(args.python, ["sustained"], {"sustained": {"seconds": args.sustained}}),
                             socket.gethostname()))
    first = documents[0]
    print("torch %s, %d run(s), GPUs: %s" % (first["torch"]["version"], args.runs,
                                             ", ".join(device["name"] for device in first["devices"])))
    print("%-28s %-14s %-46s %-16s %6s %6s %6s  %s" % ("model", "test", "size", "backend", "median", "min", "max",
                                                       "row"))
    for (model, test, size, backend), values in sorted(collect(documents).items()):
        row = math.floor(median(values) * 100) / 100.0
        cells = (model, test, size, backend or "-", median(values), min(values), max(values), "%.2f" % row)
        print("%-28s %-14s %-46s %-16s %6.3f %6.3f %6.3f  %s" % cells)
    out = os.environ.get("OUT")
    if out:
        with open(os.path.join(out, "expected_reference.json"), "w") as handle:
            json.dump(documents, handle, indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
