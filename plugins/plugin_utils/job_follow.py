# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The decisions of the job_follow action (plugins/action/job_follow.py), which starts a module in the
background on the target (the source build, the pip install of the pytorch role) and follows it from the
controller.

The launch is the module under async_wrapper (what `async` and `poll: 0` do), its limit the timeout; a
launch without a job id fails the task with its message. Every round waits on the target, at most one
interval, for <log>.rc to start with the run's id (the module writes it last), reads the end of the log
and reports a line (role_messages.poll_report); a round that does not see it asks async_status whether the
job has ended all the same (a job that failed before it could write <log>.rc: its directory a file); the round
that sees the end, or the deadline, ends the loop; then async_status gives the job's result.
Pure functions: the action runs the modules and keeps the time.
"""
from __future__ import annotations

import math
import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import package_install
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages

ARGUMENT_SPEC = {
    "module": {"type": "str", "required": True},
    "args": {"type": "dict", "required": True},
    "log": {"type": "str", "default": ""},
    "run_id": {"type": "str", "default": ""},
    "what": {"type": "str", "required": True},
    "interval": {"type": "int", "default": 15},
    "timeout": {"type": "int", "required": True},
}
# The build reports its last line; pip's progress needs more of its log; a package install's counts need its
# whole log (a line or five a package: the two toolkits' ~200 packages stay far below this).
TAIL_LINES = {role_messages.BUILD: 1}
TAIL_LINES.update(dict.fromkeys(package_install.WHATS, 5000))
DEFAULT_TAIL_LINES = 400
RESULT_TRIES = 3  # async_status after the end was seen: the job's wrapper may still be writing its result
RESULT_DELAY = 2
WAIT_SLEEP = 2  # wait_for's own polling of <log>.rc, seconds


def log_and_run_id(args):
    """(log, run_id) the rounds read: the options, else the started module's own options of those names
    (pytorch_stack and pytorch_source_build take both). Raises ValueError when there is no log."""
    started = args["args"]
    log = args["log"] or str(started.get("log") or "")
    if not log:
        raise ValueError("job_follow needs the log %s writes: set log, or give the module a log option"
                         % args["module"])
    return log, args["run_id"] or str(started.get("run_id") or "")


def launched(launch_result):
    """Whether the launch started a job (async_wrapper answers with its id)."""
    return bool(launch_result.get("ansible_job_id")) and not launch_result.get("failed")


def launch_failed(launch_result, module):
    """The task's result when the module did not start in the background: the launch's, failed, with its
    message (or which module did not start)."""
    out = dict(launch_result)
    out.update(failed=True, changed=False, reports=[],
               msg=launch_result.get("msg") or "%s did not start in the background (no job id)" % module)
    return out


def round_wait(elapsed, interval, timeout):
    """Seconds the next round waits for the end: the interval, less near the deadline (at least 1);
    0 when the deadline has passed (no further round)."""
    left = timeout - elapsed
    if left <= 0:
        return 0
    return max(1, min(int(interval), int(math.ceil(left))))


def wait_args(log, run_id, seconds):
    """wait_for's arguments of one round: <log>.rc starting with the run's id, at most `seconds`."""
    return {"path": log + ".rc", "search_regex": "^" + re.escape(run_id), "timeout": int(seconds),
            "sleep": WAIT_SLEEP}


def tail_args(what, log):
    """command's arguments that read the end of the log."""
    return {"argv": ["tail", "-n", str(TAIL_LINES.get(what, DEFAULT_TAIL_LINES)), log]}


def ended(wait_result):
    """Whether wait_for found the end (a timeout, or no such file yet, is a failed wait_for)."""
    return not wait_result.get("failed") and not wait_result.get("unreachable")


def job_ended(status_result):
    """Whether async_status says the job has ended, failed or not (a job that fails before it writes <log>.rc,
    whose directory cannot be made, ends without it)."""
    return bool(status_result) and bool(status_result.get("finished"))


def report(what, host, seconds, finished, tail_result, manager=""):
    """The round's progress line; a log that is not there yet reads as empty. A package install's news
    (driver, toolkit) is apt's or dnf's (package_install.progress; `manager` the started module's option,
    else the log tells), the others' the pytorch role's (role_messages.poll_report)."""
    log_tail = tail_result.get("stdout") if not tail_result.get("failed") else ""
    if what in package_install.WHATS:
        return "%s on %s: %s elapsed, %s; %s" % (what, host, role_messages.elapsed(seconds),
                                                 "finished" if finished else "running",
                                                 package_install.progress(log_tail or "", manager))
    return role_messages.poll_report(what, host, seconds, finished, log_tail or "")


def result(status, reports, what, host, seconds, log):
    """The task's result: the job's (async_status: its return values, changed, failed and msg) with the
    reports; a job that has not finished fails with how long it was followed and where its log is."""
    out = dict(status)
    out["reports"] = list(reports)
    if not status.get("finished"):
        why = " (async_status: %s)" % status["msg"] if status.get("msg") else ""
        out.update(failed=True, changed=False, msg="%s on %s has not ended after %s; see %s%s" % (
            what, host, role_messages.elapsed(seconds), log, why))
    return out
