# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The unit layer's parallel run builds each session fixture of the reliability rows once: every test file that
asks for one of them is in tests/unit/conftest.py's SHARED_FIXTURE_FILES, in that fixture's group, and the
scheduler sends a file's tests, and a group's files, to one worker."""
from __future__ import annotations

import ast
import importlib.util
import os

UNIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELIABILITY = os.path.join(UNIT, "reliability")


def unit_conftest():
    """tests/unit/conftest.py itself (the name `conftest` may be another directory's in a full run)."""
    spec = importlib.util.spec_from_file_location("unit_conftest", os.path.join(UNIT, "conftest.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


conftest = unit_conftest()


def session_fixtures():
    """The session-scoped fixtures reliability/conftest.py defines."""
    with open(os.path.join(RELIABILITY, "conftest.py"), encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    names = set()
    for node in tree.body:
        for decorator in getattr(node, "decorator_list", []):
            if isinstance(decorator, ast.Call) and any(
                    keyword.arg == "scope" and getattr(keyword.value, "value", None) == "session"
                    for keyword in decorator.keywords):
                names.add(node.name)
    return names


def fixtures_asked_for(path, names):
    """Which of `names` the functions of a test file take as arguments."""
    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    return {arg.arg for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)
            for arg in node.args.args if arg.arg in names}


def test_every_user_of_a_session_fixture_is_in_that_fixtures_group():
    shared = session_fixtures()
    assert {"check_run", "real_run", "stack_runs", "stand_in_wheels"} <= shared
    users = {}
    for name in sorted(os.listdir(RELIABILITY)):
        if name.startswith("test_") and name.endswith(".py"):
            asked = fixtures_asked_for(os.path.join(RELIABILITY, name), shared)
            if asked:
                users[name] = asked
    assert set(users) == set(conftest.SHARED_FIXTURE_FILES)
    group_of = {}
    for name, asked in users.items():
        for fixture in asked:
            group_of.setdefault(fixture, set()).add(conftest.SHARED_FIXTURE_FILES[name])
    assert all(len(groups) == 1 for groups in group_of.values()), group_of


def test_a_worker_takes_a_file_or_a_group_whole():
    assert conftest.worker_group("tests/unit/reliability/test_faults.py::test_x") == "apt-plays"
    assert conftest.worker_group("tests/unit/reliability/test_security.py::test_y[a-b]") == "apt-plays"
    assert conftest.worker_group("tests/unit/reliability/test_stack_files.py::test_z[pip]") == "stacks"
    assert conftest.worker_group("tests/unit/plugins/modules/test_gpu_processes.py::test_w") == \
        "tests/unit/plugins/modules/test_gpu_processes.py"
