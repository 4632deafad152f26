"""Where each task of a one-host run spends its time, from an ANSIBLE_DEBUG=1 log of ansible-playbook.

    ANSIBLE_DEBUG=1 ansible-playbook site.yml -i one-host.ini > run.log 2>&1
    python3 benchmarks/task_phases.py [--top N] run.log

Ansible's debug lines carry a timestamp; for each task (its `TASK [...]` banner) this prints, in seconds:
  queue    from the banner's task being queued to the worker process starting it (fork, variables);
  prepare  from the worker's start to its action's handler (templating the arguments, connection);
  build    building the module's payload (AnsiballZ: the module and the module_utils it imports);
  module   the module's process on the host (interpreter start, imports, its work);
  other    the rest of the worker's run (temporary directory, transfer, clean-up);
  main     from the worker's end to the next task's queueing (the controller's main process: the result,
           the callbacks, the next task's conditions);
and the total, slowest first. The debug log itself slows every phase a little: compare phases, not runs.
"""
import argparse
import re
import sys

STAMP = re.compile(r"^\s*\d+ (\d+\.\d+): (.*)$")
MARKS = (
    ("queue", "entering _queue_task()"),
    ("run", "in run() - task"),
    ("handler", "running the handler"),
    ("build0", "ANSIBALLZ: Creating module"),
    ("build1", "ANSIBALLZ: Done creating module"),
    ("done", "_execute() done"),
)
PHASES = ("queue", "prepare", "build", "module", "other", "main", "total")


def parse(lines):
    """[(task name, {mark: first time})] in the log's order; `exec0`/`exec1` bound the module's process."""
    tasks, marks, waiting_exec = [], None, False
    for line in lines:
        if line.startswith("TASK ["):
            marks = {}
            tasks.append((line[len("TASK ["):].rstrip("* \n").rstrip("]"), marks))
            continue
        found = STAMP.match(line)
        if marks is None or not found:
            continue
        stamp, text = float(found.group(1)), found.group(2)
        for name, needle in MARKS:
            if needle in text:
                marks.setdefault(name, stamp)
        if ("_low_level_execute_command(): executing:" in text and "AnsiballZ_" in text
                and "chmod " not in text and "rm -f" not in text):
            marks.setdefault("exec0", stamp)
            waiting_exec = True
        elif waiting_exec and text.startswith("done communicating"):
            marks.setdefault("exec1", stamp)
            waiting_exec = False
    return tasks


def phases(tasks):
    """One row of PHASES per task; a task without a worker (a skipped include's end) has only `total`."""
    rows = []
    for i, (name, m) in enumerate(tasks):
        nxt = tasks[i + 1][1].get("queue") if i + 1 < len(tasks) else None
        row = dict.fromkeys(PHASES, 0.0)
        if "queue" in m and "run" in m:
            row["queue"] = m["run"] - m["queue"]
        end_worker = m.get("done")
        if "run" in m and "handler" in m:
            row["prepare"] = m["handler"] - m["run"]
        if "build0" in m and "build1" in m:
            row["build"] = m["build1"] - m["build0"]
        if "exec0" in m and "exec1" in m:
            row["module"] = m["exec1"] - m["exec0"]
        if "handler" in m and end_worker:
            row["other"] = max(0.0, end_worker - m["handler"] - row["build"] - row["module"])
        if end_worker and nxt:
            row["main"] = nxt - end_worker
        if "queue" in m and nxt:
            row["total"] = nxt - m["queue"]
        else:
            row["total"] = sum(row[p] for p in PHASES[:-1])
        rows.append((name, row))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=12, help="the N slowest tasks (12)")
    parser.add_argument("log")
    args = parser.parse_args(argv)
    with open(args.log, encoding="utf-8", errors="replace") as handle:
        rows = phases(parse(handle))
    if not rows:
        print("no TASK banners in %s (was it run with ANSIBLE_DEBUG=1?)" % args.log, file=sys.stderr)
        return 1
    sums = {p: sum(r[p] for _n, r in rows) for p in PHASES}
    print("TASK PHASES: %d tasks, " % len(rows) + ", ".join("%s %.2f s" % (p, sums[p]) for p in PHASES))
    print("  " + " ".join("%7s" % p for p in PHASES) + "  task")
    for name, row in sorted(rows, key=lambda r: -r[1]["total"])[:args.top]:
        print("  " + " ".join("%7.3f" % row[p] for p in PHASES) + "  " + name[:90])
    return 0


if __name__ == "__main__":
    sys.exit(main())
