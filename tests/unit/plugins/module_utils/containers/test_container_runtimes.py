# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which runtimes the container_toolkit role configures, the refusals, and when a configuration changes."""
from __future__ import annotations

import json

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.runtimes import config_changed, runtime_plan

DOCKER_WITH_NVIDIA = json.dumps({"log-driver": "journald", "runtimes": {"nvidia": {"args": [],
                                 "path": "nvidia-container-runtime"}}}, indent=4)


def test_nothing_asked_configures_every_supported_runtime_found():
    plan = runtime_plan([], ["docker", "containerd", "podman", "lxd"], ["docker"])
    assert plan["ok"] and plan["configure"] == ["containerd", "docker"] and plan["cdi_only"] == ["podman"]
    assert plan["restartable"] == ["docker"]
    assert plan["paths"] == {"containerd": "/etc/containerd/config.toml", "docker": "/etc/docker/daemon.json"}


def test_nothing_asked_and_no_engine_found_is_fine_with_the_spec_only():
    plan = runtime_plan([], [], [])
    assert plan["ok"] and plan["configure"] == [] and "none found" in plan["msg"]


def test_only_the_runtimes_asked_for_are_configured():
    plan = runtime_plan(["podman"], ["docker", "podman"], ["docker"])
    assert plan["ok"] and plan["configure"] == [] and plan["cdi_only"] == ["podman"] and plan["restartable"] == []


def test_an_unknown_runtime_is_refused_naming_the_variable_and_the_supported_ones():
    plan = runtime_plan(["docker", "rkt"], ["docker"], [])
    assert not plan["ok"]
    assert plan["problems"] == ["container_toolkit_runtimes: unknown runtime 'rkt' (supported: containerd, docker, podman)"]


def test_a_runtime_asked_for_but_not_installed_is_refused():
    plan = runtime_plan(["podman", "docker"], ["containerd", "docker"], [])
    assert plan["problems"] == ["container_toolkit_runtimes asks for podman, not installed on this host (found: "
                                "containerd, docker): install it first or take it out of container_toolkit_runtimes"]


def test_a_runtime_asked_for_on_a_host_without_any_engine_says_so():
    assert "(found: no container engine)" in runtime_plan(["docker"], [], [])["problems"][0]


@pytest.mark.parametrize("current,proposed,changed", [
    ("", DOCKER_WITH_NVIDIA, True),
    ('{"log-driver": "journald"}', DOCKER_WITH_NVIDIA, True),
    (DOCKER_WITH_NVIDIA, DOCKER_WITH_NVIDIA, False),
    (json.dumps(json.loads(DOCKER_WITH_NVIDIA), sort_keys=True), DOCKER_WITH_NVIDIA, False),
    ("{broken", DOCKER_WITH_NVIDIA, True),
], ids=["no-file", "without-nvidia", "same", "other-order-and-indent", "broken-file"])
def test_docker_configuration_is_compared_as_json(current, proposed, changed):
    assert config_changed("docker", current, proposed) is changed


def test_containerd_configuration_is_compared_without_blank_lines_and_trailing_blanks():
    toml = 'version = 2\n\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n'
    assert config_changed("containerd", toml.replace("\n\n", "\n").replace('v2"', 'v2"   '), toml) is False
    assert config_changed("containerd", "version = 2\n", toml) is True


def test_a_dry_run_that_is_no_json_or_a_runtime_without_a_file_is_an_error():
    with pytest.raises(ValueError, match="printed no JSON"):
        config_changed("docker", "{}", "level=error msg=...")
    with pytest.raises(ValueError, match="no configuration file for runtime 'podman'"):
        config_changed("podman", "", "")
