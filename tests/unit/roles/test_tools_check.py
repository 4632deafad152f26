# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools role's check of its venv (roles/tools/files/tools_check.py), run as the role runs it: the venv's
own interpreter, `python -c <the file's text>` and the requirements as arguments, in a real venv whose installed
distributions are real dist-info directories."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
PROGRAM = os.path.join(ROOT, "roles", "tools", "files", "tools_check.py")
NVML = "nvidia-ml-py==13.615.71"
UV = "uv==0.13.9"


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    """A venv without pip (nothing installed in it), and its site-packages."""
    path = tmp_path_factory.mktemp("tools") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = str(path / "bin" / "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    return {"python": python, "site": site}


def install(site, name, version, modules=()):
    """Install a distribution as pip leaves it: NAME-VERSION.dist-info with its METADATA, and its modules."""
    info = os.path.join(site, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    os.makedirs(info)
    with open(os.path.join(info, "METADATA"), "w") as handle:
        handle.write("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
    for module in modules:
        with open(os.path.join(site, module + ".py"), "w") as handle:
            handle.write("VERSION = %r\n" % version)


def remove(site, name, version, modules=()):
    info = os.path.join(site, "%s-%s.dist-info" % (name.replace("-", "_"), version))
    os.remove(os.path.join(info, "METADATA"))
    os.rmdir(info)
    for module in modules:
        os.remove(os.path.join(site, module + ".py"))


def check(python, *requirements):
    """rc and the printed list, the program's text given with -c (the role's lookup strips the end)."""
    with open(PROGRAM) as handle:
        text = handle.read().rstrip()
    done = subprocess.run([python, "-c", text] + list(requirements), capture_output=True, text=True, check=False)
    assert done.stderr == ""
    return done.returncode, done.stdout.strip()


def test_an_empty_venv_lacks_everything(venv):
    assert check(venv["python"], NVML, UV) == (1, "%s %s" % (NVML, UV))


def test_a_complete_venv_lacks_nothing(venv):
    install(venv["site"], "nvidia-ml-py", "13.615.71", ["pynvml"])
    install(venv["site"], "uv", "0.13.9")
    try:
        assert check(venv["python"], NVML, UV) == (0, "")
        assert check(venv["python"], NVML) == (0, "")
        # another pin is not satisfied; a bare name or a lower bound only asks for the distribution
        assert check(venv["python"], NVML, "uv==0.14.0") == (1, "uv==0.14.0")
        assert check(venv["python"], "uv", "uv>=0.1", "nvidia_ml_py") == (0, "")
        assert check(venv["python"], "uv", "ruff>=0.1", "ruff") == (1, "ruff>=0.1 ruff")
    finally:
        remove(venv["site"], "nvidia-ml-py", "13.615.71", ["pynvml"])
        remove(venv["site"], "uv", "0.13.9")


def test_nvml_bindings_that_do_not_import_are_missing(venv):
    install(venv["site"], "nvidia-ml-py", "13.615.71")  # the distribution's record without its module
    try:
        # listed after what is not installed: the import is tried last
        assert check(venv["python"], NVML, "uv") == (1, "uv %s" % NVML)
        assert check(venv["python"], "nvidia-ml-py") == (1, "nvidia-ml-py")
    finally:
        remove(venv["site"], "nvidia-ml-py", "13.615.71")


def test_the_role_runs_this_file_with_the_venvs_interpreter():
    with open(os.path.join(ROOT, "roles", "tools", "vars", "main.yml")) as handle:
        role_vars = yaml.safe_load(handle)
    assert role_vars["_tools_check_program"] == "{{ lookup('ansible.builtin.file', 'tools_check.py') }}"
    with open(os.path.join(ROOT, "roles", "tools", "tasks", "check.yml")) as handle:
        tasks = yaml.safe_load(handle)
    # after the refusal of relative paths (the role alone), the check
    assert "ansible.builtin.assert" in tasks[0] and tasks[0]["name"].startswith("Refuse a relative venv")
    assert tasks[1]["ansible.builtin.command"]["argv"] == "{{ [blackwell_tools_venv ~ '/bin/python', '-c', _tools_check_program] + _tools_stage.packages }}"
    # the role's one task includes the check unless the preflight probe found the venv holding the pins
    with open(os.path.join(ROOT, "roles", "tools", "tasks", "main.yml")) as handle:
        entry = yaml.safe_load(handle)
    assert [task["ansible.builtin.include_tasks"]["file"] for task in entry] == ["check.yml"]
    assert entry[0]["when"] == "_tools_work | bool"
    assert role_vars["_tools_work"] == "{{ _tools_stage.work }}"  # stages/tools.py decide(), through the tools_state filter
    assert role_vars["_tools_stage"] == "{{ _tools_in | blackwell.pytorch.tools_state }}"
