# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a verify.yml run's time went, from what the run left behind (not shipped in the collection).

  python3 benchmarks/first_run_profile.py TIMES_JSON RESULTS_DIR

TIMES_JSON is the task_times callback's file (TASK_TIMES_JSON), RESULTS_DIR the host's verify_results_dir.
Prints every task over 0.05 s with the second it started at (from the play's first task), then the check's
children with their phases (cuda_check.json) and the benchmark's seconds and its tests' (verify.json).
"""
from __future__ import annotations

import json
import os
import sys


def load(path):
    try:
        with open(path) as stream:
            return json.load(stream)
    except (OSError, ValueError):
        return None


def tasks(times):
    offset = 0.0
    print("playbook %.2f s (from the callback's start)" % times["playbook_s"])
    for task in times["tasks"]:
        if task["s"] >= 0.05:
            print("  at %6.2f s  %6.2f s  %s" % (offset, task["s"], task["task"][:90]))
        offset += task["s"]


def check(document):
    document = document.get("result") or document  # the stored file wraps the module's result
    print("cuda check %s s" % document.get("seconds"))
    for child in document.get("children") or []:
        print("  child %-12s gpu %-4s %-7s %6s s  phases %s" % (
            child.get("name"), child.get("gpu"), child.get("status"), child.get("seconds"),
            json.dumps(child.get("phases"))))


def benchmark(document):
    """verify.json's benchmark document: its seconds, each device child's, and each test's status."""
    bench = document.get("benchmark") if isinstance(document.get("benchmark"), dict) else document
    print("benchmark %s s" % bench.get("seconds"))
    for device in bench.get("devices") or []:
        print("  device %s: %s s, status %s" % (device.get("index"), device.get("seconds"), device.get("status")))
        figures = device.get("figures") or {}
        for name in sorted(figures):
            print("    %-18s %s" % (name, figures[name].get("status")))


def main(argv):
    times, results = argv[1], argv[2]
    for name, show in (("times", tasks), ("cuda_check.json", check), ("verify.json", benchmark)):
        document = load(times if name == "times" else os.path.join(results, name))
        if document is None:
            print("%s: none" % name)
        else:
            show(document)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
