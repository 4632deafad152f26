# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Faults of a stack's install (docs/reliability.md), with real venvs and real pip over the stand-in
wheels (tests/fixtures/pypi_index): a play that died between install and activation, then ran again;
a disk too small for the venv (refused before anything is made) and one that fills up during pip
(a real ENOSPC on a tmpfs). The tmpfs rows need root to mount; the test layers run as root.
"""
from __future__ import annotations

import os
import subprocess

import pytest

from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_stack
from conftest import INSTALLERS, STACK, stack_args
from module_run import run_module_once
from recap import files_under


def test_a_play_that_died_before_the_switch_converges_when_run_again(stack_runs):
    status, first = stack_runs["present"]
    assert status == "exit" and first["created"] and first["installed"] and first["changed"], first
    status, again = stack_runs["present_again"]
    assert status == "exit" and not again["changed"], again
    assert not again["created"] and not again["installed"] and again["missing"] == []
    assert again["versions"] == {"torch": "2.9.1+cu128"}
    # no second venv, no second pip call: the venv, torch's files and pip's log are the very same
    assert stack_runs["after"] == stack_runs["before"] and len(stack_runs["before"]) == 3
    status, current = stack_runs["current"]
    assert status == "exit" and current["changed"] and current["links"] == {"current": "venvs/%s" % STACK, "previous": None}
    status, current = stack_runs["current_again"]
    assert status == "exit" and not current["changed"]
    root = stack_runs["root"]
    assert os.readlink(os.path.join(root, "current")) == "venvs/%s" % STACK
    assert os.path.exists(os.path.join(root, "current", "bin", "python"))
    assert sorted(os.listdir(os.path.join(root, "venvs"))) == sorted(
        [STACK, ".%s.pip.log" % STACK, ".%s.pip.log.rc" % STACK])
    with open(os.path.join(root, "venvs", ".%s.pip.log.rc" % STACK)) as handle:
        assert handle.read() == "r2 0\n"


# Mounting a tmpfs needs root. make test runs its layers as root (CI does), so these rows run there;
# a developer's run as another user skips them and says why.
NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root (make test runs as root)")


@pytest.fixture
def small_fs(tmp_path):
    """small_fs(size) -> a fresh tmpfs of that size (mount -t tmpfs), unmounted after the test."""
    mounted = []

    def mount(size):
        path = tmp_path / ("fs-%s" % size)
        path.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=%s,mode=0755" % size, "tmpfs", str(path)], check=True)
        mounted.append(str(path))
        return path

    yield mount
    for path in mounted:
        subprocess.run(["umount", path], check=True)


@NEEDS_ROOT
@pytest.mark.parametrize("installer", INSTALLERS)
def test_a_disk_without_room_for_the_venv_is_refused_before_anything_is_made(small_fs, stand_in_wheels, installer):
    fs = small_fs("8m")
    root = fs / "pytorch"
    args = stack_args(root, stand_in_wheels["files"], installer, run_id="r1")
    del args["min_free_gib"]  # the module's default, as the pytorch role runs it
    status, result = run_module_once(pytorch_stack, args)
    venv = root / "venvs" / STACK
    assert status == "fail"
    assert result["msg"] == (
        "not enough disk for the stack %s: %s has 8.0 MiB free (measured at %s), the install needs 8.0 GiB "
        "(pytorch_stack option min_free_gib): free space there, or set pytorch_root to a directory on a "
        "filesystem with room, and run the play again. Nothing was created." % (STACK, venv, fs))
    # only the end-of-run record the role's poller reads
    assert files_under(str(fs)) == [str(root / "venvs" / (".%s.pip.log.rc" % STACK))]
    assert (root / "venvs" / (".%s.pip.log.rc" % STACK)).read_text() == "r1 1\n"


@NEEDS_ROOT
@pytest.mark.parametrize("installer", INSTALLERS)
def test_a_disk_that_fills_up_during_pip_removes_the_venv_and_says_the_disk_is_full(small_fs, stand_in_wheels, tmp_path,
                                                                                    installer):
    # a torch stand-in too large for what the venv leaves free: 36 MiB that do not compress (a venv of Python
    # 3.12+ has no setuptools: it leaves more room than one of 3.11)
    big = tmp_path / "big"
    big.mkdir()
    build = stand_in_wheels["build"]
    build.make_wheel(str(big), "torch", "2.9.1+cu128", {
        "torch/__init__.py": build.read("standin", "torch", "__init__.py"), "torch/_ballast.bin": os.urandom(36 << 20)}, [])
    fs = small_fs("40m")
    root = fs / "pytorch"
    args = stack_args(root, str(big), installer, run_id="r1", min_free_gib=0.02)
    status, result = run_module_once(pytorch_stack, args)
    venv = root / "venvs" / STACK
    assert status == "fail", result
    assert result["msg"].startswith("%s: the disk is full: no space left on the filesystem that holds %s (" % (STACK, venv))
    assert ("free now, after the cleanup): free space there, or set pytorch_root to a directory on a filesystem "
            "with room, and run the play again. %s: %s install failed (%s removed, current not moved): "
            % (STACK, "uv pip" if installer == "uv" else "pip", venv)) in result["msg"]
    assert "No space left on device" in result["msg"]
    assert not venv.exists() and not (root / "current").exists()
    assert sorted(os.listdir(str(root / "venvs"))) == [".%s.pip.log" % STACK, ".%s.pip.log.rc" % STACK]
