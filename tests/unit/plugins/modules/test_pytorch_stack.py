from __future__ import annotations

import hashlib
import os
import subprocess
import sys

from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_stack

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))))


def venv(root, name):
    """A stack whose interpreter is this test's Python (the probe runs in it)."""
    path = root / "venvs" / name / "bin"
    path.mkdir(parents=True)
    os.symlink(sys.executable, str(path / "python"))
    os.symlink(sys.executable, str(path / "python3"))


def links(root):
    return {name: os.readlink(str(root / name)) for name in ("current", "previous") if os.path.islink(str(root / name))}


def test_current_switch_with_diff_and_check_mode(tmp_path, run_module):
    venv(tmp_path, "torch-2.9.1-cu128")
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "current", "stack": "torch-2.9.1-cu128",
                                                "_ansible_check_mode": True})
    assert status == "exit" and result["changed"] and links(tmp_path) == {}
    assert result["diff"]["after"]["current"] == "venvs/torch-2.9.1-cu128"
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "current", "stack": "torch-2.9.1-cu128"})
    assert result["changed"] and links(tmp_path) == {"current": "venvs/torch-2.9.1-cu128"}
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "current", "stack": "torch-2.9.1-cu128"})
    assert status == "exit" and not result["changed"]


def test_rolled_back_in_check_mode_names_the_interpreter_to_check(tmp_path, run_module):
    venv(tmp_path, "torch-2.9.1-cu128")
    venv(tmp_path, "torch-2.9.1-cu130")
    os.symlink("venvs/torch-2.9.1-cu130", str(tmp_path / "current"))
    os.symlink("venvs/torch-2.9.1-cu128", str(tmp_path / "previous"))
    args = {"root": str(tmp_path), "state": "rolled_back"}
    status, result = run_module(pytorch_stack, dict(args, _ansible_check_mode=True))
    assert result["python"] == str(tmp_path / "venvs/torch-2.9.1-cu128/bin/python3")
    assert links(tmp_path)["current"] == "venvs/torch-2.9.1-cu130"
    status, result = run_module(pytorch_stack, args)
    assert status == "exit" and links(tmp_path) == {"current": "venvs/torch-2.9.1-cu128",
                                                    "previous": "venvs/torch-2.9.1-cu130"}


def test_rolled_back_refused(tmp_path, run_module):
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "rolled_back"})
    assert status == "fail" and result["msg"].startswith("nothing to roll back to:")


def test_pruned(tmp_path, run_module):
    for name in ("torch-2.8.0-cu128", "torch-2.9.0-cu128", "torch-2.9.1-cu128"):
        venv(tmp_path, name)
    os.symlink("venvs/torch-2.8.0-cu128", str(tmp_path / "current"))
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "pruned", "keep": 2,
                                                "_ansible_check_mode": True})
    assert result["changed"] and len(result["removed"]) == 1 and len(os.listdir(str(tmp_path / "venvs"))) == 3
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "pruned", "keep": 2})
    assert sorted(os.listdir(str(tmp_path / "venvs"))) == sorted(["torch-2.8.0-cu128"] + [
        name for name in ("torch-2.9.0-cu128", "torch-2.9.1-cu128") if name not in result["removed"]])
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "pruned", "keep": 0})
    assert status == "fail" and "keep must be at least 1" in result["msg"]


def test_adopted_names_the_stack_from_torch(tmp_path, run_module):
    env = tmp_path / "env"
    (env / "bin").mkdir(parents=True)
    os.symlink(sys.executable, str(env / "bin" / "python3"))
    site = tmp_path / "site" / "torch"
    site.mkdir(parents=True)
    (site / "__init__.py").write_text("__version__ = '2.11.0+cu130'\n")
    os.environ["PYTHONPATH"] = str(tmp_path / "site")
    try:
        status, result = run_module(pytorch_stack, {"root": str(tmp_path / "root"), "state": "adopted", "path": str(env)})
    finally:
        del os.environ["PYTHONPATH"]
    assert status == "exit" and result["stack"] == "torch-2.11.0-cu130" and result["changed"]
    assert os.readlink(str(tmp_path / "root/venvs/torch-2.11.0-cu130")) == str(env)


def test_adopted_refuses_a_path_without_python(tmp_path, run_module):
    status, result = run_module(pytorch_stack, {"root": str(tmp_path / "root"), "state": "adopted",
                                                "path": str(tmp_path / "x")})
    assert status == "fail" and result["msg"] == "pytorch_adopt_path %s has no bin/python3." % (tmp_path / "x")


def test_adopting_current_or_a_path_into_the_root_is_refused_naming_what_to_pass(tmp_path, run_module):
    # adopting <root>/current replaced the stack's link with a link to current: a loop, current broken
    env, root = tmp_path / "env", tmp_path / "root"
    (env / "bin").mkdir(parents=True)
    os.symlink(sys.executable, str(env / "bin" / "python3"))
    (tmp_path / "site" / "torch").mkdir(parents=True)
    (tmp_path / "site" / "torch" / "__init__.py").write_text("__version__ = '2.11.0+cu130'\n")
    venv(root, "torch-2.9.1-cu128")
    os.environ["PYTHONPATH"] = str(tmp_path / "site")
    try:
        assert run_module(pytorch_stack, {"root": str(root), "state": "adopted", "path": str(env)})[0] == "exit"
        os.symlink("venvs/torch-2.11.0-cu130", str(root / "current"))
        os.symlink("venvs/torch-2.9.1-cu128", str(root / "previous"))
        os.symlink(str(root / "current"), str(tmp_path / "elsewhere"))
        before = {name: os.readlink(str(root / "venvs" / name)) for name in os.listdir(str(root / "venvs"))
                  if os.path.islink(str(root / "venvs" / name))}
        refused = dict((name, run_module(pytorch_stack, {"root": str(root), "state": "adopted", "path": path}))
                       for name, path in (("current", str(root / "current")), ("previous", str(root / "previous")),
                                          ("elsewhere", str(tmp_path / "elsewhere")),
                                          ("stack", str(root / "venvs" / "torch-2.9.1-cu128"))))
    finally:
        del os.environ["PYTHONPATH"]
    assert {name: status for name, (status, _result) in refused.items()} == dict.fromkeys(refused, "fail")
    loop = "adopting it would link the stack to the role's own links (a symbolic link loop; current broken). "
    assert refused["current"][1]["msg"] == (
        "pytorch_adopt_path %s/current is the role's own link current (it points at %s): %sNothing was changed. "
        "Pass the environment itself, the real venv path: -e pytorch_adopt_path=%s" % (root, env, loop, env))
    already = ("Nothing was changed. It is the stack torch-2.9.1-cu128 of this root already: nothing to adopt (leave "
               "pytorch_adopt_path unset; pytorch_version picks the stack). To adopt another environment pass its "
               "real venv path, outside pytorch_root: -e pytorch_adopt_path=/opt/torch/.venv")
    assert refused["previous"][1]["msg"] == "pytorch_adopt_path %s/previous is the role's own link previous (it points " \
        "at %s/venvs/torch-2.9.1-cu128): %s%s" % (root, root, loop, already)
    assert refused["elsewhere"][1]["msg"] == (
        "pytorch_adopt_path %s/elsewhere is a link into pytorch_root %s (through %s/current): %sNothing was changed. "
        "Pass the environment itself, the real venv path: -e pytorch_adopt_path=%s" % (tmp_path, root, root, loop, env))
    assert refused["stack"][1]["msg"].endswith(already)
    # nothing moved: current still resolves, the adopted link still names the environment
    assert links(root) == {"current": "venvs/torch-2.11.0-cu130", "previous": "venvs/torch-2.9.1-cu128"}
    assert os.path.exists(str(root / "current" / "bin" / "python3"))
    assert {name: os.readlink(str(root / "venvs" / name)) for name in os.listdir(str(root / "venvs"))
            if os.path.islink(str(root / "venvs" / name))} == before == {"torch-2.11.0-cu130": str(env)}


def test_present_in_check_mode_creates_nothing(tmp_path, run_module):
    status, result = run_module(pytorch_stack, {
        "root": str(tmp_path), "state": "present", "stack": "torch-2.9.1-cu128", "python": sys.executable,
        "expected": {"torch": "2.9.1+cu128"}, "pip_args": ["torch==2.9.1+cu128"], "_ansible_check_mode": True})
    assert status == "exit" and result["changed"] and result["created"] and not (tmp_path / "venvs").exists()
    assert result["stacks"] == []


def test_the_end_of_a_run_is_marked_with_its_id(tmp_path):
    log = tmp_path / "venvs" / ".torch-2.9.1-cu128.pip.log"
    pytorch_stack.write_end(str(log), "1795404319.77", True)
    assert (tmp_path / "venvs" / ".torch-2.9.1-cu128.pip.log.rc").read_text() == "1795404319.77 0\n"
    pytorch_stack.write_end(str(log), "1795404400.01", False)
    assert (tmp_path / "venvs" / ".torch-2.9.1-cu128.pip.log.rc").read_text() == "1795404400.01 1\n"


def test_a_failed_present_still_marks_its_end(tmp_path, run_module):
    log = tmp_path / "logs" / "pip.log"
    status, result = run_module(pytorch_stack, {
        "root": str(tmp_path), "state": "present", "stack": "torch-2.9.1-cu128", "python": str(tmp_path / "nopython"),
        "expected": {"torch": "2.9.1+cu128"}, "log": str(log), "run_id": "r1"})
    assert status == "fail" and "could not create the venv" in result["msg"]
    assert (tmp_path / "logs" / "pip.log.rc").read_text() == "r1 1\n"


def _env_with_torch_files(tmp_path, version):
    """An environment whose files say torch `version` is installed; its interpreter is a script that
    records each run (so a test sees whether torch was imported there) and cannot import torch."""
    env = tmp_path / "env"
    site = env / "lib" / "python3.11" / "site-packages"
    (site / ("torch-%s.dist-info" % version.split("+")[0])).mkdir(parents=True)  # as PyPI names it
    (site / "torch").mkdir()
    (site / "torch" / "version.py").write_text("__version__ = '%s'\ncuda = '13.0'\n" % version)
    (env / "bin").mkdir()
    runs = tmp_path / "runs"
    script = env / "bin" / "python3"
    script.write_text("#!/bin/sh\necho run >> %s\nexit 3\n" % runs)
    script.chmod(0o755)
    return env, runs


def test_adopted_again_reads_the_version_from_files_without_importing_torch(tmp_path, run_module):
    env, runs = _env_with_torch_files(tmp_path, "2.11.0+cu130")
    root = tmp_path / "root"
    (root / "venvs").mkdir(parents=True)
    os.symlink(str(env), str(root / "venvs" / "torch-2.11.0-cu130"))
    status, result = run_module(pytorch_stack, {"root": str(root), "state": "adopted", "path": str(env)})
    assert status == "exit" and not result["changed"] and result["stack"] == "torch-2.11.0-cu130"
    assert not runs.exists()
    # what the role reads to skip the switch and the pruning on a converged host
    assert result["stacks"] == ["torch-2.11.0-cu130"] and result["links"]["current"] is None
    os.symlink("venvs/torch-2.11.0-cu130", str(root / "current"))
    status, result = run_module(pytorch_stack, {"root": str(root), "state": "adopted", "path": str(env)})
    assert result["links"] == {"current": "venvs/torch-2.11.0-cu130", "previous": None}


def test_adopted_imports_torch_when_the_link_is_missing_or_names_another_version(tmp_path, run_module):
    env, runs = _env_with_torch_files(tmp_path, "2.11.0+cu130")
    root = tmp_path / "root"
    (root / "venvs").mkdir(parents=True)
    os.symlink(str(env), str(root / "venvs" / "torch-2.10.0-cu130"))  # adopted before an upgrade in place
    status, result = run_module(pytorch_stack, {"root": str(root), "state": "adopted", "path": str(env)})
    assert status == "fail" and "torch does not import there" in result["msg"]
    assert runs.exists()


def test_present_refuses_a_build_of_another_channel_and_removes_the_venv(tmp_path, run_module):
    """The reported case: a stack planned as cu130 that pip filled with a cu128 build. The stand-in wheels
    (tests/fixtures/pypi_index) install for real; the module fails before the marker and removes the venv."""
    out = tmp_path / "index"
    subprocess.run([sys.executable, os.path.join(ROOT, "tests", "fixtures", "pypi_index", "build.py"), str(out)],
                   check=True, stdout=subprocess.DEVNULL)
    build = {"stack": "torch-2.9.1-cu130", "channel": "cu130", "cuda": "13.0", "sms": ["sm_120"], "source": False}
    status, result = run_module(pytorch_stack, {
        "root": str(tmp_path / "root"), "state": "present", "stack": "torch-2.9.1-cu130", "python": sys.executable,
        "expected": {"torch": "2.9.1"}, "build": build,
        "pip_args": ["--no-index", "--find-links", str(out / "files"), "torch==2.9.1+cu128"]})
    assert status == "fail", result
    assert result["msg"] == (
        "torch-2.9.1-cu130 is not consistent (%s removed, current not moved): torch 2.9.1+cu128 is a cu128 build; "
        "the plan (torch-2.9.1-cu130) chose cu130; torch 2.9.1+cu128 reports CUDA 12.8 (torch.version.cuda); the "
        "plan (torch-2.9.1-cu130) chose cu130, CUDA 13.0" % (tmp_path / "root" / "venvs" / "torch-2.9.1-cu130"))
    assert os.listdir(str(tmp_path / "root" / "venvs")) == []


def test_credentials_in_pip_args_are_no_log_values(tmp_path, run_module, no_log_values):
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "pruned", "pip_args": [
        "--index-url", "https://lab:S3cret@mirror.lab/simple", "--proxy", "http://u:pw@proxy.lab:3128"]})
    assert status == "exit" and {"S3cret", "pw"} <= no_log_values and "lab" not in no_log_values


def _pip(tmp_path, saved):
    """A stand-in for the pip interpreter: `-m pip download ... --dest DIR` writes one wheel there and says so."""
    script = tmp_path / "pip-python"
    script.write_text("#!/bin/sh\nwhile [ \"$1\" != --dest ]; do shift; done\n"
                      "printf torch > \"$2/torch-2.9.1+cu128-py3-none-any.whl\"\necho '%s'\n" % saved)
    script.chmod(0o755)
    return str(script)


def test_wheelhouse_downloads_the_plans_wheels_and_writes_their_hashes_file(tmp_path, run_module):
    args = {"root": str(tmp_path / "opt"), "state": "wheelhouse", "stack": "torch-2.9.1-cu128",
            "python": _pip(tmp_path, "Saved ./torch-2.9.1+cu128-py3-none-any.whl"), "python_version": "3.12",
            "pip_args": ["--index-url", "https://u:secret@mirror/simple", "torch==2.9.1+cu128"]}
    status, result = run_module(pytorch_stack, dict(args, _ansible_check_mode=True))
    assert status == "exit" and result["changed"] and result["files"] == [] and not (tmp_path / "opt").exists()
    status, result = run_module(pytorch_stack, args)
    top = tmp_path / "opt" / "wheelhouses" / "torch-2.9.1-cu128"
    assert status == "exit" and result["changed"] and result["wheelhouse"] == str(top)
    assert result["files"] == [str(top / "torch-2.9.1+cu128-py3-none-any.whl"), str(top / "hashes.txt")]
    assert (top / "hashes.txt").read_text() == "torch==2.9.1+cu128 --hash=sha256:%s\n" % hashlib.sha256(b"torch").hexdigest()
    assert (os.stat(str(top)).st_mode & 0o777, os.stat(str(top / "hashes.txt")).st_mode & 0o777) == (0o755, 0o644)
    status, result = run_module(pytorch_stack, dict(args, python=_pip(tmp_path, "File was already downloaded")))
    assert status == "exit" and not result["changed"]


def test_wheelhouse_fails_with_pips_message(tmp_path, run_module):
    script = tmp_path / "pip-python"
    script.write_text("#!/bin/sh\necho 'ERROR: No matching distribution found for torch==9.9' >&2\nexit 1\n")
    script.chmod(0o755)
    status, result = run_module(pytorch_stack, {"root": str(tmp_path), "state": "wheelhouse", "stack": "s",
                                                "python": str(script), "python_version": "3.12"})
    assert status == "fail" and result["msg"] == (
        "pip download failed (rc 1): ERROR: No matching distribution found for torch==9.9")


def test_wheelhouse_without_python_removes_the_other_stacks_wheelhouses(tmp_path, run_module):
    top = tmp_path / "wheelhouses"
    for name in ("torch-2.8.0-cu128", "torch-2.9.1-cu128", ".partial"):
        (top / name).mkdir(parents=True)
    (top / "notes.txt").write_text("kept")
    args = {"root": str(tmp_path), "state": "wheelhouse", "stack": "torch-2.9.1-cu128", "prune_wheelhouses": True}
    status, result = run_module(pytorch_stack, dict(args, _ansible_check_mode=True))
    assert status == "exit" and result["changed"] and result["removed"] == ["torch-2.8.0-cu128"]
    assert (top / "torch-2.8.0-cu128").is_dir()
    status, result = run_module(pytorch_stack, args)
    assert status == "exit" and result["changed"] and result["files"] == []
    assert sorted(os.listdir(str(top))) == [".partial", "notes.txt", "torch-2.9.1-cu128"]
    status, result = run_module(pytorch_stack, args)
    assert status == "exit" and not result["changed"] and result["removed"] == []
    status, result = run_module(pytorch_stack, dict(args, stack="torch-2.10.0-cu130", prune_wheelhouses=False))
    assert status == "exit" and not result["changed"] and result["removed"] == []  # no python: nothing is made
    assert sorted(os.listdir(str(top))) == [".partial", "notes.txt", "torch-2.9.1-cu128"]
    status, result = run_module(pytorch_stack, dict(args, python=sys.executable))
    assert status == "fail" and result["msg"] == "state wheelhouse with python downloads for python_version, which is empty"
