# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input of each kind refused in the pytorch role's preflight, before any change (docs/reliability.md): a
relative path, a file where a directory is due, a directory where a file is due, a version YAML reads as a number,
a URL option that is no URL.

One check-mode play of the pytorch role limited to its preflight (--tags pytorch_preflight: the plan call and the
decision; the change path is tagged otherwise), each case an inventory host of its own (the inventory is YAML, so
pytorch_version: 2.10 reaches the role as the number 2.1, as it does from a user's inventory). Each bad host must
fail in the plan call with a message naming the variable, no task before it changed anything, and the good host
must pass it. site.yml asks the same question in the preflight probe: a relative root is refused there too, by the
preflight's assert, before any stage runs.
"""
from __future__ import annotations

import os
import sys

import pytest

from playbook import PREFLIGHT, ROOT, RTX5090, facts, outcome, run

PLAN = "Check the request, interpreter, files and toolkit; plan the stack from the index pip reads"


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("bad_paths")
    (tmp_path / "root-file").write_text("a file, not a directory\n")
    base = {"blackwell_preflight": PREFLIGHT, "rely_facts": facts([RTX5090]), "pytorch_python": sys.executable,
            "pytorch_version": "2.9.1", "pytorch_channel_base_url": "", "pytorch_installer": "pip",
            "pytorch_profile_path": "", "pytorch_root": str(tmp_path / "pytorch"),
            "verify_results_dir": str(tmp_path / "verify")}
    hosts = {
        "paths_ok": {},
        "root_relative": {"pytorch_root": "opt/pytorch"},
        "root_is_a_file": {"pytorch_root": str(tmp_path / "root-file")},
        "python_is_a_directory": {"pytorch_python": os.path.dirname(sys.executable)},
        "version_as_a_number": {"pytorch_version": 2.10},
        "index_not_a_url": {"pytorch_index_url": "not a url"},
    }
    tasks = [{"name": "Run the preflight of pytorch", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.pytorch"}, "tags": ["pytorch_preflight"],
        "vars": {"ansible_facts": "{{ rely_facts }}"}}]
    _rc, stdout, stderr = run(tmp_path, tasks, dict((name, dict(base, **values)) for name, values in hosts.items()),
                              tags=["pytorch_preflight"])
    assert "plays" in stdout, stderr
    return {"stdout": stdout, "tmp": tmp_path}


def _refused(play, host, message):
    result = outcome(play["stdout"], host)
    assert result["failed_task"] and PLAN in result["failed_task"], result
    assert result["msg"] == message, result["msg"]
    assert result["changed_before"] == [], result
    return result


def test_the_good_host_passes_the_plan_without_a_change(play):
    result = outcome(play["stdout"], "paths_ok")
    assert result["failed_task"] is None and result["changed_before"] == [], result
    assert any(PLAN in name for name in result["tasks"]), result["tasks"]


def test_a_relative_root_is_refused_in_preflight_naming_the_variable(play):
    _refused(play, "root_relative",
             "pytorch_root must be an absolute path on the target, got 'opt/pytorch' (relative to what? it would "
             "depend on the directory the module runs in): give the full path, e.g. -e pytorch_root=/opt/pytorch.")


def test_a_root_that_is_a_file_is_refused_in_preflight(play):
    _refused(play, "root_is_a_file",
             "pytorch_root %s is a file, not a directory: give a directory (or a path that is not there yet), "
             "e.g. -e pytorch_root=/opt/pytorch." % (play["tmp"] / "root-file"))
    assert (play["tmp"] / "root-file").read_text() == "a file, not a directory\n"


def test_a_directory_as_python_is_refused_in_preflight_saying_it_is_a_directory(play):
    _refused(play, "python_is_a_directory",
             "pytorch_python %s is a directory, not a file: give the interpreter itself (Python 3.10 or newer), "
             "e.g. -e pytorch_python=/usr/bin/python3." % os.path.dirname(sys.executable))


def test_a_version_yaml_reads_as_a_number_is_refused_in_preflight_saying_to_quote_it(play):
    _refused(play, "version_as_a_number",
             "pytorch_version is the number 2.1, not text: YAML reads an unquoted 2.10 as 2.1, so the digits meant "
             "may be lost. Quote it: pytorch_version: \"2.10\" in YAML, -e pytorch_version='\"2.10\"' on the "
             "command line (the digits you meant).")


def test_an_index_url_that_is_no_url_is_refused_in_preflight_naming_pytorch_index_url(play):
    _refused(play, "index_not_a_url",
             "pytorch_index_url must be a URL of scheme http, https, file, got 'not a url' (spaces, quotes and braces "
             "are in no URL): e.g. -e pytorch_index_url=https://pypi.org/simple.")


def test_site_refuses_a_relative_root_in_the_preflight_probe_before_any_stage(tmp_path):
    # pip: the probe asks the plan's question at once (with uv it waits for the tools venv, and the role asks it)
    hosts = {"ws": {"pytorch_root": "opt/pytorch", "pytorch_python": sys.executable, "pytorch_version": "2.9.1",
                    "pytorch_installer": "pip", "pytorch_channel_base_url": "", "blackwell_site_stages": "pytorch",
                    "verify_results_dir": str(tmp_path / "verify"), "fleet_report_dir": str(tmp_path / "reports"),
                    "preflight_require_gpu": False}}
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", "site.yml"))
    assert "plays" in stdout, stderr
    result = outcome(stdout, "ws")
    assert "Refuse what cannot work here" in (result["failed_task"] or ""), result
    assert "pytorch_root must be an absolute path on the target, got 'opt/pytorch'" in result["msg"], result["msg"]
    assert result["changed_before"] == [], result
    assert not any(name.startswith(("blackwell.pytorch.pytorch", "blackwell.pytorch.tools")) for name in result["tasks"])
