from __future__ import annotations

import hashlib
import importlib.util
import os
import re
import subprocess
import sys
import zipfile

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import child as bench_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.child import CHILD_MODULES, child_program, plan_arg
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import MAX_ARG_BYTES, module_source
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.staged_child import StagedChild

PACKAGE = "ansible_collections/blackwell/pytorch/plugins/module_utils"
MODULE_IMPORT = re.compile(r"^from (ansible_collections\.[\w.]+) import", re.M)


def test_the_program_compiles_and_fits_in_one_argument():
    program = child_program()
    compile(program, "<child>", "exec")
    assert len(program.encode("utf-8")) < MAX_ARG_BYTES
    for module in CHILD_MODULES:
        assert "_install(%r" % module.__name__ in program


def test_child_modules_import_only_modules_shipped_before_them():
    shipped = []
    for module in CHILD_MODULES:
        imported = MODULE_IMPORT.findall(module_source(module))
        assert [name for name in imported if name not in shipped] == [], module.__name__
        shipped.append(module.__name__)
    assert shipped[0] == "ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text"


def test_sources_are_read_from_a_zip_as_ansiballz_ships_them(tmp_path):
    archive = tmp_path / "payload.zip"
    utils = os.path.dirname(os.path.dirname(bench_child.__file__))
    with zipfile.ZipFile(str(archive), "w") as payload:
        parts = PACKAGE.split("/")
        for depth in range(1, len(parts) + 1):
            payload.writestr("/".join(parts[:depth]) + "/__init__.py", "")
        for folder, _dirs, names in os.walk(utils):
            inside = os.path.relpath(folder, utils)
            for name in names:
                if name.endswith(".py"):
                    payload.write(os.path.join(folder, name), os.path.normpath("%s/%s/%s" % (PACKAGE, inside, name)))
    script = ("import hashlib, sys; sys.path.insert(0, %r)\n"
              "from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark import child as c\n"
              "assert type(c.__spec__.loader).__name__ == 'zipimporter', c.__spec__.loader\n"
              "print(hashlib.sha256(c.child_program().encode()).hexdigest())\n" % str(archive))
    out = subprocess.run([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         universal_newlines=True, check=True, cwd=str(tmp_path)).stdout.strip()
    assert out == hashlib.sha256(child_program().encode()).hexdigest()


def test_a_torch_that_fails_to_load_is_reported(tmp_path):
    broken = tmp_path / "torch"
    broken.mkdir()
    (broken / "__init__.py").write_text(
        "raise OSError('libcudart.so.13: cannot open shared object file: No such file or directory')\n")
    result = run_child(sys.executable, child_program(), [plan_arg({"mode": "probe", "device": "cuda"})],
                       env={"PYTHONPATH": str(tmp_path)}, timeout=60)
    assert result["status"] == "ok"
    assert result["result"] == {
        "torch_error": "OSError: libcudart.so.13: cannot open shared object file: No such file or directory",
        "torch_missing": False}


@pytest.mark.skipif(importlib.util.find_spec("torch") is not None, reason="the test interpreter has torch")
def test_a_missing_torch_is_reported():
    result = run_child(sys.executable, child_program(), [plan_arg({"mode": "probe", "device": "cpu"})], timeout=60)
    assert result["result"] == {"torch_error": "ModuleNotFoundError: No module named 'torch'", "torch_missing": True}


def test_the_first_device_child_answers_the_probe_then_ends_on_empty_input(tmp_path):
    broken = tmp_path / "torch"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise OSError('libcudart.so.13: cannot open shared object file')\n")
    child = StagedChild(sys.executable, child_program(), [plan_arg({"mode": "probe", "device": "cuda"}), "-"],
                        env={"PYTHONPATH": str(tmp_path)})
    first = child.first(60)
    assert (first["status"], first["result"]) == ("ok", {
        "torch_error": "OSError: libcudart.so.13: cannot open shared object file", "torch_missing": False})
    final = child.finish("", 60)  # no plan: it ends without measuring
    assert (final["returncode"], final["result"]) == (0, None)
