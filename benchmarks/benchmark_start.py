# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""torch_benchmark's run from its start to its result document, for two checkouts of the collection, rounds
alternated: what the benchmark's own children cost (wall seconds, and the CPU seconds of the processes it started).

  python3 benchmarks/benchmark_start.py --python /opt/torch/.venv/bin/python3 --tree new=. --tree old=../old \\
      [--device cuda] [--profile quick] [--tests gemm_bf16,memcpy] [--rounds 3]

Each --tree is NAME=PATH, PATH a checkout (its plugins/ is loaded as ansible_collections.blackwell.pytorch in a
process of its own). The run is benchmark.run.run() called directly, without Ansible, so only the children differ.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ONE_RUN = r'''
import json, os, resource, sys, time
root, params = sys.argv[1], json.loads(sys.argv[2])
os.makedirs(os.path.join(root, "ansible_collections", "blackwell"), exist_ok=True)
sys.path.insert(0, root)
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import run
start = time.monotonic()
document = run(params, "bench")
wall = time.monotonic() - start
used = resource.getrusage(resource.RUSAGE_CHILDREN)
figures = [fig for device in document["devices"] for fig in device["figures"].values()]
print(json.dumps({"wall_s": round(wall, 2), "children_cpu_s": round(used.ru_utime + used.ru_stime, 2),
                  "ok": sum(1 for fig in figures if fig["status"] == "ok"), "figures": len(figures)}))
'''


def collection_root(path, scratch):
    """A directory holding ansible_collections/blackwell/pytorch -> the checkout at `path`."""
    root = tempfile.mkdtemp(dir=scratch)
    os.makedirs(os.path.join(root, "ansible_collections", "blackwell"))
    os.symlink(os.path.abspath(path), os.path.join(root, "ansible_collections", "blackwell", "pytorch"))
    return root


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the stack's interpreter (torch)")
    parser.add_argument("--tree", action="append", required=True, help="NAME=PATH of a checkout (twice or more)")
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--tests", default="", help="comma-separated tests (default: the profile's)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    params = {"python": args.python, "device": args.device, "profile": args.profile,
              "tests": [name for name in args.tests.split(",") if name] or None}
    scratch = tempfile.mkdtemp()
    trees = [(name, collection_root(path, scratch)) for name, path in (tree.split("=", 1) for tree in args.tree)]
    print("%-8s %5s %8s %14s %8s" % ("tree", "round", "wall s", "children cpu s", "ok/figs"))
    for number in range(1, args.rounds + 1):
        for name, root in trees:
            done = subprocess.run([sys.executable, "-c", ONE_RUN, root, json.dumps(params)], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True, check=False)
            if done.returncode != 0:
                print("%-8s %5d failed: %s" % (name, number, done.stderr.strip().splitlines()[-1:]))
                continue
            row = json.loads(done.stdout.strip().splitlines()[-1])
            print("%-8s %5d %8.2f %14.2f %5d/%d" % (
                name, number, row["wall_s"], row["children_cpu_s"], row["ok"], row["figures"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
