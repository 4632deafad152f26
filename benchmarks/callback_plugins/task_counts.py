# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How many tasks each host ran, by outcome and by role, and how many of them called a module.

For the benchmark scripts in this folder (not shipped in the collection). Enable with
  ANSIBLE_CALLBACK_PLUGINS=benchmarks/callback_plugins ANSIBLE_CALLBACKS_ENABLED=task_counts
A task counts once per host it reached (ok, changed, skipped or failed; an include counts as one task, a
loop as one task). A task is a module call unless its action runs on the controller only (set_fact, assert, debug,
include_*, meta, ...). Also the bytes of each host's results as JSON (every result is carried to the controller's
main process, which handles them one at a time), with the largest tasks; RESULT_KEYS=1: where a large result's
bytes are, key by key. With TASK_COUNTS_JSON set, the figures are written to
that file as JSON: {"hosts": {host: {"tasks", "ok", "changed", "skipped", "failed", "modules",
"roles": {role: tasks}, "result_bytes", "largest": {task: bytes}}}}.
"""
from __future__ import annotations

import json
import os
import statistics

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
name: task_counts
type: aggregate
short_description: tasks per host by outcome and role, and module calls
description: Prints, when the playbook ends, the tasks each host ran (ok/changed/skipped/failed), per role, and the module calls.
requirements: [enable in callbacks_enabled]
"""

# Actions that never start a module on the target.
CONTROLLER_ONLY = frozenset(
    "ansible.builtin." + name for name in (
        "set_fact", "assert", "debug", "fail", "meta", "include_tasks", "import_tasks", "include_role",
        "import_role", "include_vars", "set_stats", "add_host", "group_by", "pause", "import_playbook",
        "validate_argument_spec"))
CONTROLLER_ONLY = CONTROLLER_ONLY | frozenset(name.rsplit(".", 1)[1] for name in CONTROLLER_ONLY)


def is_module_call(action, delegated):
    """Whether a task with this action starts a module on its host (a task delegated to the controller does not)."""
    return action not in CONTROLLER_ONLY and not delegated


def key_sizes(value, prefix="", depth=2):
    """'key bytes' of every key of a result holding more than 1000 bytes, two levels down."""
    out = []
    for key, item in (value.items() if isinstance(value, dict) else []):
        size = len(json.dumps(item, default=str))
        if size > 1000:
            out.append("%s%s %d" % (prefix, key, size))
            if depth > 1:
                out.extend(key_sizes(item, prefix + key + ".", depth - 1))
    return out


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "task_counts"
    CALLBACK_NEEDS_ENABLED = True

    def __init__(self):
        super().__init__()
        self._hosts = {}

    def _count(self, result, outcome):
        task = result._task
        host = self._hosts.setdefault(result._host.get_name(), {
            "tasks": 0, "ok": 0, "changed": 0, "skipped": 0, "failed": 0, "modules": 0, "roles": {},
            "result_bytes": 0, "largest": {}})
        size = len(json.dumps(result._result, default=str))
        host["result_bytes"] += size
        host["largest"][task.get_name()] = host["largest"].get(task.get_name(), 0) + size
        if os.environ.get("RESULT_KEYS") and size > 10000:  # where a large result's bytes are, two levels down
            self._display.display("RESULT KEYS: %s: %s: %s" % (result._host.get_name(), task.get_name()[:60],
                                                               "; ".join(key_sizes(result._result))))
        host["tasks"] += 1
        if outcome == "ok" and result._result.get("changed"):
            outcome = "changed"
        host[outcome] += 1
        delegated = task.delegate_to in ("localhost", "127.0.0.1")
        if outcome != "skipped" and is_module_call(task.action, delegated):
            host["modules"] += 1
        role = task._role.get_name() if task._role else "(play)"
        host["roles"][role] = host["roles"].get(role, 0) + 1

    def v2_runner_on_ok(self, result):
        self._count(result, "ok")

    def v2_runner_on_skipped(self, result):
        self._count(result, "skipped")

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._count(result, "failed")

    def v2_runner_on_unreachable(self, result):
        self._count(result, "failed")

    def v2_playbook_on_stats(self, stats):
        if not self._hosts:
            return
        tasks = [h["tasks"] for h in self._hosts.values()]
        first = sorted(self._hosts)[0]
        figures = self._hosts[first]
        self._display.display(
            "TASK COUNTS: %d host(s); tasks per host median %s (min %d, max %d); %s: %d tasks (ok %d, changed %d, "
            "skipped %d, failed %d), %d module calls; by role: %s" % (
                len(tasks), statistics.median(tasks), min(tasks), max(tasks), first, figures["tasks"], figures["ok"],
                figures["changed"], figures["skipped"], figures["failed"], figures["modules"],
                ", ".join("%s %d" % item for item in sorted(figures["roles"].items()))))
        for name in sorted({first, sorted(self._hosts)[-1]}):  # the first host, and the last (no once-per-play task)
            figures = self._hosts[name]
            largest = sorted(figures["largest"].items(), key=lambda item: -item[1])[:4]
            self._display.display("RESULT BYTES: %s: %d bytes of results; largest: %s" % (
                name, figures["result_bytes"], "; ".join("%d %s" % (size, task[:60]) for task, size in largest)))
        path = os.environ.get("TASK_COUNTS_JSON")
        if path:
            with open(path, "w") as stream:
                json.dump({"hosts": self._hosts}, stream, indent=1, sort_keys=True)
