# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The path options of the tools, verify, container_toolkit and fleet_report roles and the pytorch role's controller
and cache-host paths, refused through common/path_inputs.py (relative; a file where a directory is due; a directory
where a file is due) naming the variable and the `-e NAME=/abs/path` form, over real files."""
from __future__ import annotations

import os
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import output_dirs, tools_venv
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import CONTROLLER, path_problem
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.inputs import driver_root_problem, input_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import host_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import plan as verify_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.results.fingerprint import input_path_problems

NVIDIA_KEY = "EB693B3035CD5710E231E123A4B469963BF863CC"


def test_a_relative_controller_path_is_refused_saying_it_is_the_controllers():
    assert path_problem("pytorch_build_fetch_dir", "wheels", CONTROLLER, "/srv/blackwell/pytorch-wheels") == (
        "pytorch_build_fetch_dir must be an absolute path on the controller, got 'wheels' (relative to what? it would "
        "depend on the directory ansible-playbook is started from): give the full path, e.g. "
        "-e pytorch_build_fetch_dir=/srv/blackwell/pytorch-wheels.")
    # nothing of a controller's path is read on the target: an absolute one passes whatever is there
    assert path_problem("pytorch_build_fetch_dir", sys.executable, CONTROLLER, "/x") is None


def test_tools_paths_relative_or_of_the_wrong_kind_are_refused_naming_each_variable(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    assert tools_venv.input_refusals("ws-1", "opt/tools", str(tmp_path), str(afile)) == [
        "ws-1: blackwell_tools_venv must be an absolute path on the target, got 'opt/tools' (relative to what? it "
        "would depend on the directory the module runs in): give the full path, e.g. "
        "-e blackwell_tools_venv=/opt/blackwell/tools.",
        "ws-1: blackwell_tools_base_python %s is a directory, not a file: give the interpreter itself (Python 3.9 or "
        "newer), e.g. -e blackwell_tools_base_python=/usr/bin/python3." % tmp_path,
        "ws-1: blackwell_tools_wheelhouse %s is a file, not a directory: give a directory (or a path that is not "
        "there yet), e.g. -e blackwell_tools_wheelhouse=/srv/wheelhouse." % afile]
    assert tools_venv.input_refusals("ws-1", str(afile), "python3", "wheels") == [
        "ws-1: blackwell_tools_venv %s is a file, not a directory: give a directory (or a path that is not there "
        "yet), e.g. -e blackwell_tools_venv=/opt/blackwell/tools." % afile,
        "ws-1: blackwell_tools_base_python must be an absolute path on the target, got 'python3' (relative to what? "
        "it would depend on the directory the module runs in): give the full path, e.g. "
        "-e blackwell_tools_base_python=/usr/bin/python3.",
        "ws-1: blackwell_tools_wheelhouse must be an absolute path on the target, got 'wheels' (relative to what? it "
        "would depend on the directory the module runs in): give the full path, e.g. "
        "-e blackwell_tools_wheelhouse=/srv/wheelhouse."]


def test_good_tools_paths_and_an_empty_wheelhouse_pass(tmp_path):
    assert tools_venv.input_refusals("ws-1", str(tmp_path / "tools"), sys.executable, "") == []
    assert tools_venv.input_refusals("ws-1", str(tmp_path), sys.executable, str(tmp_path)) == []


def test_a_verify_cuda_home_relative_or_a_file_is_refused_naming_the_variable(tmp_path):
    afile = tmp_path / "cuda"
    afile.write_text("not a toolkit\n")
    assert input_path_problems({"verify_cuda_home": "usr/local/cuda", "verify_python": sys.executable}) == [
        "verify_cuda_home must be an absolute path on the target, got 'usr/local/cuda' (relative to what? it would "
        "depend on the directory the module runs in): give the full path, e.g. -e verify_cuda_home=/usr/local/cuda."]
    assert input_path_problems({"verify_cuda_home": str(afile), "verify_python": str(tmp_path)}) == [
        "verify_cuda_home %s is a file, not a directory: give a directory (or a path that is not there yet), "
        "e.g. -e verify_cuda_home=/usr/local/cuda." % afile,
        "verify_python %s is a directory, not a file: give the interpreter itself, "
        "e.g. -e verify_python=/opt/pytorch/current/bin/python." % tmp_path]
    assert input_path_problems({"verify_cuda_home": str(tmp_path / "cuda-13.0"), "verify_python": sys.executable}) == []


def test_the_verify_plan_hands_its_path_inputs_to_the_fingerprint_call():
    planned = verify_plan.plan({"python": "/opt/pytorch/current/bin/python", "cuda_home": "cuda",
                                "results_dir": "/var/lib/blackwell-pytorch"})
    assert planned["input_paths"] == {"verify_python": "/opt/pytorch/current/bin/python", "verify_cuda_home": "cuda"}


def test_a_container_toolkit_driver_root_relative_or_a_file_is_refused(tmp_path):
    afile = tmp_path / "nvidia"
    afile.write_text("x\n")
    assert driver_root_problem("proc/driver/nvidia") == (
        "container_toolkit_driver_root must be an absolute path on the target, got 'proc/driver/nvidia' (relative to "
        "what? it would depend on the directory the module runs in): give the full path, e.g. "
        "-e container_toolkit_driver_root=/proc/driver/nvidia.")
    # the mode the role's probe read on the target (stat -L %f), not this machine's file
    assert driver_root_problem("/proc/driver/nvidia", os.stat(str(afile)).st_mode) == (
        "container_toolkit_driver_root /proc/driver/nvidia is a file, not a directory: give a directory (or a path "
        "that is not there yet), e.g. -e container_toolkit_driver_root=/proc/driver/nvidia.")
    assert driver_root_problem("/proc/driver/nvidia", os.stat(str(tmp_path)).st_mode) is None
    assert driver_root_problem("/proc/driver/nvidia", None) is None  # no driver: the role says that itself
    found = input_problems("https://nvidia.github.io/libnvidia-container/stable/deb/amd64/",
                           key_url="https://nvidia.github.io/libnvidia-container/gpgkey", fingerprints=[NVIDIA_KEY],
                           version="1.17.8-1", spec="/etc/cdi/nvidia.yaml", driver_root="nvidia")
    assert [message.split(" ")[0] for message in found] == ["container_toolkit_driver_root"]


def test_a_relative_fleet_report_dir_is_refused_with_the_controller_form():
    assert output_dirs.problems({"fleet_report_dir": "reports"}) == [
        "fleet_report_dir must be an absolute path on the controller, got 'reports' (relative to what? it would "
        "depend on the directory ansible-playbook is started from): give the full path, e.g. "
        "-e fleet_report_dir=/srv/blackwell/reports."]


def test_pytorch_fetch_dirs_relative_and_a_directory_as_the_wheelhouse_pip_python_are_refused(tmp_path):
    found = host_plan.input_refusals({"paths": {"pytorch_build_fetch_dir": ".pytorch-wheels",
                                                "pytorch_wheelhouse_fetch_dir": "wheelhouse",
                                                "pytorch_wheelhouse_pip_python": str(tmp_path)}}, os.stat)
    assert found == [
        "pytorch_build_fetch_dir must be an absolute path on the controller, got '.pytorch-wheels' (relative to what? "
        "it would depend on the directory ansible-playbook is started from): give the full path, e.g. "
        "-e pytorch_build_fetch_dir=/srv/blackwell/pytorch-wheels.",
        "pytorch_wheelhouse_fetch_dir must be an absolute path on the controller, got 'wheelhouse' (relative to what? "
        "it would depend on the directory ansible-playbook is started from): give the full path, e.g. "
        "-e pytorch_wheelhouse_fetch_dir=/srv/blackwell/pytorch-wheelhouse.",
        "pytorch_wheelhouse_pip_python %s is a directory, not a file: give the interpreter itself, "
        "e.g. -e pytorch_wheelhouse_pip_python=/opt/blackwell/tools/bin/python." % tmp_path]
    assert host_plan.input_refusals({"paths": {"pytorch_build_fetch_dir": "/srv/w", "pytorch_wheelhouse_fetch_dir": "",
                                               "pytorch_wheelhouse_pip_python": sys.executable}}, os.stat) == []
