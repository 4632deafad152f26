"""Where one kept module payload (AnsiballZ_*.py) spends its time: imports, commands, the rest.

    python3 benchmarks/payload_profile.py PAYLOAD [--top 12] [--imports 0]

Runs the payload in this interpreter under cProfile (its JSON result is discarded) and prints the
seconds in imports, in child processes (run_command / subprocess), and the functions of the collection
and of the commands it ran with the most cumulative time. benchmarks/module_cost.sh -P calls it for
each payload of a converged run. --imports N: also the N imports with the most cumulative time, from
a second run under `python -X importtime` (the top-level ones only: what the payload itself imports).
"""
import argparse
import contextlib
import cProfile
import io
import os
import pstats
import runpy
import subprocess
import sys


def profile(payload):
    prof = cProfile.Profile()
    sink = io.StringIO()
    argv = sys.argv
    sys.argv = [payload]
    try:
        with contextlib.redirect_stdout(sink):
            prof.enable()
            try:
                runpy.run_path(payload, run_name="__main__")
            except SystemExit:
                pass
            finally:
                prof.disable()
    finally:
        sys.argv = argv
    return pstats.Stats(prof)


def rows(stats):
    """(cumulative s, calls, 'file:line(function)') for every function profiled."""
    out = []
    for (path, line, func), (_cc, calls, _tt, cum, _callers) in stats.stats.items():
        out.append((cum, calls, "%s:%d(%s)" % (os.path.basename(path), line, func), path, func))
    return out


def slow_imports(payload, count):
    """The `count` top-level imports with the most cumulative microseconds, from -X importtime."""
    run = subprocess.run([sys.executable, "-X", "importtime", payload], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, universal_newlines=True, check=False)
    top = []
    for line in run.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and line.startswith("import time:") and parts[1].strip().isdigit():
            if not parts[2].startswith("  "):  # nested imports are indented by two more spaces
                top.append((int(parts[1]), parts[2].strip()))
    return sorted(top, reverse=True)[:count]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("payload")
    parser.add_argument("--top", type=int, default=12)
    parser.add_argument("--imports", type=int, default=0)
    args = parser.parse_args()
    stats = profile(args.payload)
    table = rows(stats)
    total = max(row[0] for row in table)
    imports = max((cum for cum, _n, _name, path, func in table if func == "_find_and_load"), default=0.0)
    children = sum(cum for cum, _n, _name, path, func in table
                   if func in ("_communicate", "communicate") and "subprocess" in path)
    print("  total %.3f s: imports %.3f s, child processes %.3f s" % (total, imports, children))
    skip = ("<frozen", "runpy", "AnsiballZ_", "<string>", "~")
    mine = [r for r in table if not r[3].startswith(skip) and not r[2].startswith(skip)
            and r[4] not in ("<module>", "exec", "_find_and_load", "_find_and_load_unlocked", "_load_unlocked",
                             "exec_module", "_call_with_frames_removed", "main", "run_module", "invoke_module")]
    for cum, calls, name, _path, _func in sorted(mine, reverse=True)[: args.top]:
        print("  %8.3f s %6d  %s" % (cum, calls, name))
    for micro, name in slow_imports(args.payload, args.imports):
        print("  %8.3f s import  %s" % (micro / 1e6, name))


if __name__ == "__main__":
    main()
