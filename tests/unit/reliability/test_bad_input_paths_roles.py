# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The path options of every role refused in its preflight, before any change (docs/reliability.md): a relative path,
a file where a directory is due, a directory where a file is due, each named with the `-e NAME=/abs/path` form
(common/path_inputs.py).

One check-mode play over many inventory hosts (this machine under other names, each with its own variables): the
pytorch role limited to its preflight (its controller and cache-host paths: pytorch_build_fetch_dir,
pytorch_wheelhouse_fetch_dir, pytorch_wheelhouse_pip_python), the verify role (verify_cuda_home, refused by its
fingerprint call before anything is read) and container_toolkit's preflight (container_toolkit_driver_root, read by
its probe on the target). Then site.yml for the tools role's paths (its preflight is the preflight probe, which reads
the tools venv) and verify.yml for a relative fleet_report_dir (refused on the controller before the hosts' work).
"""
from __future__ import annotations

import os
import sys

import pytest

from playbook import PREFLIGHT, ROOT, RTX5090, facts, outcome, run

PLAN = "Check the request, interpreter, files and toolkit; plan the stack from the index pip reads"
FINGERPRINT = "Fingerprint the stack against the stored verification"
CTK_REFUSAL = "Refuse an unsupported system, a host without a driver, bad inputs and runtimes that are not there"
PROBE_REFUSAL = "Refuse what cannot work here"


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("bad_role_paths")
    (tmp_path / "afile").write_text("a file, not a directory\n")
    afile, adir = str(tmp_path / "afile"), str(tmp_path)
    pytorch = {"rely_role": "pytorch", "blackwell_preflight": PREFLIGHT, "pytorch_python": sys.executable,
               "pytorch_version": "2.9.1", "pytorch_channel_base_url": "", "pytorch_installer": "pip",
               "pytorch_profile_path": "", "pytorch_root": str(tmp_path / "pytorch"),
               "verify_results_dir": str(tmp_path / "verify")}
    verify = {"rely_role": "verify", "verify_python": sys.executable, "verify_results_dir": str(tmp_path / "verify")}
    ctk = {"rely_role": "container_toolkit", "blackwell_preflight": PREFLIGHT, "container_toolkit_require_driver": False,
           "container_toolkit_runtimes": [], "container_toolkit_repo_configure": False}  # no key to fetch
    hosts = {
        "pytorch_ok": pytorch,
        "build_fetch_dir_relative": dict(pytorch, pytorch_build_fetch_dir=".pytorch-wheels"),
        "wheelhouse_fetch_dir_relative": dict(pytorch, pytorch_wheelhouse_fetch_dir="wheelhouse"),
        "wheelhouse_pip_python_a_directory": dict(pytorch, pytorch_wheelhouse_pip_python=adir),
        "verify_cuda_home_relative": dict(verify, verify_cuda_home="usr/local/cuda"),
        "verify_cuda_home_a_file": dict(verify, verify_cuda_home=afile),
        "ctk_ok": ctk,
        "driver_root_relative": dict(ctk, container_toolkit_driver_root="proc/driver/nvidia"),
        "driver_root_a_file": dict(ctk, container_toolkit_driver_root=afile),
    }
    hosts = dict((name, dict(values, rely_facts=facts([RTX5090]))) for name, values in hosts.items())
    tasks = [{"name": "Run the preflight of pytorch", "ansible.builtin.include_role": {"name": "blackwell.pytorch.pytorch"},
              "tags": ["pytorch_preflight"], "vars": {"ansible_facts": "{{ rely_facts }}"},
              "when": "rely_role == 'pytorch'"},
             {"name": "Run verify", "ansible.builtin.include_role": {
                 "name": "blackwell.pytorch.verify", "apply": {"tags": ["always"]}}, "tags": ["always"],
              "vars": {"ansible_facts": "{{ rely_facts }}"}, "when": "rely_role == 'verify'"},
             {"name": "Run the preflight of container_toolkit", "ansible.builtin.include_role": {
                 "name": "blackwell.pytorch.container_toolkit", "tasks_from": "preflight", "apply": {"tags": ["always"]}},
              "tags": ["always"], "when": "rely_role == 'container_toolkit'"}]
    _rc, stdout, stderr = run(tmp_path, tasks, hosts, tags=["pytorch_preflight"])
    assert "plays" in stdout, stderr
    return {"stdout": stdout, "afile": afile, "adir": adir}


def _refused(stdout, host, task_part, message):
    result = outcome(stdout, host)
    assert result["failed_task"] and task_part in result["failed_task"], result
    assert message in result["msg"], (message, result["msg"])
    assert result["changed_before"] == [], result
    return result


@pytest.mark.parametrize("host", ["pytorch_ok", "ctk_ok"])
def test_good_paths_pass_the_preflight_without_a_change(play, host):
    result = outcome(play["stdout"], host)
    assert result["failed_task"] is None and result["changed_before"] == [], result


@pytest.mark.parametrize("host,variable,given", [
    ("build_fetch_dir_relative", "pytorch_build_fetch_dir", ".pytorch-wheels"),
    ("wheelhouse_fetch_dir_relative", "pytorch_wheelhouse_fetch_dir", "wheelhouse")])
def test_a_relative_controller_directory_of_pytorch_is_refused_in_its_preflight(play, host, variable, given):
    result = _refused(play["stdout"], host, PLAN, "%s must be an absolute path on the controller, got %r (relative to "
                      "what? it would depend on the directory ansible-playbook is started from): give the full path, "
                      "e.g. -e %s=/srv/blackwell/" % (variable, given, variable))
    assert result["msg"].count("must be an absolute path") == 1, result["msg"]


def test_a_directory_as_the_wheelhouse_pip_python_is_refused_in_the_pytorch_preflight(play):
    _refused(play["stdout"], "wheelhouse_pip_python_a_directory", PLAN,
             "pytorch_wheelhouse_pip_python %s is a directory, not a file: give the interpreter itself, "
             "e.g. -e pytorch_wheelhouse_pip_python=/opt/blackwell/tools/bin/python." % play["adir"])


def test_a_relative_verify_cuda_home_is_refused_before_the_check(play):
    result = _refused(play["stdout"], "verify_cuda_home_relative", FINGERPRINT,
                      "verify_cuda_home must be an absolute path on the target, got 'usr/local/cuda' (relative to what? "
                      "it would depend on the directory the module runs in): give the full path, e.g. "
                      "-e verify_cuda_home=/usr/local/cuda.")
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"])


def test_a_verify_cuda_home_that_is_a_file_is_refused_before_the_check(play):
    result = _refused(play["stdout"], "verify_cuda_home_a_file", FINGERPRINT,
                      "verify_cuda_home %s is a file, not a directory: give a directory (or a path that is not there "
                      "yet), e.g. -e verify_cuda_home=/usr/local/cuda." % play["afile"])
    assert not any("Run torch_cuda_check" in name or "Start torch_benchmark" in name for name in result["tasks"])


def test_a_relative_container_toolkit_driver_root_is_refused_in_its_preflight(play):
    _refused(play["stdout"], "driver_root_relative", CTK_REFUSAL,
             "container_toolkit_driver_root must be an absolute path on the target, got 'proc/driver/nvidia' (relative "
             "to what? it would depend on the directory the module runs in): give the full path, e.g. "
             "-e container_toolkit_driver_root=/proc/driver/nvidia")


def test_a_container_toolkit_driver_root_that_is_a_file_is_refused_in_its_preflight(play):
    _refused(play["stdout"], "driver_root_a_file", CTK_REFUSAL,
             "container_toolkit_driver_root %s is a file, not a directory: give a directory (or a path that is not "
             "there yet), e.g. -e container_toolkit_driver_root=/proc/driver/nvidia" % play["afile"])


def test_the_tools_paths_are_refused_by_the_preflight_probe_before_the_tools_role_runs(tmp_path):
    (tmp_path / "afile").write_text("a file, not a directory\n")
    base = {"blackwell_site_stages": ["verify"], "blackwell_require_gpu": False, "preflight_disk_checks": [],
            "preflight_supported_os": [], "blackwell_tools_venv": str(tmp_path / "tools")}
    hosts = {"tools_venv_relative": dict(base, blackwell_tools_venv="opt/blackwell/tools"),
             "tools_base_python_a_directory": dict(base, blackwell_tools_base_python=str(tmp_path)),
             "tools_wheelhouse_a_file": dict(base, blackwell_tools_wheelhouse=str(tmp_path / "afile"))}
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", "site.yml"),
                              skip_tags=["verify"])
    assert "plays" in stdout, stderr
    for host, message in (
            ("tools_venv_relative", "tools_venv_relative: blackwell_tools_venv must be an absolute path on the target, "
             "got 'opt/blackwell/tools' (relative to what? it would depend on the directory the module runs in): give "
             "the full path, e.g. -e blackwell_tools_venv=/opt/blackwell/tools."),
            ("tools_base_python_a_directory", "tools_base_python_a_directory: blackwell_tools_base_python %s is a "
             "directory, not a file: give the interpreter itself (Python 3.9 or newer), e.g. "
             "-e blackwell_tools_base_python=/usr/bin/python3." % tmp_path),
            ("tools_wheelhouse_a_file", "tools_wheelhouse_a_file: blackwell_tools_wheelhouse %s is a file, not a "
             "directory: give a directory (or a path that is not there yet), e.g. "
             "-e blackwell_tools_wheelhouse=/srv/wheelhouse." % (tmp_path / "afile"))):
        result = _refused(stdout, host, PROBE_REFUSAL, message)
        assert not any(name.startswith("blackwell.pytorch.tools") for name in result["tasks"]), result["tasks"]
    assert not os.path.exists(str(tmp_path / "tools"))


def test_a_relative_fleet_report_dir_is_refused_on_the_controller_before_the_hosts_work(tmp_path):
    hosts = {"ws": {"fleet_report_dir": "reports", "pytorch_python": "/usr/bin/python3",
                    "verify_results_dir": str(tmp_path / "verify")}}
    _rc, stdout, stderr = run(tmp_path, [], hosts, playbook=os.path.join(ROOT, "playbooks", "verify.yml"))
    assert "plays" in stdout, stderr
    result = _refused(stdout, "ws", "fleet report's directory",
                      "fleet_report_dir must be an absolute path on the controller, got 'reports' (relative to what? "
                      "it would depend on the directory ansible-playbook is started from): give the full path, e.g. "
                      "-e fleet_report_dir=/srv/blackwell/reports.")
    assert not any(name.startswith(("blackwell.pytorch.verify", "blackwell.pytorch.preflight", "blackwell.pytorch.tools"))
                   for name in result["tasks"]), result["tasks"]
