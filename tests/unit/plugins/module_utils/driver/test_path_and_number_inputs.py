# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The driver's and the toolkit's inputs of the generalised kinds, refused before the host is read: a path option
that is relative, a directory where a file is due or below a file (the keyring, the MOK key and certificate,
cuda_toolkit_install_log), and a toolkit version YAML read as a number (12.10 is 12.1). Real files under tmp_path;
the toolkit's refusal through cuda_toolkit_state's main() as Ansible calls it."""
from __future__ import annotations

import yaml

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import state_call, toolkit_call
from ansible_collections.blackwell.pytorch.plugins.modules import cuda_toolkit_state
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.driver import OPTIONS as DRIVER_OPTIONS
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.toolkit import OPTIONS as TOOLKIT_OPTIONS
from driver_fixture import PREFLIGHT


def want(**changes):
    params = dict((name, spec.get("default")) for name, spec in DRIVER_OPTIONS.items())
    params.update({"host": "ws-1", "preflight": PREFLIGHT}, **changes)
    return state_call.want_of(params, "x86_64")


def test_driver_path_options_relative_or_a_directory_are_refused_naming_each(tmp_path):
    repo = {"configure": True, "url": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/",
            "key_url": "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub",
            "fingerprints": ["EB693B3035CD5710E231E123A4B469963BF863CC"], "keyring": "keyrings/nvidia.asc"}
    assert state_call.input_refusals(want(repo=repo, mok_key=str(tmp_path), mok_cert="")) == [
        "ws-1: nvidia_driver_repo_keyring must be an absolute path on the target, got 'keyrings/nvidia.asc' (relative "
        "to what? it would depend on the directory the module runs in): give the full path, e.g. "
        "-e nvidia_driver_repo_keyring=/etc/apt/keyrings/nvidia-cuda.asc. nvidia_driver_mok_key %s is a directory, "
        "not a file: give the file itself, e.g. -e nvidia_driver_mok_key=/var/lib/dkms/mok.key." % tmp_path]
    # the keyring of a repository the role does not configure is not looked at
    assert state_call.input_refusals(want(repo=dict(repo, configure=False))) == []


def toolkit_params(**changes):
    params = dict((name, spec.get("default")) for name, spec in TOOLKIT_OPTIONS.items())
    params.update({"host": "ws-1"}, **changes)
    return params


def test_a_toolkit_version_yaml_reads_as_a_number_is_refused_saying_to_quote_it():
    versions = yaml.safe_load("cuda_toolkit_versions: [12.10, '13.0']")["cuda_toolkit_versions"]
    default = yaml.safe_load("cuda_toolkit_default_version: 12.10")["cuda_toolkit_default_version"]
    assert toolkit_call.input_refusals(toolkit_params(versions=versions, default_version=default)) == [
        "cuda_toolkit_versions lists the number 12.1, not text: YAML reads an unquoted 2.10 as 2.1, so the digits "
        "meant may be lost. Quote it: cuda_toolkit_versions: [\"12.8\"] in YAML, "
        "-e '{\"cuda_toolkit_versions\": [\"12.8\"]}' on the command line (the digits you meant).",
        "cuda_toolkit_default_version is the number 12.1, not text: YAML reads an unquoted 2.10 as 2.1, so the "
        "digits meant may be lost. Quote it: cuda_toolkit_default_version: \"12.8\" in YAML, "
        "-e cuda_toolkit_default_version='\"12.8\"' on the command line (the digits you meant)."]
    assert toolkit_call.input_refusals(toolkit_params(versions=["12.8"], default_version="12.8")) == []


def test_an_install_log_that_is_a_directory_or_relative_is_refused(tmp_path):
    assert toolkit_call.input_refusals(toolkit_params(paths={"cuda_toolkit_install_log": str(tmp_path)})) == [
        "cuda_toolkit_install_log %s is a directory, not a file: give the file itself, "
        "e.g. -e cuda_toolkit_install_log=/var/log/blackwell-pytorch/cuda-toolkit-install.log." % tmp_path]
    assert toolkit_call.input_refusals(toolkit_params(paths={"cuda_toolkit_install_log": "toolkit.log"}))[0].startswith(
        "cuda_toolkit_install_log must be an absolute path on the target, got 'toolkit.log'")


def test_the_toolkit_module_refuses_a_number_before_reading_the_host(run_module):
    kind, result = run_module(cuda_toolkit_state, {"host": "ws-1", "versions": [12.1], "os_family": "Debian",
                                                   "gpus": [], "driver": "580.95.05"})
    assert kind == "fail" and result["msg"].startswith(
        "ws-1: cuda_toolkit_versions lists the number 12.1, not text:"), result
