"""molecule_steps.py STEPS_FILE — copy molecule's output from stdin to stdout, timing its steps.

molecule announces each step of a scenario ("INFO     verify ➜ converge: Executing") and its end
("... ➜ converge: Executed: Successful", "Failed", "Dependency completed successfully."). STEPS_FILE
gets one line per step, in the order they ran: "STEP SECONDS RESULT". A step that never reported its end (molecule was killed) is
written as "unfinished".
"""
from __future__ import annotations

import re
import sys
import time

ANSI = re.compile(r"\x1b\[[0-9;]*m")
STEP = re.compile(r"^(?:INFO|WARNING|ERROR)\s+\S+ \u279c (?P<step>[a-z_]+): (?P<what>.+)$")


def parse(line):
    """(step, "start" | result) for a line of molecule's that starts or ends a step, else None. Results:
    successful, failed, skipped ("Executed: Successful", "Dependency completed successfully.", "Failed", ...)."""
    found = STEP.match(ANSI.sub("", line).strip())
    if not found or found.group("step") == "discovery":
        return None
    what = found.group("what").strip().lower()
    if what == "executing":
        return found.group("step"), "start"
    for word, result in (("fail", "failed"), ("skip", "skipped"), ("success", "successful")):
        if word in what:
            return found.group("step"), result
    return None


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    steps, current = [], None
    out = sys.stdout.buffer
    for raw in sys.stdin.buffer:
        out.write(raw)
        out.flush()
        event = parse(raw.decode("utf-8", "replace"))
        if event is None:
            continue
        step, what = event
        now = time.monotonic()
        if current is not None and (what == "start" or step != current[0]):
            steps.append((current[0], now - current[1], "unfinished"))
            current = None
        if what == "start":
            current = (step, now)
        elif current is not None:
            steps.append((step, now - current[1], what))
            current = None
        elif not steps or steps[-1][0] != step:  # an end without a start: a step molecule skipped
            steps.append((step, 0, what))
    if current is not None:
        steps.append((current[0], time.monotonic() - current[1], "unfinished"))
    with open(argv[1], "w", encoding="utf-8") as handle:
        for step, seconds, result in steps:
            handle.write("%s %d %s\n" % (step, round(seconds), result.replace(" ", "_")))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
