from __future__ import annotations

import compileall
import os
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import bytecode
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import run_child


def stack(tmp_path, compiled):
    """A venv layout <tmp>/venv/{bin/python,lib/python3.12/site-packages/torch/__init__.py}; with `compiled`, its
    bytecode beside it. Returns (python, package)."""
    venv = tmp_path / "venv"
    package = venv / "lib" / "python3.12" / "site-packages" / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("VALUE = 42\n")
    (venv / "bin").mkdir()
    python = venv / "bin" / "python"
    python.symlink_to(sys.executable)
    if compiled:
        assert compileall.compile_dir(str(package), quiet=1)
    return str(python), str(package)


def always(_path):
    return True


def never(_path):
    return False


def test_a_stack_with_bytecode_is_left_alone(tmp_path):
    python = stack(tmp_path, compiled=True)[0]
    assert bytecode.plan(python, {"PYTHONDONTWRITEBYTECODE": "1"}, "/cache", never) == {
        "env": {}, "finding": None, "cache_dir": None}


def test_an_interpreter_outside_a_venv_layout_is_left_alone(tmp_path):
    assert bytecode.plan(str(tmp_path / "python3"), {"PYTHONDONTWRITEBYTECODE": "1"}, "/cache", never)["env"] == {}
    assert bytecode.torch_dir("") is None


def test_a_stack_without_bytecode_that_python_may_write_compiles_beside_itself(tmp_path):
    python = stack(tmp_path, compiled=False)[0]
    assert bytecode.plan(python, {}, "/cache", always) == {"env": {}, "finding": None, "cache_dir": None}


def test_no_bytecode_and_dont_write_set_gives_the_children_the_cache_and_says_so(tmp_path):
    python, package = stack(tmp_path, compiled=False)
    venv = str(tmp_path / "venv")
    assert bytecode.plan(python, {"PYTHONDONTWRITEBYTECODE": "1"}, "/var/cache/b", always) == {
        "env": {"PYTHONPYCACHEPREFIX": "/var/cache/b", "PYTHONDONTWRITEBYTECODE": None}, "cache_dir": "/var/cache/b",
        "finding": "torch in %s has no bytecode and PYTHONDONTWRITEBYTECODE is set: the checks keep theirs in /var/cache/b; "
                   "every other import compiles it; give the stack its bytecode: %s -m compileall -q %s (or install it "
                   "with uv pip install --compile-bytecode, as the pytorch role does)"
                   % (venv, python, os.path.dirname(package))}


def test_a_stack_this_user_cannot_write_is_named(tmp_path):
    python, package = stack(tmp_path, compiled=False)
    finding = bytecode.plan(python, {}, "/c", never)["finding"]
    assert finding.startswith("torch in %s has no bytecode and %s is not writable here: the checks keep theirs in /c;"
                              % (tmp_path / "venv", package))


def test_without_a_cache_directory_only_the_finding_is_given(tmp_path):
    python = stack(tmp_path, compiled=False)[0]
    decided = bytecode.plan(python, {"PYTHONDONTWRITEBYTECODE": "1"}, "", always)
    assert decided["env"] == {} and decided["cache_dir"] is None
    assert "has no bytecode and PYTHONDONTWRITEBYTECODE is set: every import compiles it; give the stack" in decided["finding"]


def test_apply_sets_the_environment_and_makes_the_directory(tmp_path):
    python = stack(tmp_path, compiled=False)[0]
    cache = tmp_path / "cache" / "bytecode"
    environ = {"PYTHONDONTWRITEBYTECODE": "1", "PATH": "/bin"}
    finding = bytecode.apply(environ, python, str(cache))
    assert environ == {"PYTHONPYCACHEPREFIX": str(cache), "PATH": "/bin"}
    assert cache.is_dir() and "the checks keep theirs in %s" % cache in finding


def test_apply_without_a_makeable_directory_leaves_the_environment(tmp_path):
    python = stack(tmp_path, compiled=False)[0]
    blocker = tmp_path / "file"
    blocker.write_text("")
    environ = {"PYTHONDONTWRITEBYTECODE": "1"}
    finding = bytecode.apply(environ, python, str(blocker / "bytecode"))
    assert environ == {"PYTHONDONTWRITEBYTECODE": "1"}
    assert "every import compiles it" in finding
    assert finding.endswith("(no cache: [Errno 20] Not a directory: '%s')" % (blocker / "bytecode"))


def test_a_child_of_a_stack_without_bytecode_compiles_into_the_cache_once(tmp_path):
    """Real children (run_child, as torch_cuda_check and torch_benchmark start them): the first compiles into the cache,
    the second finds it there and does not write it again; the stack itself stays without any."""
    python, package = stack(tmp_path, compiled=False)
    cache = tmp_path / "cache"
    environ = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    environ.pop("PYTHONPYCACHEPREFIX", None)
    bytecode.apply(environ, python, str(cache))
    site = os.path.dirname(package)
    source = ("import importlib.util, json, sys; sys.path.insert(0, %r); import torch; print('@@BLACKWELL_RESULT@@' + "
              "json.dumps({'value': torch.VALUE, 'cached': importlib.util.cache_from_source(torch.__file__)}))" % site)
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(environ)
        first = run_child(python, source)
        written = os.stat(first["result"]["cached"]).st_mtime_ns if first["result"] else None
        second = run_child(python, source)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    assert first["status"] == "ok" and second["status"] == "ok", (first, second)
    cached = first["result"]["cached"]
    assert first["result"]["value"] == 42 and cached.startswith(str(cache) + os.sep) and os.path.isfile(cached)
    assert second["result"] == first["result"] and os.stat(cached).st_mtime_ns == written  # read, not written again
    assert not os.path.isdir(os.path.join(package, "__pycache__"))
