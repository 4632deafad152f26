# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tests/bin/changed.py (make test-changed): the unit test files and molecule scenarios a change selects, over
this checkout's real files, and the change as git reports it, in a throwaway repository."""
from __future__ import annotations

import ast
import importlib.util
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "tests", "bin", "changed.py")
_spec = importlib.util.spec_from_file_location("changed", SCRIPT)
changed = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(changed)

BENCH = "tests/unit/plugins/module_utils/benchmark/"
HERE = "tests/unit/test_layers/test_changed.py"  # names the files of these examples, so selected by them too


class Checkout(changed.Repo):
    def tests_for(self, files):
        return [name for name in super().tests_for(files) if name != HERE]


@pytest.fixture(scope="module")
def repo():
    return Checkout(ROOT, changed.tree_files(ROOT))


def test_a_module_utils_change_selects_its_tests_the_modules_importing_it_and_the_scenarios_running_it(repo):
    change = ["plugins/module_utils/benchmark/gates.py"]
    tests = repo.tests_for(change)
    assert {BENCH + "test_bench_gates.py", BENCH + "test_bench_gpu_gates.py"} <= set(tests)
    # the module imports it through benchmark.run; the verify request plans with its gate names
    assert "tests/unit/plugins/modules/test_torch_benchmark.py" in tests
    assert "tests/unit/plugins/module_utils/verify/test_verify_plan.py" in tests
    assert "tests/unit/plugins/module_utils/driver/test_openpgp.py" not in tests
    assert BENCH + "test_bench_stats.py" not in tests
    scenarios = repo.scenarios_for(change)
    assert {"verify", "rollout"} <= set(scenarios)  # the verify role runs torch_benchmark
    assert not {"driver_toolkit", "container_toolkit", "preflight"} & set(scenarios)
    assert changed.mapped(change[0])


def test_a_scenario_file_selects_that_scenario_only(repo):
    assert repo.scenarios_for(["extensions/molecule/airgap/converge.yml"]) == ["airgap"]
    assert repo.tests_for(["extensions/molecule/airgap/converge.yml"]) == []


def test_a_role_task_file_selects_the_scenarios_running_the_role_and_the_tests_reading_it(repo):
    change = ["roles/nvidia_driver/tasks/verify.yml"]
    scenarios = repo.scenarios_for(change)
    assert {"driver_toolkit", "preflight", "site"} <= set(scenarios)
    assert "pytorch_source" not in scenarios and "pytorch" not in scenarios
    tests = repo.tests_for(change)
    assert "tests/unit/reliability/test_driver_reboot_busy.py" in tests  # opens that file by path
    assert "tests/unit/reliability/test_role_preflight.py" in tests  # runs playbooks/site.yml
    assert "tests/unit/plugins/module_utils/hardware/test_gpu_arch.py" not in tests


def test_fixtures_select_the_scenarios_that_build_or_name_them(repo):
    assert repo.scenarios_for(["tests/fixtures/torch_source/make_tree.py"]) == ["pytorch_source"]
    assert repo.scenarios_for(["tests/fixtures/apt_repo/build.sh"]) == ["airgap", "container_toolkit", "driver_toolkit",
                                                                        "rollout"]
    # torch_source is built from pypi_index too (ensure.sh)
    assert "pytorch_source" in repo.scenarios_for(["tests/fixtures/pypi_index/build.py"])
    assert repo.scenarios_for(["extensions/molecule/config.yml"]) == repo.scenarios
    assert repo.scenarios_for(["tests/fixtures/connection_plugins/podman.py"]) == repo.scenarios
    assert "default" in repo.scenarios and "verify" in repo.scenarios


def test_test_data_shared_modules_and_conftest(repo):
    logs = "tests/unit/plugins/module_utils/planning/uv_logs/cold_cache.log"
    # (and test_core_newest.py, which reads every test file under tests/unit for the ones that run plays)
    assert repo.tests_for([logs]) == ["tests/unit/plugins/module_utils/planning/test_install_command.py",
                                      "tests/unit/test_layers/test_core_newest.py"]
    reliability = repo.tests_for(["tests/unit/reliability/conftest.py"])
    every = ["tests/unit/reliability/" + name for name in os.listdir(os.path.join(ROOT, "tests", "unit", "reliability"))
             if name.startswith("test_") and name.endswith(".py")]
    # every test under the directory, and a test elsewhere that reads the file by path
    assert set(every) <= set(reliability)
    # and the tests that read which test files run plays (the worker groups, the newest ansible-core's list)
    assert set(reliability) - set(every) == {"tests/unit/test_layers/test_worker_groups.py",
                                             "tests/unit/test_layers/test_core_newest.py"}
    shared = repo.tests_for(["tests/unit/cpu_probes_child.py"])
    assert "tests/unit/plugins/module_utils/torch_cuda_check/test_torch_cuda_check_child.py" in shared


def test_a_test_script_is_not_mapped(repo):
    # only the test that runs it names it; no scenario reaches it
    assert repo.tests_for(["tests/bin/pool.py"]) == ["tests/unit/test_layers/test_test_jobs.py"]
    assert repo.scenarios_for(["tests/bin/pool.py"]) == []
    assert not changed.mapped("tests/bin/pool.py") and not changed.mapped("Makefile")
    assert changed.mapped("meta/runtime.yml") and not changed.mapped("meta/ee-requirements.txt")
    text = changed.summary(["tests/bin/pool.py"], [], [], ["tests/bin/pool.py"])
    assert text.splitlines() == ["1 changed file(s)", "unit: 0 test file(s)", "molecule: none",
                                 "not mapped: tests/bin/pool.py; run make test"]


def test_paths_written_out_or_joined():
    assert changed.mentions("fixtures/pypi_index/build.py", "tests/fixtures/pypi_index/build.py")
    assert changed.mentions("tests/fixtures/apt_repo", "tests/fixtures/apt_repo/build.sh")
    assert not changed.mentions("tests/fixtures/pypi_index", "tests/fixtures/pypi_index/serve.py")  # Python: imports
    assert changed.mentions("tests/fixtures/pypi_index", "tests/fixtures/pypi_index/serve.py", joined=True)
    assert not changed.mentions("tasks/main.yml", "roles/tools/tasks/main.yml")
    assert changed.mentions("roles/*/defaults/main.yml", "roles/tools/defaults/main.yml", joined=True)
    assert changed.mentions("uv_logs", "tests/unit/a/uv_logs/x.log", here="tests/unit/a", joined=True)
    assert not changed.mentions("tests/unit", "tests/unit/a/uv_logs/x.log")
    assert not changed.mentions("module_utils/verify", "plugins/module_utils/verify/plan.py")

    def parts(source):
        return changed.path_parts(ast.parse(source, mode="eval").body)
    assert parts('os.path.join(ROOT, "roles", role, "tasks", "main.yml")') == "roles/*/tasks/main.yml"
    assert parts('os.path.join(os.path.dirname(__file__), "..", "fixtures", "x")') == "fixtures/x"
    assert parts('tmp_path / "roles" / name') is None
    assert parts('print("a")') is None


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid",
                    "-c", "commit.gpgsign=false", *args], check=True, capture_output=True)


def _write(root, name, text):
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_the_change_as_git_reports_it(tmp_path):
    pkg = "from ansible_collections.blackwell.pytorch.plugins.module_utils import %s\n"
    files = {".gitignore": "*.log\n", "plugins/module_utils/gone.py": "X = 1\n", "plugins/module_utils/kept.py": "Y = 1\n",
             "tests/unit/test_gone.py": pkg % "gone", "tests/unit/test_kept.py": pkg % "kept",
             "tests/unit/test_other.py": "import os\n", "roles/demo/tasks/main.yml": "---\n- ansible.builtin.debug:\n",
             "extensions/molecule/demo/converge.yml": "- ansible.builtin.include_role:\n    name: blackwell.pytorch.demo\n",
             "extensions/molecule/other/converge.yml": "---\n"}
    for name, text in files.items():
        _write(tmp_path, name, text)
    _git(tmp_path, "init", "-q")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "base")
    _write(tmp_path, "plugins/module_utils/kept.py", "Y = 2\n")
    _git(tmp_path, "commit", "-q", "-am", "committed since the base")
    _write(tmp_path, "roles/demo/tasks/main.yml", "---\n- ansible.builtin.debug: {}\n")  # unstaged
    (tmp_path / "plugins/module_utils/gone.py").unlink()  # deleted
    _write(tmp_path, "notes.txt", "untracked\n")
    _write(tmp_path, "build.log", "ignored\n")
    root = str(tmp_path)
    assert changed.changed_files(root) == ["notes.txt", "plugins/module_utils/gone.py", "roles/demo/tasks/main.yml"]
    since = changed.changed_files(root, "HEAD~1")
    assert since == ["notes.txt", "plugins/module_utils/gone.py", "plugins/module_utils/kept.py", "roles/demo/tasks/main.yml"]
    tree = changed.tree_files(root)
    assert "plugins/module_utils/gone.py" not in tree and "build.log" not in tree and "notes.txt" in tree
    repo = changed.Repo(root, tree, since)
    assert repo.tests_for(since) == ["tests/unit/test_gone.py", "tests/unit/test_kept.py"]
    assert repo.scenarios_for(since) == ["demo"]
    assert [name for name in since if not changed.mapped(name)] == ["notes.txt"]
