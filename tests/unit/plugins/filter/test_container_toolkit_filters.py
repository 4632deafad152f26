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


def test_cdi_plan_shell_passes_the_management_arguments():
    matching = record_text(fingerprint("580.95.05", [], "1.20.0-1", [], "/etc/cdi/nvidia.yaml", True))
    plan = F["container_toolkit_cdi_plan"]
    assert plan("580.95.05", recorded=matching, spec_exists=True, toolkit_version="1.20.0-1", spec="/etc/cdi/nvidia.yaml",
                management="yes", management_exists="yes")["action"] == "keep"
    assert plan("580.95.05", recorded=matching, spec_exists=True, toolkit_version="1.20.0-1", spec="/etc/cdi/nvidia.yaml",
                management="yes", management_exists="no")["action"] == "regenerate"


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
    dry_run = 'level=info msg="Drop-in config:"\nversion = 2\nlevel=info msg="Top-level config:"\nimports = ["x"]'
    changed = F["container_toolkit_config_changed"]
    assert changed(dry_run, current='imports = ["x"]', runtime="containerd", drop_in="version = 2") is False
    assert changed(dry_run, current='imports = ["x"]', runtime="containerd", drop_in="") is True
    with pytest.raises(AnsibleFilterError, match="container_toolkit_config_changed: no configuration file for runtime 'podman'"):
        F["container_toolkit_config_changed"]("", runtime="podman")


def test_probe_and_gpu_match_shells_pass_their_text():
    assert F["container_toolkit_probe"]("gpu\t0000:01:00.0")["gpus"] == ["0000:01:00.0"]
    assert F["container_toolkit_probe"](None)["gpus"] == []
    line = "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)"
    assert_each_argument_matters(F["container_toolkit_gpu_match"], {"host_text": line, "container_text": line},
                                 {"host_text": "", "container_text": ""})


NVRM = "nvrm\tNVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  (b@h)  Tue Sep 23 2025"
PROBE = "\n".join(["root\t41ed", NVRM, "gpu\t0000:01:00.0", "runtime\tdockerd\t/usr/bin/dockerd"]
                  + ["package\t%s\t1.17.8-1\tii " % name for name in ("nvidia-container-toolkit", "libnvidia-container1")])
SETTINGS = {"os": {"family": "Debian", "distribution": "Ubuntu", "version": "24.04"}, "supported_os": ["Ubuntu 24.04"],
            "require_driver": "true", "driver_status": {"version": "580.105.08", "reboot_required": "yes"},
            "runtimes": [], "packages": ["nvidia-container-toolkit", "libnvidia-container1"], "version": "1.17.8-1",
            "repo_url": "https://m.lab/ctk/", "key_url": "https://m.lab/gpgkey", "key_content": "",
            "fingerprints": [FPR], "proxy": "", "spec": "/etc/cdi/nvidia.yaml", "cdi_args": [],
            "driver_root": "/proc/driver/nvidia", "check_mode": False}


def test_plan_shell_passes_every_setting():
    reference = F["container_toolkit_plan"](PROBE, SETTINGS)
    assert reference["ok"] and reference["in_place"] and reference["cdi"]["action"] == "defer"
    changes = {"os": {"family": "Debian", "distribution": "Debian", "version": "12"}, "supported_os": ["Debian 12"],
               "require_driver": "no", "driver_status": None, "runtimes": "podman", "packages": ["libnvidia-container1"],
               "version": "1.18.0-1", "repo_url": "ftp://m.lab/", "key_url": "no url", "key_content": "k",
               "fingerprints": FPR, "proxy": "p:1", "spec": "/etc/cdi/other.yaml", "cdi_args": ["--x"],
               "driver_root": "srv/driver", "check_mode": "yes"}
    assert sorted(changes) == sorted(SETTINGS)
    # where a setting matters: no driver loaded nor installed in the play, the toolkit not installed, a bad key URL
    where = {"require_driver": {"driver_status": None}, "check_mode": {"packages": ["nvidia-container-toolkit-base"]},
             "key_content": {"key_url": "no url"}}
    for key, value in changes.items():
        probe = PROBE.replace(NVRM, "") if key == "require_driver" else PROBE
        before = F["container_toolkit_plan"](probe, dict(SETTINGS, **where.get(key, {})))
        assert F["container_toolkit_plan"](probe, dict(SETTINGS, **where.get(key, {}), **{key: value})) != before, key
    assert F["container_toolkit_plan"]("", SETTINGS) != reference


def test_plan_shell_passes_the_management_setting_and_the_check_shell_its_arguments():
    listing = "dir\t/etc/cdi\ndev\tnvidia.com/gpu=all\ndir\t/var/run/cdi\ndev\tnvidia.com/gpu=all"
    plan, check = F["container_toolkit_plan"], F["container_toolkit_cdi_check"]
    spec, mspec = "/etc/cdi/nvidia.yaml", "/etc/cdi/management.nvidia.com-gpu.yaml"
    assert check(listing, spec)["ok"] is False
    assert check(listing, spec, ignore_dirs=["/var/run/cdi"])["ok"] is True
    assert check(listing, spec, ignore_dirs=["/var/run/cdi"], management_spec=mspec)["ok"] is False
    assert check(listing, spec, ignore_dirs=["/var/run/cdi"], management_spec=mspec, preview="yes")["ok"] is True
    with pytest.raises(AnsibleFilterError, match="container_toolkit_cdi_check: "):
        check(listing, spec, limits="not a list")
    assert plan(PROBE, dict(SETTINGS, management="yes"))["cdi"]["fingerprint"]["management"] is True


def test_plan_shell_reads_runtimes_separated_by_commas_and_refuses_bad_settings():
    plan = F["container_toolkit_plan"](PROBE, dict(SETTINGS, runtimes="docker, podman"))
    assert plan["problems"] == ["container_toolkit_runtimes asks for podman, not installed on this host (found: docker):"
                                " install it first or take it out of container_toolkit_runtimes"]
    for key, value, message in (("os", "Ubuntu", "os must be a mapping"), ("packages", "x", "packages must be a list"),
                                ("check_mode", "maybe", "check_mode must be true or false"),
                                ("driver_status", [], "driver_status must be a mapping")):
        with pytest.raises(AnsibleFilterError, match="container_toolkit_plan: %s" % message):
            F["container_toolkit_plan"](PROBE, dict(SETTINGS, **{key: value}))
    with pytest.raises(AnsibleFilterError, match="container_toolkit_plan: settings must be a mapping"):
        F["container_toolkit_plan"](PROBE, ["x"])


def test_repo_key_shell_passes_every_source_and_the_fingerprints():
    sources = {"content": "", "url": "https://m.lab/gpgkey", "fetched": {"skipped": True}, "on_host": {}}
    reference = F["container_toolkit_repo_key"](sources, [FPR])
    assert not reference["ok"] and "the repository key from https://m.lab/gpgkey is not trusted" in reference["msg"]
    for key, value in (("content", "inline"), ("url", "https://other/gpgkey"), ("fetched", {"status": 404}),
                       ("on_host", {"content": "aG9zdA=="})):
        assert F["container_toolkit_repo_key"](dict(sources, **{key: value}), [FPR]) != reference, key
    fetched = dict(sources, fetched={"status": 200, "content": "x"})
    assert F["container_toolkit_repo_key"](fetched, [FPR]) != F["container_toolkit_repo_key"](fetched, [])
    with pytest.raises(AnsibleFilterError, match="container_toolkit_repo_key: fetched must be a mapping"):
        F["container_toolkit_repo_key"](dict(sources, fetched="x"), [FPR])
    with pytest.raises(AnsibleFilterError, match="container_toolkit_repo_key: fingerprints must be a list"):
        F["container_toolkit_repo_key"](sources, FPR)


def test_deb_arch_shell_passes_its_text():
    assert [F["container_toolkit_deb_arch"](m) for m in ("x86_64", "aarch64", None, "riscv64")] == [
        "amd64", "arm64", "amd64", "riscv64"]
