# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a playbook's time goes: wall seconds per role and the slowest tasks, printed at the end.

For the benchmark scripts in this folder (not shipped in the collection). Enable with
  ANSIBLE_CALLBACK_PLUGINS=benchmarks/callback_plugins ANSIBLE_CALLBACKS_ENABLED=task_times
A role's time runs from the start of its first task to the end of its last one on any host, so
it counts what the role costs a play, skipped tasks included. With TASK_TIMES_JSON set, the same
figures are written to that file as JSON; TASK_TIMES_TOP sets how many tasks are listed (12).
"""
from __future__ import annotations

import json
import os
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: task_times
type: aggregate
short_description: wall time per role and per task
description: Prints the seconds each role took and the slowest tasks when the playbook ends.
requirements: [enable in callbacks_enabled]
"""


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "task_times"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._started = time.monotonic()
        self._current = None
        self._tasks = []  # [name, role, start, end]

    def _close(self):
        if self._current is not None:
            self._current[3] = time.monotonic()
            self._current = None

    def _open(self, task):
        self._close()
        role = task._role.get_name() if task._role else ""
        self._current = [task.get_name(), role, time.monotonic(), None]
        self._tasks.append(self._current)

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._open(task)

    def v2_playbook_on_handler_task_start(self, task):
        self._open(task)

    def v2_playbook_on_stats(self, stats):
        self._close()
        roles = {}
        for _name, role, start, end in self._tasks:
            if role:
                first, last = roles.get(role, (start, end))
                roles[role] = (min(first, start), max(last, end))
        figures = {
            "playbook_s": round(time.monotonic() - self._started, 3),
            "roles_s": {role: round(end - start, 3) for role, (start, end) in roles.items()},
            "tasks": [{"task": name, "role": role, "s": round(end - start, 3)}
                      for name, role, start, end in self._tasks],
        }
        self._display.display("TASK TIMES: playbook %.2f s; %s" % (figures["playbook_s"], ", ".join(
            "%s %.2f s" % item for item in sorted(figures["roles_s"].items()))))
        for task in sorted(figures["tasks"], key=lambda t: -t["s"])[:int(os.environ.get("TASK_TIMES_TOP", "12"))]:
            self._display.display("  %7.2f s  %s" % (task["s"], task["task"]))
        path = os.environ.get("TASK_TIMES_JSON")
        if path:
            with open(path, "w") as stream:
                json.dump(figures, stream, indent=1)
