# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""job_follow: start a module in the background on a target and follow it from the controller
(documentation in plugins/modules/job_follow.py). A shell: the rounds' decisions are
plugin_utils/job_follow.py's; here the modules run on the target (the job through async_wrapper, then
wait_for, command, async_status) and the lines are displayed."""
from __future__ import annotations

import time

from ansible.plugins.action import ActionBase
from ansible.utils.display import Display

from ansible_collections.blackwell.pytorch.plugins.plugin_utils import job_follow as follow

display = Display()


class ActionModule(ActionBase):
    """The launch (async_wrapper, as `async: timeout` and `poll: 0` do), rounds of wait_for (at most one
    interval; async_status after a round that did not see <log>.rc) and tail, a line each, then async_status.
    In check mode: the module, synchronously."""

    _supports_check_mode = True  # the module does its own check mode; nothing is started or followed
    clock = staticmethod(time.monotonic)
    sleep = staticmethod(time.sleep)

    def run(self, tmp=None, task_vars=None):
        super(ActionModule, self).run(tmp, task_vars)
        del tmp
        task_vars = task_vars or {}
        args = self.validate_argument_spec(argument_spec=follow.ARGUMENT_SPEC)[1]
        try:
            if self._task.check_mode:
                return dict(self._execute_module(module_name=args["module"], module_args=args["args"],
                                                 task_vars=task_vars), reports=[])
            try:
                args["log"], args["run_id"] = follow.log_and_run_id(args)
            except ValueError as exc:
                return {"failed": True, "changed": False, "reports": [], "msg": str(exc)}
            launch = self._launch(args, task_vars)
            if not follow.launched(launch):
                return follow.launch_failed(launch, args["module"])
            return self._follow(launch["ansible_job_id"], args, task_vars)
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)

    def _launch(self, args, task_vars):
        """The module under async_wrapper, its limit the timeout; only this call is async."""
        saved = self._task.async_val
        self._task.async_val = args["timeout"]
        try:
            return self._execute_module(module_name=args["module"], module_args=args["args"],
                                        task_vars=task_vars, wrap_async=True)
        finally:
            self._task.async_val = saved

    def _follow(self, job, args, task_vars):
        what, log, host = args["what"], args["log"], task_vars.get("inventory_hostname", "")
        start, reports, seen, status = self.clock(), [], False, {}
        while not seen:
            wait = follow.round_wait(self.clock() - start, args["interval"], args["timeout"])
            if not wait:
                break
            seen = follow.ended(self._module("wait_for", follow.wait_args(log, args["run_id"], wait), task_vars))
            if not seen:  # a job that failed before it could write <log>.rc (its directory a file) has ended too
                status = self._module("async_status", self._status_args(job), task_vars)
                seen = follow.job_ended(status)
            tail = self._module("command", follow.tail_args(what, log), task_vars)
            reports.append(follow.report(what, host, self.clock() - start, seen, tail,
                                         str(args["args"].get("manager") or "")))
            display.display(reports[-1])
        if not follow.job_ended(status):
            status = self._status(job, task_vars)
        return follow.result(status, reports, what, host, self.clock() - start, log)

    def _module(self, name, module_args, task_vars):
        return self._execute_module(module_name="ansible.legacy." + name, module_args=module_args, task_vars=task_vars)

    def _status(self, job, task_vars):
        """async_status of the job (as its action plugin runs it), tried again while it has not finished."""
        module_args = self._status_args(job)
        for attempt in range(follow.RESULT_TRIES):
            if attempt:
                self.sleep(follow.RESULT_DELAY)
            status = self._module("async_status", module_args, task_vars)
            if status.get("finished"):
                break
        return status

    def _status_args(self, job):
        return {"jid": job, "_async_dir": self._async_dir()}

    def _async_dir(self):
        return self._remote_expand_user(self.get_shell_option("async_dir", default="~/.ansible_async"))
