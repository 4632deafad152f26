"""pool.py JOBFILE — run the test jobs in JOBFILE, several at a time, each with its own log.

JOBFILE has one job per line, in the order they should start (the longest first):

    NAME<TAB>AFTER<TAB>COMMAND

AFTER is a comma-separated list of jobs that must have passed before this one starts ("-" for
none); COMMAND runs under bash from the repository root. A job whose prerequisite failed is not
run and counts as failed. Each job writes its output to .build/logs/NAME.log; the console gets a
line when a job starts and ends, the last lines of each passing job's log, and the whole log of a
failing one. At the end a table: each job's seconds, its CPU seconds (the job's processes and those
they waited for; what runs inside a container is not among them) and result, then the wall time and
how busy the machine's CPUs were over the run (from /proc/stat: idle and I/O wait are not busy).

Slots: BLACKWELL_TEST_JOBS, else the lower of the CPU count and one per 4 GiB of available memory
(at least 1). The exit status is 1 when any job failed.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time

LOGS = os.path.join(".build", "logs")
TAIL = 8  # lines of a passing job's log shown on the console
GIB_PER_JOB = 4


def slots():
    if os.environ.get("BLACKWELL_TEST_JOBS"):
        return max(1, int(os.environ["BLACKWELL_TEST_JOBS"]))
    available = 0
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) // (1024 * 1024)
    except OSError:
        available = GIB_PER_JOB
    return max(1, min(os.cpu_count() or 1, available // GIB_PER_JOB))


def read_jobs(path):
    jobs = []
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                raise SystemExit("%s:%d: want NAME<TAB>AFTER<TAB>COMMAND, got %r" % (path, number, line))
            name, after, command = fields
            jobs.append({"name": name, "after": [] if after == "-" else after.split(","), "command": command})
    names = {job["name"] for job in jobs}
    for job in jobs:
        unknown = [dep for dep in job["after"] if dep not in names]
        if unknown:
            raise SystemExit("job %s waits for unknown job(s): %s" % (job["name"], ", ".join(unknown)))
    return jobs


def show(job, passed):
    with open(job["log"], encoding="utf-8", errors="replace") as handle:
        lines = handle.readlines()
    shown = lines[-TAIL:] if passed else lines
    if not passed:
        print("=================== log of %s (%s) ===================" % (job["name"], job["log"]))
    for line in shown:
        sys.stdout.write("  %s | %s" % (job["name"], line if line.endswith("\n") else line + "\n"))
    sys.stdout.flush()


def schedule(waiting, running, done, width):
    """Start what can start, settle what cannot run; True when anything moved."""
    moved = False
    for job in list(waiting):
        failed_deps = [dep for dep in job["after"] if dep in done and not done[dep]["passed"]]
        if failed_deps:
            waiting.remove(job)
            job.update(passed=False, seconds=0, state="not run (%s failed)" % ", ".join(failed_deps))
            done[job["name"]] = job
            print("[pool] %s: not run, %s failed" % (job["name"], ", ".join(failed_deps)), flush=True)
            moved = True
        elif len(running) < width and all(dep in done for dep in job["after"]):
            waiting.remove(job)
            job["log"] = os.path.join(LOGS, job["name"] + ".log")
            job["started"] = time.monotonic()
            with open(job["log"], "wb") as log:
                job["proc"] = subprocess.Popen(["bash", "-c", job["command"]], stdout=log,
                                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
            running[job["proc"].pid] = job
            print("[pool] %s: started (%d running)" % (job["name"], len(running)), flush=True)
            moved = True
    return moved


def cpu_times():
    """(busy, total) clock ticks of all CPUs since boot (/proc/stat); (0, 0) where it cannot be read."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0, 0
    total = sum(fields[:8])  # user nice system idle iowait irq softirq steal (guest time is in user)
    return total - fields[3] - fields[4], total


def run(jobs, width):
    os.makedirs(LOGS, exist_ok=True)
    start = time.monotonic()
    waiting, running, done = list(jobs), {}, {}
    while waiting or running:
        while schedule(waiting, running, done, width):
            pass
        if not running:
            if waiting:
                raise SystemExit("jobs wait for each other: %s" % ", ".join(job["name"] for job in waiting))
            continue
        pid, status, usage = os.wait4(-1, 0)
        job = running.pop(pid, None)
        if job is None:
            continue
        code = os.waitstatus_to_exitcode(status)
        job.update(passed=code == 0, seconds=int(time.monotonic() - job["started"]),
                   cpu=int(usage.ru_utime + usage.ru_stime),
                   state="ok" if code == 0 else "FAILED (rc %d)" % code)
        done[job["name"]] = job
        print("[pool] %s: %s in %ds" % (job["name"], job["state"], job["seconds"]), flush=True)
        show(job, job["passed"])
    return done, int(time.monotonic() - start)


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__)
    jobs = read_jobs(argv[1])
    width = slots()
    print("[pool] %d job(s), %d at a time" % (len(jobs), width), flush=True)
    busy_before, total_before = cpu_times()
    done, wall = run(jobs, width)
    busy_after, total_after = cpu_times()
    print("=================== jobs ===================")
    print("%-28s %7s %7s  %s" % ("job", "wall", "cpu", "result"))
    for job in jobs:
        result = done[job["name"]]
        print("%-28s %6ss %6ss  %s" % (job["name"], result["seconds"], result.get("cpu", 0), result["state"]))
    failed = [job["name"] for job in jobs if not done[job["name"]]["passed"]]
    names = (": " + ", ".join(failed)) if failed else ""
    print("%-28s %6ss %7s  %d job(s), %d failed%s" % ("wall", wall, "", len(jobs), len(failed), names))
    if total_after > total_before:
        print("cpu: %d%% of %d CPU(s) busy over the run" % (
            round(100.0 * (busy_after - busy_before) / (total_after - total_before)), os.cpu_count() or 1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
