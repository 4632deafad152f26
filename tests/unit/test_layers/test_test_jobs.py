# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The test run's own machinery, run for real in a temporary directory: tests/bin/pool.py (jobs side by side,
logs apart, a failure fails the run and what waits for it), tests/bin/molecule_steps.py (each step of molecule's
output timed) and tests/bin/times.py (the slowest tests and the steps read back)."""
from __future__ import annotations

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
BIN = os.path.join(ROOT, "tests", "bin")
ESC = "\x1b[36m"
END = "\x1b[0m"


def run(script, cwd, args=(), stdin="", env=None):
    return subprocess.run([sys.executable, os.path.join(BIN, script)] + list(args), cwd=str(cwd), input=stdin, check=False,
                          capture_output=True, text=True, env=dict(os.environ, **(env or {})), timeout=60)


def test_pool_runs_jobs_side_by_side_keeps_logs_apart_and_fails_on_a_failed_job(tmp_path):
    (tmp_path / "jobs.tsv").write_text("first\t-\techo one; sleep 0.3\nsecond\tfirst\techo two; exit 3\n"
                                       "third\tsecond\techo never\nbeside\t-\techo other\n")
    done = run("pool.py", tmp_path, ["jobs.tsv"], env={"BLACKWELL_TEST_JOBS": "2"})
    assert done.returncode == 1
    logs = tmp_path / ".build" / "logs"
    assert (logs / "first.log").read_text() == "one\n" and (logs / "beside.log").read_text() == "other\n"
    assert (logs / "second.log").read_text() == "two\n" and not (logs / "third.log").exists()
    out = done.stdout
    assert "[pool] 4 job(s), 2 at a time" in out
    assert out.index("[pool] beside: started (2 running)") < out.index("[pool] first: ok")
    assert "=================== log of second (.build/logs/second.log) ===================\n  second | two\n" in out
    assert "[pool] third: not run, second failed" in out
    wall = [line.split() for line in out.splitlines() if line.startswith("wall ")]
    assert wall == [["wall", wall[0][1], "4", "job(s),", "2", "failed:", "second,", "third"]], out
    assert re.fullmatch(r"cpu: [0-9]+% of [0-9]+ CPU\(s\) busy over the run", out.splitlines()[-1]), out


def test_pool_counts_each_jobs_cpu_seconds_with_the_processes_it_waited_for(tmp_path):
    burn = "%s -c 'import time; end = time.process_time() + 1.2; exec(\"while time.process_time() < end: pass\")'" % sys.executable
    (tmp_path / "jobs.tsv").write_text("burn\t-\t%s\nidle\t-\tsleep 0.5\n" % burn)
    done = run("pool.py", tmp_path, ["jobs.tsv"], env={"BLACKWELL_TEST_JOBS": "2"})
    assert done.returncode == 0, done.stdout + done.stderr
    rows = dict((line.split()[0], line.split()[1:]) for line in done.stdout.splitlines()
                if line.split() and line.split()[0] in ("job", "burn", "idle"))
    assert rows["job"] == ["wall", "cpu", "result"]
    assert rows["burn"][1] in ("1s", "2s") and rows["burn"][2] == "ok", rows  # the child python's CPU, not the shell's
    assert rows["idle"][1] == "0s" and rows["idle"][2] == "ok", rows


def test_pool_refuses_jobs_that_wait_for_each_other_or_for_no_job(tmp_path):
    (tmp_path / "cycle.tsv").write_text("a\tb\ttrue\nb\ta\ttrue\n")
    assert "jobs wait for each other: a, b" in run("pool.py", tmp_path, ["cycle.tsv"]).stderr
    (tmp_path / "unknown.tsv").write_text("a\tnone\ttrue\n")
    assert "job a waits for unknown job(s): none" in run("pool.py", tmp_path, ["unknown.tsv"]).stderr
    (tmp_path / "short.tsv").write_text("a\ttrue\n")
    assert "short.tsv:1: want NAME<TAB>AFTER<TAB>COMMAND" in run("pool.py", tmp_path, ["short.tsv"]).stderr


MOLECULE = ("INFO     Found config file extensions/molecule/config.yml\n"
            "INFO     verify \u279c discovery: scenario test matrix: destroy, create, converge\n"
            "INFO     verify \u279c destroy: " + ESC + "Executing" + END + "\n"
            "  noise of the step\n"
            "INFO     verify \u279c destroy: Executed: Successful\n"
            "INFO     verify \u279c create: Executing\n"
            "INFO     verify \u279c create: Create completed successfully.\n"
            "INFO     verify \u279c create: Executed: Successful\n"
            "INFO     verify \u279c idempotence: Skipped\n"
            "INFO     verify \u279c converge: Executing\n"
            "ERROR    verify \u279c converge: Failed\n")


def test_molecule_steps_passes_the_output_through_and_times_each_step(tmp_path):
    done = run("molecule_steps.py", tmp_path, ["steps"], stdin=MOLECULE)
    assert done.returncode == 0 and done.stdout == MOLECULE
    rows = [line.split() for line in (tmp_path / "steps").read_text().splitlines()]
    assert [(step, result) for step, _seconds, result in rows] == [
        ("destroy", "successful"), ("create", "successful"), ("idempotence", "skipped"), ("converge", "failed")]
    assert all(int(seconds) >= 0 for _step, seconds, _result in rows)


def test_molecule_steps_marks_a_step_that_never_ended(tmp_path):
    run("molecule_steps.py", tmp_path, ["steps"], stdin="INFO     site \u279c converge: Executing\nkilled\n")
    assert (tmp_path / "steps").read_text().split()[::2] == ["converge", "unfinished"]


def test_times_prints_counts_the_slowest_tests_and_each_scenarios_steps(tmp_path):
    build = tmp_path / ".build"
    for where in ("counts", "logs", "molecule"):
        (build / where).mkdir(parents=True)
    (build / "counts" / "unit").write_text("2721 passed in 300.00s\n")
    (build / "logs" / "unit.log").write_text(
        "....\n===== slowest 10 durations =====\n82.17s setup    tests/unit/reliability/test_faults.py::test_a\n"
        "26.08s call     tests/unit/test_layers/test_release_script.py::test_b\n\n(8 durations < 0.005s hidden.)\n")
    (build / "molecule" / "site.steps").write_text("create 10 successful\nconverge 50 successful\n")
    (build / "molecule" / "rollout.steps").write_text("create 20 successful\nconverge 200 failed\n")
    out = run("times.py", tmp_path).stdout.splitlines()
    assert out[0] == "unit:      2721 passed in 300.00s"
    assert out[1:4] == ["ten slowest unit tests:",
                        "    82.17s setup    tests/unit/reliability/test_faults.py::test_a",
                        "    26.08s call     tests/unit/test_layers/test_release_script.py::test_b"]
    assert out[4:] == ["molecule steps (seconds):",
                       "  rollout                220s  create 20, converge 200 failed",
                       "  site                    60s  create 10, converge 50"]
