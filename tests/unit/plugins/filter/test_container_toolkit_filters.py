# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit filters: every argument reaches module_utils/containers, bad arguments name the filter."""
from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.container_toolkit import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi import fingerprint, record_text
from shells import assert_each_argument_matters

F = FilterModule().filters()
FPR = "C95B321B61E88C1809C4F759DDCAE044F796ECB0"


def test_cdi_plan_shell_passes_every_argument():
    base = {"driver_version": "580.95.05", "gpus": ["0000:01:00.0"], "recorded": "", "spec_exists": True,
            "toolkit_version": "1.17.8-1", "args": [], "spec": "/etc/cdi/nvidia.yaml", "installed_driver": ""}
    matching = record_text(fingerprint("580.95.05", ["0000:01:00.0"], "1.17.8-1", [], "/etc/cdi/nvidia.yaml"))
    result = assert_each_argument_matters(F["container_toolkit_cdi_plan"], base, {
        "driver_version": "", "gpus": [], "recorded": matching, "spec_exists": "false", "toolkit_version": "1.18.0-1",
        "args": ["--device-name-strategy=uuid"], "spec": "/var/run/cdi/nvidia.yaml", "installed_driver": "580.105.08"})
    assert result["action"] == "regenerate"


def test_cdi_plan_reads_booleans_as_ansible_does_and_refuses_text_for_a_list():
    assert F["container_toolkit_cdi_plan"]("580.95.05", spec_exists="no")["action"] == "generate"
    with pytest.raises(AnsibleFilterError, match="container_toolkit_cdi_plan: gpus must be a list"):
        F["container_toolkit_cdi_plan"]("580.95.05", gpus="0000:01:00.0")


def test_runtimes_shell_passes_every_argument_and_reads_names_separated_by_commas():
    result = assert_each_argument_matters(F["container_toolkit_runtimes"],
                                          {"asked": [], "present": ["docker"], "active": ["docker"]},
                                          {"asked": ["rkt"], "present": [], "active": []})
    assert result["configure"] == ["docker"] and result["restartable"] == ["docker"]
    assert F["container_toolkit_runtimes"]("docker, containerd", present=["docker", "containerd"])["configure"] == [
        "containerd", "docker"]


def test_inputs_shell_passes_every_argument():
    base = {"repo_url": "https://nvidia.github.io/libnvidia-container/stable/deb/amd64/",
            "key_url": "no url", "key_content": "", "fingerprints": [FPR],
            "proxy": "", "version": "1.17.8-1", "spec": "/etc/cdi/nvidia.yaml"}
    result = assert_each_argument_matters(F["container_toolkit_inputs"], base, {
        "repo_url": "ftp://x/", "key_url": "https://m.lab/gpgkey", "key_content": "k", "fingerprints": ["ABC"],
        "proxy": "p:1", "version": "1", "spec": "x"})
    assert result == {"ok": False, "problems": [
        "container_toolkit_repo_key_url contains characters no URL has (spaces, quotes, braces, backslashes): 'no url'"]}


def test_inputs_shell_leaves_fingerprints_given_as_text_to_the_check():
    result = F["container_toolkit_inputs"]("https://m.lab/", key_url="https://m.lab/k", fingerprints=FPR,
                                           version="1.17.8-1", spec="/etc/cdi/nvidia.yaml")
    assert not result["ok"] and "container_toolkit_repo_key_fingerprints must be a non-empty list" in result["problems"][0]


def test_config_changed_shell_passes_every_argument_and_names_itself_on_errors():
    assert_each_argument_matters(F["container_toolkit_config_changed"],
                                 {"proposed": '{"a": 1}', "current": '{ "a": 1 }', "runtime": "docker"},
                                 {"proposed": '{"a": 2}', "current": '{"a": 2}', "runtime": "containerd"})
    with pytest.raises(AnsibleFilterError, match="container_toolkit_config_changed: no configuration file for runtime 'podman'"):
        F["container_toolkit_config_changed"]("", runtime="podman")


def test_probe_and_gpu_match_shells_pass_their_text():
    assert F["container_toolkit_probe"]("gpu\t0000:01:00.0")["gpus"] == ["0000:01:00.0"]
    assert F["container_toolkit_probe"](None)["gpus"] == []
    line = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)"
    assert_each_argument_matters(F["container_toolkit_gpu_match"], {"host_text": line, "container_text": line},
                                 {"host_text": "", "container_text": ""})
