# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The job_follow action against a simulated target: the module it starts there under async_wrapper
becomes a background job that writes its log, then <log>.rc, then its result; the target's modules
(wait_for, tail, async_status) answer as the real ones do, and time passes only where the target waits.
The decisions (plugin_utils/job_follow.py) directly too."""
from __future__ import annotations

import re

import pytest
from ansible.errors import AnsibleActionFail
from ansible.parsing.dataloader import DataLoader
from ansible.playbook.play_context import PlayContext
from ansible.playbook.task import Task

from ansible_collections.blackwell.pytorch.plugins.action.job_follow import ActionModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import job_follow as follow

LOG = "/opt/pytorch/build/torch-2.9.1-src.log"
MODULE = "blackwell.pytorch.pytorch_source_build"
BUILD_ARGS = {"tree": "/opt/pytorch/src/pytorch", "version": "2.9.1+src", "log": LOG, "run_id": "7.25"}
BUILD_LINE = "[%d/2400] Building CUDA object aten/src/ATen/native/cuda/Sort.cu.o (sm_89 sm_120)"
PIP_LOG = ["Collecting torch==2.9.1+cu128",
           "  Downloading https://download.pytorch.org/whl/cu128/torch-2.9.1%2Bcu128-cp312-linux_x86_64.whl (899.7 MB)"]


class Shell(object):
    tmpdir = None

    def get_option(self, name):
        return {"async_dir": "/root/.ansible_async"}[name]

    def join_path(self, *parts):
        return "/".join(parts)


class Connection(object):
    _shell = Shell()


class Target(object):
    """A job that ends `ends_at` seconds in (never when None), its log a line a second from `log_from`,
    its result readable `result_lag` seconds after <log>.rc; `earlier` is a former run's <log>.rc."""

    def __init__(self, ends_at, job_result=None, lines=None, log_from=0, result_lag=0, earlier=None, launch=None,
                 writes_rc=True):
        self.now, self.ends_at, self.result_lag, self.log_from = 0.0, ends_at, result_lag, log_from
        self.writes_rc = writes_rc  # False: the job ends without <log>.rc (its directory could not be made)
        self.job_result = dict(job_result or {"changed": True, "wheel": "torch-2.9.1+src-py3-none-any.whl"})
        self.lines = lines or (lambda second: BUILD_LINE % second)
        self.launch_result = launch or {"started": 1, "finished": 0, "ansible_job_id": "j1.2", "changed": True,
                                        "results_file": "/root/.ansible_async/j1.2"}
        self.earlier, self.calls, self.launches, self.task = earlier, [], [], None

    def clock(self):
        return self.now

    def sleep(self, seconds):
        self.now += seconds

    def ended(self):
        return self.ends_at is not None and self.now >= self.ends_at

    def rc_text(self):
        return "7.25 0\n" if self.ended() and self.writes_rc else self.earlier

    def execute(self, module_name=None, module_args=None, task_vars=None, wrap_async=False):
        """The launch (the module itself, with how it was wrapped and the task's async limit then), or
        one of the target's modules of the follow-up (plain calls: no wrapper, no async limit)."""
        assert task_vars == {"inventory_hostname": "bw-a"}
        if module_name == MODULE:
            self.launches.append((dict(module_args), wrap_async, self.task.async_val, self.now))
            return dict(self.launch_result) if wrap_async else dict(self.job_result, checked=True)
        assert not wrap_async and not self.task.async_val
        self.calls.append((module_name, dict(module_args)))
        return getattr(self, module_name.split(".")[-1])(module_args)

    def wait_for(self, args):
        assert args["path"] == LOG + ".rc" and args["sleep"] == follow.WAIT_SLEEP

        def match():
            return self.rc_text() is not None and re.search(args["search_regex"], self.rc_text(), re.M)

        if not match() and self.writes_rc and self.ends_at is not None and self.now < self.ends_at <= self.now + args["timeout"]:
            self.now = float(self.ends_at)
        if match():
            return {"changed": False, "elapsed": 0, "path": args["path"]}
        self.now += args["timeout"]
        return {"failed": True, "elapsed": args["timeout"],
                "msg": "Timeout when waiting for search string %s in %s" % (args["search_regex"], args["path"])}

    def tail(self, args):
        assert args["argv"][:2] == ["tail", "-n"] and args["argv"][3] == LOG
        if self.now < self.log_from:
            return {"failed": True, "rc": 1, "stdout": "", "stderr": "tail: cannot open '%s'" % LOG}
        lines = [line for line in (self.lines(second) for second in range(self.log_from, int(self.now) + 1)) if line]
        return {"changed": True, "rc": 0, "stdout": "\n".join(lines[-int(args["argv"][2]):])}

    def command(self, args):
        return self.tail(args)

    def async_status(self, args):
        assert args == {"jid": "j1.2", "_async_dir": "/root/.ansible_async"}
        if self.ends_at is None or self.now < self.ends_at + self.result_lag:
            return {"started": 1, "finished": 0, "ansible_job_id": "j1.2"}
        return dict(self.job_result, started=1, finished=1, ansible_job_id="j1.2")


def follow_job(target, drop=None, check_mode=False, **args):
    task = Task()
    task.args = dict({"module": MODULE, "args": dict(BUILD_ARGS), "log": LOG, "run_id": "7.25",
                      "what": "torch build", "interval": 60, "timeout": 28800}, **args)
    task.args.pop(drop, None)
    task.check_mode = check_mode
    action = ActionModule(task, Connection(), PlayContext(), DataLoader(), None)
    action.clock, action.sleep, action._execute_module = target.clock, target.sleep, target.execute
    target.task = task
    result = action.run(task_vars={"inventory_hostname": "bw-a"})
    assert task.async_val == 0  # the task is plain again: the executor does not poll it
    return result


def modules(target):
    return [call[0].split(".")[-1] for call in target.calls]


def test_a_build_reports_every_interval_then_returns_the_jobs_result(capsys):
    target = Target(ends_at=130)
    result = follow_job(target)
    # the module and its arguments, under async_wrapper with the timeout as its limit, before the rounds
    assert target.launches == [(BUILD_ARGS, True, 28800, 0.0)]
    assert result["reports"] == [
        "torch build on bw-a: 0:01:00 elapsed, running; last log line: " + BUILD_LINE % 60,
        "torch build on bw-a: 0:02:00 elapsed, running; last log line: " + BUILD_LINE % 120,
        "torch build on bw-a: 0:02:10 elapsed, finished; last log line: " + BUILD_LINE % 130]
    assert capsys.readouterr().out.splitlines() == result["reports"]  # displayed at normal verbosity
    assert result["wheel"] == "torch-2.9.1+src-py3-none-any.whl" and result["changed"] and result["finished"]
    assert not result.get("failed")
    # a round that does not see <log>.rc asks whether the job ended all the same
    assert modules(target) == ["wait_for", "async_status", "command"] * 2 + ["wait_for", "command", "async_status"]
    assert [args["timeout"] for name, args in target.calls if name.endswith("wait_for")] == [60, 60, 60]
    assert target.calls[2][1]["argv"] == ["tail", "-n", "1", LOG]


def test_pip_reports_its_progress_from_the_end_of_its_log():
    target = Target(ends_at=20, job_result={"changed": False, "stack": "torch-2.9.1-cu128"},
                    lines=lambda second: PIP_LOG[second] if second < len(PIP_LOG) else "")
    result = follow_job(target, what="pip install", interval=15)
    assert target.calls[2][1]["argv"] == ["tail", "-n", str(follow.DEFAULT_TAIL_LINES), LOG]
    assert result["reports"] == [
        role_messages.poll_report("pip install", "bw-a", 15, False, "\n".join(PIP_LOG)),
        role_messages.poll_report("pip install", "bw-a", 20, True, "\n".join(PIP_LOG))]
    assert result["reports"][1].startswith("pip install on bw-a: 0:00:20 elapsed, finished; 1 downloads, 899.7 MB; ")
    assert result["stack"] == "torch-2.9.1-cu128" and result["changed"] is False


def test_a_log_not_there_yet_reads_as_empty():
    result = follow_job(Target(ends_at=70, log_from=65), interval=30)
    assert result["reports"][:2] == ["torch build on bw-a: 0:00:30 elapsed, running; last log line: ",
                                     "torch build on bw-a: 0:01:00 elapsed, running; last log line: "]
    assert result["reports"][2].endswith("finished; last log line: " + BUILD_LINE % 70)


def test_an_earlier_runs_end_does_not_count():
    # 7x25 would match an unescaped 7.25; the job of this run ends later
    result = follow_job(Target(ends_at=100, earlier="7x25 0\n7.2 1\n"))
    assert [line.split(", ")[1].split(";")[0] for line in result["reports"]] == ["running", "finished"]


def test_the_result_is_waited_for_when_the_end_is_seen_first():
    target = Target(ends_at=10, result_lag=3)
    result = follow_job(target)
    assert modules(target)[-3:] == ["async_status"] * 3 and result["finished"] and not result.get("failed")
    assert target.now == 10 + 2 * follow.RESULT_DELAY


def test_a_failed_job_fails_with_its_message():
    target = Target(ends_at=5, job_result={"failed": True, "changed": False,
                                           "msg": "the build of torch 2.9.1+src left no wheel in /w"})
    result = follow_job(target)
    assert result["failed"] and result["msg"] == "the build of torch 2.9.1+src left no wheel in /w"
    assert len(result["reports"]) == 1 and "finished" in result["reports"][0]


def test_a_job_that_fails_before_writing_its_end_ends_the_follower_with_its_error():
    # pytorch_root a file: the install job fails within a second ("[Errno 20] Not a directory") and cannot write
    # <log>.rc under it; the follower used to report "running; starting" until the install timeout (3600 s)
    error = "[Errno 20] Not a directory: '/srv/pytorch-file/venvs'"
    target = Target(ends_at=1, writes_rc=False, job_result={"failed": True, "changed": False, "msg": error},
                    lines=lambda second: "")
    result = follow_job(target, what="pip install", interval=15, timeout=3600)
    assert result["failed"] and result["msg"] == error and not result["changed"]
    assert result["reports"] == [role_messages.poll_report("pip install", "bw-a", 15, True, "")]
    assert target.now == 15  # one round: the interval, not the timeout
    assert modules(target) == ["wait_for", "async_status", "command"]


def test_a_job_that_does_not_end_fails_at_the_timeout():
    target = Target(ends_at=None)
    result = follow_job(target, interval=60, timeout=150)
    assert [args["timeout"] for name, args in target.calls if name.endswith("wait_for")] == [60, 60, 30]
    assert len(result["reports"]) == 3 and all("running" in line for line in result["reports"])
    assert modules(target)[-3:] == ["async_status"] * 3
    assert result["failed"] and result["msg"] == (
        "torch build on bw-a has not ended after 0:02:34; see %s" % LOG)


def test_a_launch_without_a_job_id_fails_with_its_message_and_follows_nothing():
    target = Target(ends_at=1, launch={"failed": True, "msg": "could not write the job's file in /root/.ansible_async"})
    result = follow_job(target)
    assert result["failed"] and not result["changed"] and result["reports"] == []
    assert result["msg"] == "could not write the job's file in /root/.ansible_async"
    assert len(target.launches) == 1 and target.calls == []
    result = follow_job(Target(ends_at=1, launch={"changed": True, "started": 0}))
    assert result["failed"] and result["msg"] == MODULE + " did not start in the background (no job id)"


def test_check_mode_runs_the_module_synchronously_and_follows_nothing(capsys):
    target = Target(ends_at=1, job_result={"changed": True, "created": True, "stack": "torch-2.9.1-cu128"})
    result = follow_job(target, check_mode=True, what="pip install")
    assert target.launches == [(BUILD_ARGS, False, 0, 0.0)] and target.calls == []
    assert result == {"changed": True, "created": True, "stack": "torch-2.9.1-cu128", "checked": True, "reports": []}
    assert capsys.readouterr().out == ""


def test_log_and_run_id_default_to_the_started_modules_own():
    target = Target(ends_at=100, earlier="7.2 1\n")
    result = follow_job(target, drop="log", run_id="")
    assert target.launches == [(BUILD_ARGS, True, 28800, 0.0)]
    assert [call[1]["path"] for call in target.calls if call[0].endswith("wait_for")] == [LOG + ".rc"] * 2
    assert target.calls[0][1]["search_regex"] == r"^7\.25" and result["finished"] and not result.get("failed")
    assert follow.log_and_run_id({"module": MODULE, "args": {"log": "/m"}, "log": "/o", "run_id": ""}) == ("/o", "")


def test_no_log_to_follow_fails_before_anything_starts():
    target = Target(ends_at=1)
    started = dict(BUILD_ARGS)
    del started["log"]
    result = follow_job(target, drop="log", args=started)
    assert result["failed"] and not result["changed"] and result["reports"] == []
    assert result["msg"] == ("job_follow needs the log %s writes: set log, or give the module a log option" % MODULE)
    assert target.launches == [] and target.calls == []


def test_arguments_are_checked():
    for option in ("module", "args"):
        with pytest.raises(AnsibleActionFail, match=option):
            follow_job(Target(ends_at=1), drop=option)
    with pytest.raises(AnsibleActionFail, match="args"):
        follow_job(Target(ends_at=1), args=["tree", "/src"])
    with pytest.raises(AnsibleActionFail, match="interval"):
        follow_job(Target(ends_at=1), interval="often")


def test_round_wait_and_the_result_of_a_job_that_has_not_finished():
    assert [follow.round_wait(elapsed, 60, 150) for elapsed in (0, 60, 120, 149.5, 150, 151)] == [60, 60, 30, 1, 0, 0]
    assert follow.wait_args("/l", "1.5", 9) == {"path": "/l.rc", "search_regex": r"^1\.5", "timeout": 9, "sleep": 2}
    assert follow.ended({"elapsed": 3}) and not follow.ended({"failed": True, "msg": "Timeout"})
    assert follow.report("torch build", "h", 1, False, {"failed": True, "stdout": "x"}) == (
        "torch build on h: 0:00:01 elapsed, running; last log line: ")
    status = {"started": 1, "finished": 0, "failed": True, "msg": "could not find job"}
    assert follow.result(status, ["a"], "pip install", "h", 61, "/l") == dict(
        status, reports=["a"], failed=True, changed=False,
        msg="pip install on h has not ended after 0:01:01; see /l (async_status: could not find job)")


def test_the_driver_install_reports_apt_progress():
    log = ("Need to get 1,290 MB of archives.\nGet:1 http://mirror.lab/cuda nvidia-open 580.95.05-1 [12.5 kB]\n"
           "Get:2 http://mirror.lab/cuda nvidia-kernel-source 580.95.05-1 [410 MB]\n")
    assert follow.report("driver install", "bw-a", 75, False, {"stdout": log}) == (
        "driver install on bw-a: 0:01:15 elapsed, running; 2 packages fetched, 410.0 of 1290.0 MB (31%); "
        "Get:2 http://mirror.lab/cuda nvidia-kernel-source 580.95.05-1 [410 MB]")
    assert follow.tail_args("driver install", "/l") == {"argv": ["tail", "-n", "5000", "/l"]}


def test_the_toolkit_install_reports_apts_or_dnfs_progress():
    apt = ("0 upgraded, 85 newly installed, 0 to remove and 0 not upgraded.\nNeed to get 3123 MB of archives.\n"
           "Get:1 http://mirror.lab/cuda  cuda-toolkit-config-common 12.8.90-1 [16.4 kB]\n"
           "Get:2 http://mirror.lab/cuda  libcublas-12-8 12.8.4.1-1 [574 MB]\n")
    assert follow.report("toolkit install", "bw-a", 30, False, {"stdout": apt}, "apt") == (
        "toolkit install on bw-a: 0:00:30 elapsed, running; 2/85 packages fetched, 574.0 of 3123.0 MB (18%); "
        "Get:2 http://mirror.lab/cuda  libcublas-12-8 12.8.4.1-1 [574 MB]")
    dnf = ("Transaction Summary\n=====\nInstall  24 Packages\n\nTotal download size: 2.4 G\nDownloading Packages:\n"
           "(1/24): libcublas-12-8-12.8.4.1-1.x86_64.rpm     50 MB/s | 548 MB     00:11    \n")
    assert follow.report("toolkit install", "bw-a", 30, True, {"stdout": dnf}) == (
        "toolkit install on bw-a: 0:00:30 elapsed, finished; 1/24 packages fetched, 548.0 of 2457.6 MB (22%); "
        "Downloaded (1/24) libcublas-12-8-12.8.4.1-1.x86_64.rpm, 548.0 MB")
    assert follow.tail_args("toolkit install", "/l") == {"argv": ["tail", "-n", "5000", "/l"]}
