# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's pip: a proxy or index password in blackwell_tools_pip_extra_args never on a command line.

The torch_pip_private filter takes the credential-bearing URLs out of pip's arguments; the role's program
(roles/tools/files/tools_pip.py) gives them to pip through a pipe and its environment. A real pip installs a small
wheel from a wheelhouse with `--proxy http://user:password@...` among the extra arguments, while every process's
command line (/proc/*/cmdline) is read: the password is on none, and pip's environment has it as PIP_PROXY."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ansible_collections.blackwell.pytorch.plugins.filter.torch import FilterModule

import tools_venv_fixture as tv
from proc_watch import ProcWatch

F = FilterModule().filters()
ROOT = tv.ROOT
PROGRAM = os.path.join(ROOT, "roles", "tools", "files", "tools_pip.py")
SECRET = "k1llPass"


def test_a_proxy_password_in_the_extra_args_moves_into_pip_proxy():
    assert F["torch_pip_private"]("--proxy http://kuser:%s@proxy.lab:3128 --retries 3" % SECRET) == {
        "argv": ["--retries", "3"], "requirements": "", "env": {"PIP_PROXY": "http://kuser:%s@proxy.lab:3128" % SECRET}}


def test_index_urls_with_a_password_move_into_the_requirements_lines_with_their_kind():
    got = F["torch_pip_private"](["--extra-index-url", "https://u:%s@mirror.lab/simple" % SECRET,
                                  "--extra-index-url=https://other.lab/simple", "--proxy", "http://proxy.lab:3128"],
                                 "https://i:pw@index.lab/simple")
    assert got == {"argv": ["--proxy", "http://proxy.lab:3128"], "env": {},
                   "requirements": "--index-url https://i:pw@index.lab/simple\n"
                                   "--extra-index-url https://u:%s@mirror.lab/simple\n"
                                   "--extra-index-url https://other.lab/simple\n" % SECRET}


def test_arguments_without_credentials_stay_as_they_are():
    assert F["torch_pip_private"]("--no-index --find-links /srv/wheels --proxy http://proxy.lab:3128") == {
        "argv": ["--no-index", "--find-links", "/srv/wheels", "--proxy", "http://proxy.lab:3128"],
        "requirements": "", "env": {}}


def _watcher():
    """A ProcWatch (tests/unit/proc_watch.py) and what it keeps: the environment of each pip install, the command
    lines holding the secret."""
    found = {"leaked": [], "pip": {}}

    def seen(pid, line):
        # keyed by pid and command line: a child caught between fork and exec still shows its parent's command line
        # and environment, and is read again once it runs pip itself
        if " pip " in line and " install " in line and (pid, line) not in found["pip"]:
            try:
                with open("/proc/%s/environ" % pid, "rb") as handle:
                    found["pip"][(pid, line)] = handle.read().split(b"\0")
            except OSError:  # it ended meanwhile
                pass
        if SECRET in line:
            found["leaked"].append(line)
    return ProcWatch(seen), found


def test_the_roles_pip_gets_the_proxy_password_without_it_on_any_command_line(tmp_path):
    wheel = tv.uv_wheel(tmp_path)
    extra = "--proxy http://kuser:%s@127.0.0.1:9 --no-cache-dir" % SECRET
    request = F["torch_pip_private"](["--no-index", "--find-links", str(tmp_path)] + extra.split())
    with open(PROGRAM) as handle:
        program = handle.read()
    argv = [sys.executable, "-c", program, "install", "--disable-pip-version-check", "--quiet", "--target",
            str(tmp_path / "target")] + request["argv"] + ["uv==0.13.9"]
    watch, found = _watcher()
    with watch:
        done = subprocess.run(argv, check=False, input=json.dumps({"requirements": request["requirements"], "env": request["env"]}),
                              capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert os.path.isfile(str(wheel)) and os.path.isdir(str(tmp_path / "target" / "uv-0.13.9.dist-info"))
    assert found["leaked"] == [], found["leaked"]
    assert found["pip"], "pip was not seen running"
    assert any(("PIP_PROXY=http://kuser:%s@127.0.0.1:9" % SECRET).encode() in environ
               for environ in found["pip"].values())
