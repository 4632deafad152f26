# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import py_env

# torch/version.py as a torch 2.11 wheel from PyPI ships it (the wheel itself is named 2.11.0).
VERSION_PY = """from typing import Optional

__all__ = ['__version__', 'debug', 'cuda', 'git_version', 'hip', 'xpu']
__version__ = '2.11.0+cu130'
debug = False
cuda: Optional[str] = '13.0'
git_version = '70d99e998b4955e0049d13a98d77ae1b14db1f45'
hip: Optional[str] = None
"""


def _env(tmp_path, version_py=VERSION_PY):
    site = tmp_path / "venv/lib/python3.12/site-packages"
    (site / "torch-2.11.0.dist-info").mkdir(parents=True)
    (site / "numpy-2.3.4.dist-info").mkdir()
    if version_py is not None:
        (site / "torch").mkdir()
        (site / "torch" / "version.py").write_text(version_py)
    return str(tmp_path / "venv/bin/python3")


def test_torch_version_is_what_torch_says_not_the_wheel_name(tmp_path):
    python = _env(tmp_path)
    assert py_env.torch_version(python) == "2.11.0+cu130"
    assert py_env.packages(python) == ["numpy==2.3.4", "torch==2.11.0"]
    assert py_env.installed_torch(python, py_env.packages(python)) == {
        "version": "2.11.0", "cuda": "13.0", "git_version": "70d99e998b4955e0049d13a98d77ae1b14db1f45"}


def test_no_torch_files_no_version(tmp_path):
    assert py_env.torch_version(_env(tmp_path, version_py=None)) is None
    assert py_env.torch_version(str(tmp_path / "nowhere/bin/python3")) is None


def test_distribution_names_are_compared_as_pep_503_writes_them(tmp_path):
    assert py_env.normalized("Nvidia_ML.py") == "nvidia-ml-py"
    assert py_env.normalized("zope.interface") == py_env.normalized("Zope__Interface") == "zope-interface"
    assert py_env.normalized("uv") == "uv"
    site = tmp_path / "venv/lib/python3.12/site-packages"
    (site / "Nvidia_ML.Py-13.580.82.dist-info").mkdir(parents=True)
    (site / "typing_extensions-4.15.0-py3.12.egg-info").mkdir()
    assert py_env.packages(str(tmp_path / "venv/bin/python")) == ["nvidia-ml-py==13.580.82", "typing-extensions==4.15.0"]


def test_read_text_gives_the_text_with_its_line_ends(tmp_path):
    (tmp_path / "version").write_bytes(b"NVRM version: 580.95.05\r\nGCC version: 13.3.0\n")
    assert py_env.read_text(str(tmp_path / "version")) == "NVRM version: 580.95.05\r\nGCC version: 13.3.0\n"
    (tmp_path / "empty").write_bytes(b"")
    assert py_env.read_text(str(tmp_path / "empty")) == ""
    (tmp_path / "utf8").write_bytes("caf\u00e9 \u2713\n".encode("utf-8"))
    assert py_env.read_text(str(tmp_path / "utf8")) == "caf\u00e9 \u2713\n"


def test_read_text_replaces_bytes_that_are_not_utf8(tmp_path):
    (tmp_path / "keyring.gpg").write_bytes(b"\x99\x01\rkey\xff\n")
    assert py_env.read_text(str(tmp_path / "keyring.gpg")) == "\ufffd\x01\rkey\ufffd\n"


def test_read_text_is_none_for_what_is_not_a_readable_file(tmp_path):
    (tmp_path / "folder").mkdir()
    os.mkfifo(str(tmp_path / "pipe"))  # opening it would wait for a writer
    os.symlink("missing", str(tmp_path / "dangling"))
    for path in ("", None, str(tmp_path / "missing"), str(tmp_path / "folder"), str(tmp_path / "pipe"),
                 str(tmp_path / "dangling")):
        assert py_env.read_text(path) is None, path


def test_read_text_is_none_when_open_fails(tmp_path, monkeypatch):
    (tmp_path / "secret").write_text("x\n")

    def refused(path, mode="r"):
        raise PermissionError(13, "Permission denied", path)
    monkeypatch.setattr(py_env, "open", refused, raising=False)
    assert py_env.read_text(str(tmp_path / "secret")) is None
