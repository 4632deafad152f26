"""times.py — where a test run's time went, read from what the layers left in .build/:

- .build/counts/LAYER: the layer's one-line counts (unit: pytest's last line; sanity: the targets' Python);
- the ten slowest unit tests (pytest --durations=10 in .build/logs/unit.log);
- each molecule scenario's steps (.build/molecule/SCENARIO.steps, tests/bin/molecule_steps.py).
Prints nothing for what the run did not include.
"""
from __future__ import annotations

import glob
import os
import re
import sys

BUILD = ".build"
DURATION = re.compile(r"^\s*(?P<seconds>[0-9.]+)s (?P<when>call|setup|teardown)\s+(?P<test>\S+)")


def counts():
    for path in sorted(glob.glob(os.path.join(BUILD, "counts", "*"))):
        with open(path, encoding="utf-8") as handle:
            print("%-10s %s" % (os.path.basename(path) + ":", handle.read().strip()))


def slowest_unit_tests(log=os.path.join(BUILD, "logs", "unit.log")):
    """The lines of pytest's durations section, as (seconds, when, test)."""
    if not os.path.exists(log):
        return []
    rows, inside = [], False
    with open(log, encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if "slowest" in line and "durations" in line:
                inside = True
                continue
            if inside:
                found = DURATION.match(line)
                if found:
                    rows.append((float(found.group("seconds")), found.group("when"), found.group("test")))
                elif rows:
                    break
    return rows


def scenario_steps():
    """{scenario: [(step, seconds, result)]} from the .steps files."""
    steps = {}
    for path in sorted(glob.glob(os.path.join(BUILD, "molecule", "*.steps"))):
        rows = []
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                step, seconds, result = line.split()
                rows.append((step, int(seconds), result))
        steps[os.path.basename(path)[:-len(".steps")]] = rows
    return steps


def main():
    counts()
    rows = slowest_unit_tests()
    if rows:
        print("ten slowest unit tests:")
        for seconds, when, test in rows:
            print("  %7.2fs %-8s %s" % (seconds, when, test))
    steps = scenario_steps()
    if steps:
        print("molecule steps (seconds):")
        for scenario, rows in sorted(steps.items(), key=lambda item: -sum(row[1] for row in item[1])):
            shown = ", ".join("%s %d%s" % (step, seconds, "" if result == "successful" else " " + result)
                              for step, seconds, result in rows)
            print("  %-20s %5ds  %s" % (scenario, sum(row[1] for row in rows), shown))
    return 0


if __name__ == "__main__":
    sys.exit(main())
