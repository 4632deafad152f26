# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Time the fleet report of a 64-host fleet: the document, its Markdown and its HTML page.

The fleet is the unit tests' mixed fleet (tests/unit/fleet_results.py: RTX 5090, RTX PRO 6000,
H100 and L40S workstations, a silently slow GPU, a GPU that dropped since its previous
verification, a host not in the play, a failed host, a host never verified, a busy host and a
pair of H200 with its P2P matrix), compared with its previous report read back from JSON, as the
role does. The previous report is the last of --history daily reports, so each key figure's trend
is full (20 points per series). Runs the module_utils code directly (the checkout is put on
sys.path as ansible_collections.blackwell.pytorch; no Ansible needed), best of --repeat runs, and
prints one line per step and the total (target: under 1 s).

    python3 benchmarks/fleet_report_render.py [--hosts 64] [--repeat 5] [--history 20]
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import sys
import time

from collection_path import import_collection


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hosts", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--history", type=int, default=20, help="reports before this one (the trend's length)")
    args = parser.parse_args()
    import_collection()
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "unit"))
    from fleet_results import mixed_fleet
    from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_html, fleet_report

    documents, earlier, play = mixed_fleet(args.hosts)
    previous = None
    for day in range(args.history - 1):  # one report a day, the earlier results' report last
        written = (datetime.datetime(2026, 9, 1) + datetime.timedelta(days=day)).strftime("%Y-%m-%dT%H:%M:%SZ")
        previous = json.dumps(fleet_report.fleet(mixed_fleet(args.hosts, now=written)[0], previous=previous))
    previous = json.dumps(fleet_report.fleet(earlier, previous=previous), sort_keys=True, indent=4)
    best = {}
    for _round in range(args.repeat):
        times, start = {}, time.perf_counter()
        report = fleet_report.fleet(documents, previous=previous, play_hosts=play)
        times["fleet document (history, outliers)"] = time.perf_counter() - start
        start = time.perf_counter()
        text = json.dumps(report, sort_keys=True, indent=4)
        times["fleet.json"] = time.perf_counter() - start
        start = time.perf_counter()
        markdown = fleet_report.markdown(report)
        times["fleet.md"] = time.perf_counter() - start
        start = time.perf_counter()
        page = fleet_html.html(report)
        times["fleet.html"] = time.perf_counter() - start
        for step, seconds in times.items():
            best[step] = min(best.get(step, seconds), seconds)
    total = sum(best.values())
    points = max([len(series) for host in report["trend"].values() for series in host.values()] or [0])
    print("fleet report of %d hosts (%d flagged, %d stored, %d missing, %d busy; trend of %d points), best of %d runs"
          % (len(report["hosts"]), len(report["flagged"]), len(report["stale"]), len(report["missing"]),
             len(report["busy"]), points, args.repeat))
    for step, seconds in best.items():
        print("  %-36s %8.4f s" % (step, seconds))
    print("  %-36s %8.4f s  (target < 1 s: %s)" % ("total", total, "met" if total < 1 else "MISSED"))
    sizes = (len(text) // 1024, len(markdown) // 1024, len(page) // 1024)
    print("  sizes: fleet.json %d kB, fleet.md %d kB, fleet.html %d kB" % sizes)
    return 0 if total < 1 else 1


if __name__ == "__main__":
    sys.exit(main())
