# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit probe's output read, the role's inputs checked, and the container GPU comparison."""
from __future__ import annotations

import base64

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.gpu_match import gpu_match
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.inputs import input_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.probe import read_probe

NVRM = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:00:00 UTC 2025")
FPR = "C95B321B61E88C1809C4F759DDCAE044F796ECB0"


def test_the_probe_output_is_read_into_driver_gpus_runtimes_packages_and_record():
    record = '{"driver": "580.95.05"}\n'
    text = "\n".join([
        "nvrm\t" + NVRM, "gpu\t0000:41:00.0", "gpu\t0000:01:00.0", "runtime\tdockerd\t/usr/bin/dockerd",
        "runtime\tpodman\t/usr/bin/podman", "active\tdocker",
        "package\tnvidia-container-toolkit\t1.17.8-1\thi ", "package\tlibnvidia-container1\t1.17.8-1\tii ",
        "package\tnvidia-container-toolkit-base\t\tun ", "spec\t/etc/cdi/nvidia.yaml",
        "fingerprint\t" + base64.b64encode(record.encode()).decode()])
    state = read_probe(text)
    assert state["driver_version"] == "580.95.05" and state["driver_flavor"] == "open"
    assert state["gpus"] == ["0000:01:00.0", "0000:41:00.0"]
    assert state["runtimes"] == {"docker": "/usr/bin/dockerd", "podman": "/usr/bin/podman"} and state["active"] == ["docker"]
    assert state["packages"]["nvidia-container-toolkit"] == {"version": "1.17.8-1", "installed": True, "held": True}
    assert state["packages"]["libnvidia-container1"] == {"version": "1.17.8-1", "installed": True, "held": False}
    assert state["packages"]["nvidia-container-toolkit-base"]["installed"] is False
    assert state["spec_exists"] and state["recorded"] == record


def test_a_host_without_driver_engines_or_toolkit_reads_as_empty():
    assert read_probe("") == {"driver_version": None, "driver_flavor": "unknown", "gpus": [], "runtimes": {},
                              "engines": {}, "active": [], "packages": {}, "spec_exists": False,
                              "management_exists": False, "recorded": "", "driver_root_mode": None}


def test_the_engines_version_lines_and_the_management_spec_are_read():
    state = read_probe("runtime\tdockerd\t/usr/bin/dockerd\tDocker version 27.5.1, build x\n"
                       "runtime\tcontainerd\t/usr/bin/containerd\n"
                       "runtime\tpodman\t/usr/bin/podman\tpodman version 4.3.1\nmspec")
    assert state["engines"] == {"docker": "Docker version 27.5.1, build x", "containerd": "",
                                "podman": "podman version 4.3.1"}
    assert state["management_exists"] is True


def test_a_fingerprint_that_is_not_base64_reads_as_no_record():
    assert read_probe("fingerprint\t%%%not-base64")["recorded"] == ""


def _good(**changes):
    base = {"repo_url": "https://nvidia.github.io/libnvidia-container/stable/deb/amd64/",
            "key_url": "https://nvidia.github.io/libnvidia-container/gpgkey", "key_content": "", "fingerprints": [FPR],
            "proxy": "", "version": "1.17.8-1", "spec": "/etc/cdi/nvidia.yaml"}
    base.update(changes)
    return input_problems(**base)


def test_the_defaults_are_accepted():
    assert _good() == [] and _good(version="1.18.0~rc.1-1", spec="/var/run/cdi/nvidia.json") == []


@pytest.mark.parametrize("change,expected", [
    ({"fingerprints": ["F796ECB0"]}, "container_toolkit_repo_key_fingerprints: 'F796ECB0' is not a full fingerprint"),
    ({"fingerprints": FPR}, "container_toolkit_repo_key_fingerprints must be a non-empty list"),
    ({"fingerprints": []}, "container_toolkit_repo_key_fingerprints must be a non-empty list"),
    ({"repo_url": "nvidia.github.io/libnvidia-container"}, "container_toolkit_repo_url must be a URL of scheme"),
    ({"repo_url": "https://u:Sup3rS3cret@mirror.lab/ctk/"}, "container_toolkit_repo_url carries a user name or password"),
    ({"proxy": "proxy.lab:3128"}, "container_toolkit_repo_proxy must be a URL of scheme http, https, socks5h"),
    ({"version": "1.17.8"}, "container_toolkit_version must be a full package version such as 1.17.8-1"),
    ({"spec": "cdi/nvidia.yaml"}, "container_toolkit_cdi_spec must be an absolute path ending in .yaml or .json"),
    ({"spec": "/etc/cdi/nvidia.yml"}, "container_toolkit_cdi_spec must be an absolute path ending in .yaml or .json"),
], ids=["short-key-id", "fingerprint-text", "no-fingerprint", "url-no-scheme", "url-credentials", "proxy-no-scheme",
        "version-without-revision", "relative-spec", "yml-spec"])
def test_bad_inputs_are_refused_naming_the_variable(change, expected):
    problems = _good(**change)
    assert len(problems) == 1 and problems[0].startswith(expected), problems
    assert "Sup3rS3cret" not in problems[0]


def test_the_key_url_is_not_checked_when_the_key_is_given_inline():
    assert _good(key_url="not a url", key_content="-----BEGIN PGP PUBLIC KEY BLOCK-----") == []


HOST = ("GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-5b1c0a9e-1111-2222-3333-444455556666)\n"
        "GPU 1: NVIDIA RTX PRO 6000 Blackwell Workstation Edition (UUID: GPU-9f2e-aaaa)\n")


def test_a_container_that_sees_every_host_gpu_passes():
    result = gpu_match(HOST, HOST)
    assert result["ok"] and result["msg"] == ("the container sees the host's 2 GPU(s): "
                                              "GPU-5b1c0a9e-1111-2222-3333-444455556666, GPU-9f2e-aaaa")


def test_a_container_missing_a_gpu_fails_naming_it():
    result = gpu_match(HOST, HOST.splitlines()[0])
    assert not result["ok"] and result["missing"] == ["GPU-9f2e-aaaa"]
    assert result["msg"] == "the container sees 1 of the host's 2 GPU(s); missing: GPU-9f2e-aaaa"


def test_a_container_that_sees_no_gpu_at_all_fails():
    result = gpu_match(HOST, "Failed to initialize NVML: Unknown Error")
    assert not result["ok"] and result["container"] == [] and "sees 0 of the host's 2" in result["msg"]


def test_a_host_without_gpus_is_no_pass():
    result = gpu_match("", "")
    assert not result["ok"] and result["msg"] == "nvidia-smi -L on the host lists no GPU: nothing to compare"


def test_mig_lines_are_not_counted_as_gpus():
    mig = HOST + "  MIG 1g.10gb     Device  0: (UUID: MIG-1234)\n"
    assert gpu_match(mig, HOST)["ok"]
