from __future__ import annotations

import os
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import child_program
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, stack_probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_runner import PROBE_MODULES


def make_stack(root, name, mtime, python=True):
    path = root / "venvs" / name
    (path / "bin").mkdir(parents=True)
    if python:
        (path / "bin" / "python3").write_text("")
    os.utime(str(path), (mtime, mtime))
    return path


def link(root, name, target):
    os.symlink(target, str(root / name))


def test_marker_text_is_indented_json_with_sorted_keys_and_a_final_newline():
    record = {"stack": "torch-2.9.1-cu128", "pins": ["torch==2.9.1"], "managed_by": "blackwell.pytorch.pytorch"}
    assert lifecycle.marker_text(record) == (
        '{\n    "managed_by": "blackwell.pytorch.pytorch",\n    "pins": [\n        "torch==2.9.1"\n    ],\n'
        '    "stack": "torch-2.9.1-cu128"\n}\n')
    assert lifecycle.marker_text({}) == "{}\n"


@pytest.mark.parametrize("links, target, plan", [
    ({"current": None, "previous": None}, "venvs/torch-2.9.1-cu128", {"current": "venvs/torch-2.9.1-cu128"}),
    ({"current": "venvs/torch-2.9.1-cu128", "previous": None}, "venvs/torch-2.9.1-cu130",
     {"current": "venvs/torch-2.9.1-cu130", "previous": "venvs/torch-2.9.1-cu128"}),
    ({"current": "venvs/torch-2.9.1-cu130", "previous": "venvs/torch-2.9.1-cu128"}, "venvs/torch-2.9.1-cu130", {}),
])
def test_switch_plan(links, target, plan):
    assert lifecycle.switch_plan(links, target) == plan


def test_switch_moves_current_and_previous_atomically(tmp_path):
    link(tmp_path, "current", "venvs/torch-2.9.1-cu128")
    os.symlink("stale", str(tmp_path / ".current.new"))  # a crash between symlink and rename
    plan = lifecycle.switch_plan(lifecycle.read_links(str(tmp_path)), lifecycle.stack_target("torch-2.9.1-cu130"))
    lifecycle.apply_switch(str(tmp_path), plan)
    assert lifecycle.read_links(str(tmp_path)) == {"current": "venvs/torch-2.9.1-cu130",
                                                   "previous": "venvs/torch-2.9.1-cu128"}
    assert sorted(os.listdir(str(tmp_path))) == ["current", "previous"]


def test_rollback_swaps_current_and_previous(tmp_path):
    make_stack(tmp_path, "torch-2.9.1-cu128", 1)
    link(tmp_path, "current", "venvs/torch-2.9.1-cu130")
    link(tmp_path, "previous", "venvs/torch-2.9.1-cu128")
    plan, error = lifecycle.rollback_plan(str(tmp_path), lifecycle.read_links(str(tmp_path)))
    assert error is None
    assert plan == {"current": "venvs/torch-2.9.1-cu128", "previous": "venvs/torch-2.9.1-cu130"}


def test_rollback_refused_without_previous(tmp_path):
    link(tmp_path, "current", "venvs/torch-2.9.1-cu130")
    plan, error = lifecycle.rollback_plan(str(tmp_path), lifecycle.read_links(str(tmp_path)))
    assert plan is None
    assert error == "nothing to roll back to: %s/previous does not exist (current: venvs/torch-2.9.1-cu130)." % tmp_path


def test_rollback_refused_when_previous_has_no_python(tmp_path):
    make_stack(tmp_path, "torch-2.9.1-cu128", 1, python=False)
    link(tmp_path, "previous", "venvs/torch-2.9.1-cu128")
    plan, error = lifecycle.rollback_plan(str(tmp_path), lifecycle.read_links(str(tmp_path)))
    assert plan is None
    assert error == ("nothing to roll back to: %s/previous points to venvs/torch-2.9.1-cu128, which has no "
                     "bin/python3 (current: none)." % tmp_path)


def test_prune_keeps_current_then_previous_then_newest(tmp_path):
    for age, name in enumerate(["torch-2.8.0-cu128", "torch-2.9.0-cu128", "torch-2.9.1-cu128", "torch-2.9.1-cu130"]):
        make_stack(tmp_path, name, 1000 + age)
    (tmp_path / "venvs" / ".torch-2.9.1-cu130.pip.log").write_text("")
    link(tmp_path, "current", "venvs/torch-2.8.0-cu128")
    link(tmp_path, "previous", "venvs/torch-2.9.0-cu128")
    assert lifecycle.prune_plan(str(tmp_path), 2) == ["torch-2.9.1-cu130", "torch-2.9.1-cu128"]
    assert lifecycle.prune_plan(str(tmp_path), 3) == ["torch-2.9.1-cu128"]
    with pytest.raises(ValueError, match="keep must be at least 1"):
        lifecycle.prune_plan(str(tmp_path), 0)


def test_remove_stack_unlinks_an_adopted_environment_only(tmp_path):
    adopted = tmp_path / "elsewhere"
    (adopted / "bin").mkdir(parents=True)
    (tmp_path / "venvs").mkdir()
    os.symlink(str(adopted), str(tmp_path / "venvs" / "torch-2.11.0-cu130"))
    make_stack(tmp_path, "torch-2.9.1-cu128", 1)
    lifecycle.remove_stack(str(tmp_path), "torch-2.11.0-cu130")
    lifecycle.remove_stack(str(tmp_path), "torch-2.9.1-cu128")
    assert os.listdir(str(tmp_path / "venvs")) == []
    assert adopted.is_dir()


@pytest.mark.parametrize("version, name", [
    ("2.11.0+cu130", "torch-2.11.0-cu130"),
    ("2.13.0+cpu", "torch-2.13.0-cpu"),
    ("2.13.0", "torch-2.13.0-pypi"),
    ("2.10.0a0+git1234abc", "torch-2.10.0a0-git1234abc"),
])
def test_adopt_name(version, name):
    assert lifecycle.adopt_name(version) == name


def test_adopt_name_refuses_what_is_not_a_version():
    with pytest.raises(ValueError, match="not a torch version"):
        lifecycle.adopt_name("unknown")


def test_verify_problems_in_words():
    found = {"pip_check": "torchvision 0.24.1 has requirement torch==2.9.1, but you have torch 2.9.0.",
             "errors": {"torchaudio": "OSError: libtorchaudio.so: undefined symbol"}}
    assert lifecycle.verify_problems(found, ["torch 2.9.0 (want 2.9.1+cu128)"]) == [
        "pip check: torchvision 0.24.1 has requirement torch==2.9.1, but you have torch 2.9.0.",
        "import torchaudio: OSError: libtorchaudio.so: undefined symbol",
        "versions: torch 2.9.0 (want 2.9.1+cu128)"]
    assert lifecycle.verify_problems({"pip_check": "", "errors": {}}, []) == []


def test_pip_progress_counts_kb_and_gb():
    log = ("Collecting a\n  Downloading a-1.whl (512 kB)\nCollecting b\n  Downloading b-1.whl (1.5 GB)\n"
           "Installing collected packages: b, a\n")
    assert lifecycle.pip_progress(log) == "2 downloads, 1536.5 MB; Installing collected packages: b, a"


def test_stack_probe_runs_as_a_child(tmp_path):
    pkg = tmp_path / "fakepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("__version__ = '1.2.3'\n")
    broken = tmp_path / "brokenpkg"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise OSError('libc10.so: cannot open shared object file')\n")
    ran = run_child(sys.executable, child_program(PROBE_MODULES, stack_probe),
                    ["fakepkg,brokenpkg", "no-check"], env={"PYTHONPATH": str(tmp_path)}, timeout=60)
    assert ran["status"] == "ok", ran
    assert ran["result"] == {"pip_check": "", "versions": {"fakepkg": "1.2.3"},
                             "errors": {"brokenpkg": "OSError: libc10.so: cannot open shared object file"}}
