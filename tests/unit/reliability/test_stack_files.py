# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security (docs/reliability.md): what the pytorch role writes is root-owned with explicit modes, whatever
the umask it runs under (000 here: every mode below is the code's own). The stack: a real venv and pip
through pytorch_stack (present, current, pruned: the stack_runs fixture); the login-shell profile: the
role's configure tasks in a real play."""
from __future__ import annotations

import os
import stat

from conftest import STACK
from playbook import outcome, run

ROLE_MODES = {  # path under the root: mode
    ".": 0o755, "venvs": 0o755, "venvs/%s" % STACK: 0o755, "venvs/%s/bin" % STACK: 0o755,
    "venvs/%s/.blackwell-stack.json" % STACK: 0o644,
    "venvs/.%s.pip.log" % STACK: 0o600,  # pip names the index URLs it reads
    "venvs/.%s.pip.log.rc" % STACK: 0o644,
}


def _entries(root):
    for top, dirs, names in os.walk(root):
        for name in dirs + names:
            yield os.path.join(top, name)


def test_stack_files_are_root_owned_with_explicit_modes(stack_runs):
    root = stack_runs["root"]
    assert [stack_runs[step][0] for step in ("present", "current", "pruned")] == ["exit"] * 3
    modes = dict((path, stat.S_IMODE(os.lstat(os.path.join(root, path)).st_mode)) for path in ROLE_MODES)
    assert modes == ROLE_MODES
    entries = list(_entries(root))
    assert len(entries) > 100  # the venv, pip and the stand-in torch
    for path in [root] + entries:
        info = os.lstat(path)
        assert (info.st_uid, info.st_gid) == (0, 0), path
        if not stat.S_ISLNK(info.st_mode):
            assert not info.st_mode & (stat.S_IWOTH | stat.S_IWGRP), "%s is %o" % (path, stat.S_IMODE(info.st_mode))
    assert os.readlink(os.path.join(root, "current")) == "venvs/%s" % STACK


def test_the_login_shell_profile_is_root_owned_0644(tmp_path):
    profile = tmp_path / "etc" / "profile.d" / "pytorch.sh"
    profile.parent.mkdir(parents=True)
    hosts = {"profile": {"pytorch_root": str(tmp_path / "pytorch"), "pytorch_profile_path": str(profile)}}
    tasks = [{"name": "Write the runtime environment", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.pytorch", "tasks_from": "configure"}}]
    (tmp_path / "play").mkdir()
    old = os.umask(0)
    try:
        rc, stdout, stderr = run(tmp_path / "play", tasks, hosts, check=False)
    finally:
        os.umask(old)
    assert rc == 0, stdout + stderr
    assert outcome(stdout, "profile")["failed_task"] is None
    info = os.stat(str(profile))
    assert (info.st_uid, info.st_gid, stat.S_IMODE(info.st_mode)) == (0, 0, 0o644)
    text = profile.read_text()
    assert "export PYTORCH_STACK=%s/current\n" % (tmp_path / "pytorch") in text and text.endswith("\n")
    assert not (tmp_path / "pytorch").exists()  # pruning an empty root makes nothing
    rc, stdout, stderr = run(tmp_path / "play", tasks, hosts, check=False)  # converged: the file is not touched
    assert rc == 0, stdout + stderr
    again = os.stat(str(profile))
    assert (again.st_ino, again.st_mtime_ns) == (info.st_ino, info.st_mtime_ns) and profile.read_text() == text


def test_the_stack_holds_the_bytecode_of_its_modules_with_either_installer(stack_runs):
    """A process that cannot write the venv (a lab user under a root-owned stack) or runs with
    PYTHONDONTWRITEBYTECODE imports torch from bytecode: pip compiles at install, uv is asked to
    (--compile-bytecode). Without it every such import compiles torch again (docs/roles/pytorch.md)."""
    venv = os.path.join(stack_runs["root"], "venvs", STACK)
    sources = [os.path.join(top, name) for top, _dirs, names in os.walk(venv)
               if top.endswith(os.sep + "torch") for name in names if name.endswith(".py")]
    assert sources, "no torch package in %s" % venv
    for source in sources:
        folder, name = os.path.split(source)
        cached = os.listdir(os.path.join(folder, "__pycache__")) if os.path.isdir(os.path.join(folder, "__pycache__")) else []
        assert [entry for entry in cached if entry.startswith(name[:-len(".py")] + ".") and entry.endswith(".pyc")], \
            "%s (%s) has no bytecode" % (source, stack_runs["installer"])
