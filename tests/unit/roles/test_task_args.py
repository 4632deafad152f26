# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""No task gives its whole `args:` as a template: ansible-core warns "Using a template for task args is unsafe in
some situations" on every run of such a task (four tasks printed it in every scenario). The roles pass their
settings as the module's defaults for the call (`module_defaults:`), the task's own options winning, as they did.
tests/bin/molecule-scenario.sh also fails a scenario whose log holds the warning."""
from __future__ import annotations

import os

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def _tasks(node):
    """Every task mapping in a task list, blocks, rescues and always sections included."""
    for task in node if isinstance(node, list) else []:
        if not isinstance(task, dict):
            continue
        yield task
        for key in ("block", "rescue", "always", "tasks", "pre_tasks", "post_tasks", "handlers"):
            yield from _tasks(task.get(key))


def _files():
    for top in ("roles", "playbooks", "extensions"):
        for folder, _dirs, names in os.walk(os.path.join(ROOT, top)):
            for name in names:
                if name.endswith((".yml", ".yaml")):
                    yield os.path.join(folder, name)


def test_no_task_gives_its_whole_args_as_a_template():
    found = []
    for path in _files():
        with open(path) as handle:
            try:
                document = yaml.safe_load(handle)
            except yaml.YAMLError:
                continue  # not a task file (molecule's Jinja-templated configs); the lint layer reads those
        for task in _tasks(document):
            if isinstance(task.get("args"), str) and "{{" in task["args"]:
                found.append("%s: %s" % (os.path.relpath(path, ROOT), task.get("name")))
    assert found == []


def test_the_four_stage_calls_take_the_stages_question_as_module_defaults():
    """Each role's own state call asks the question the preflight probe asks: the stage_question lookup's."""
    calls = {("pytorch", "plan.yml"): ("blackwell.pytorch.pytorch_plan", "{{ _pytorch_plan_args }}"),
             ("nvidia_driver", "main.yml"): ("blackwell.pytorch.nvidia_driver_state", "driver"),
             ("cuda_toolkit", "main.yml"): ("blackwell.pytorch.cuda_toolkit_state", "toolkit"),
             ("cuda_toolkit", "converge.yml"): ("blackwell.pytorch.cuda_toolkit_state", "toolkit")}
    for (role, name), (module, stage) in calls.items():
        with open(os.path.join(ROOT, "roles", role, "tasks", name)) as handle:
            tasks = [task for task in _tasks(yaml.safe_load(handle)) if module in task]
        assert tasks, (role, name)
        question = stage if stage.startswith("{{") else "{{ lookup('blackwell.pytorch.stage_question', '%s') }}" % stage
        for task in tasks:
            assert task["module_defaults"] == {module: question}, (role, name, task.get("module_defaults"))
    with open(os.path.join(ROOT, "roles", "pytorch", "vars", "main.yml")) as handle:
        assert yaml.safe_load(handle)["_pytorch_plan_args"] == "{{ lookup('blackwell.pytorch.stage_question', 'pytorch') }}"
