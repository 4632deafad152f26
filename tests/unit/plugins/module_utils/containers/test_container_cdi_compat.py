# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What each toolkit release does (containers/toolkit.py), which CDI spec versions the engines read and the check of
the specs after generation (containers/cdi_compat.py)."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi_compat import (
    cdi_check, engine_limit, first_reading, spec_plan, triple)
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.toolkit import behaviour, release

NO_GIDS = "--feature-flag=no-additional-gids-for-device-nodes"


@pytest.mark.parametrize("version,drop_in,refresh,gids", [
    ("1.17.8-1", "", False, False),
    ("1.17.9-1", "", False, False),
    ("1.18.0-1", "/etc/containerd/config.d/99-nvidia.toml", True, False),  # configure.go at v1.18.0
    ("1.18.1-1", "/etc/containerd/conf.d/99-nvidia.toml", True, False),  # "Fix containerd drop-in config path"
    ("1.19.0-1", "/etc/containerd/conf.d/99-nvidia.toml", True, True),  # pkg/nvcdi/api.go: the feature flag
    ("1.20.0-1", "/etc/containerd/conf.d/99-nvidia.toml", True, True),
    ("1:1.20.0~rc.1-1", "/etc/containerd/conf.d/99-nvidia.toml", True, True),
])
def test_each_release_behaves_as_its_source_says(version, drop_in, refresh, gids):
    found = behaviour(version)
    assert (found["containerd_drop_in"], found["cdi_refresh"], found["gids"], found["no_gids_flag"]) == (
        drop_in, refresh, gids, gids)
    assert found["known"] is True


def test_an_unreadable_version_has_no_release():
    assert release("latest") is None and behaviour("latest")["known"] is False


@pytest.mark.parametrize("engine,text,highest", [
    ("docker", "Docker version 24.0.9, build x", ""),  # no CDI before 25
    ("docker", "Docker version 25.0.5, build x", "0.6.0"),
    ("docker", "Docker version 26.1.5, build x", "0.7.0"),
    ("docker", "Docker version 27.5.1, build x", "0.8.0"),
    ("docker", "Docker version 28.5.2, build x", "1.0.0"),
    ("docker", "Docker version 29.2.0, build x", "1.1.0"),
    ("containerd", "containerd github.com/containerd/containerd 1.6.20~ds1 x", ""),
    ("containerd", "containerd containerd.io 1.7.13 x", "0.6.0"),
    ("containerd", "containerd containerd.io 1.7.16 x", "0.7.0"),
    ("containerd", "containerd containerd.io 1.7.27 x", "0.8.0"),
    ("containerd", "containerd github.com/containerd/containerd/v2 v2.0.0 x", "0.8.0"),
    ("containerd", "containerd github.com/containerd/containerd/v2 v2.1.4 x", "1.0.0"),
    ("podman", "podman version 4.3.1", "0.5.0"),
    ("podman", "podman version 4.9.3", "0.6.0"),
    ("podman", "podman version 5.4.2", "0.8.0"),
])
def test_the_highest_cdi_spec_each_engine_reads(engine, text, highest):
    assert engine_limit(engine, text)["max"] == highest


def test_an_engine_version_not_read_or_older_than_the_table_is_unknown():
    assert engine_limit("podman", "podman version 4.0.3") == {"engine": "podman", "version": "4.0.3", "max": None,
                                                              "known": False}
    assert engine_limit("docker", "") == {"engine": "docker", "version": "", "max": None, "known": False}
    assert triple("containerd github.com/containerd/containerd/v2 v2.0.0 x") == (2, 0, 0)


def test_the_first_release_reading_a_spec_version():
    assert first_reading("podman", "0.7.0") == "5.1.0"
    assert first_reading("docker", "0.7.0") == "26.1.0"
    assert first_reading("containerd", "0.7.0") == "1.7.16"
    assert first_reading("podman", "9.0.0") == ""


def test_a_toolkit_that_may_write_070_is_kept_below_an_engine_that_reads_less():
    plan = spec_plan(behaviour("1.20.0-1"), {"docker": "Docker version 27.5.1, build x",
                                             "containerd": "containerd containerd.io 1.7.13 x"}, ["containerd", "docker"])
    assert plan["limit"] == "0.6.0" and plan["args"] == [NO_GIDS]
    assert plan["notes"] == [NO_GIDS + ": containerd 1.7.13 reads CDI up to 0.6.0, the toolkit may write 0.7.0 "
                             "(device-node GIDs)"]


def test_no_flag_when_every_engine_reads_070_or_the_toolkit_writes_no_gids():
    engines = {"docker": "Docker version 27.5.1, build x", "podman": "podman version 4.3.1"}
    assert spec_plan(behaviour("1.20.0-1"), engines, ["docker"])["args"] == []  # podman not chosen
    assert spec_plan(behaviour("1.17.8-1"), engines, ["docker", "podman"])["args"] == []
    assert spec_plan(behaviour("1.20.0-1"), {}, [])["limit"] == ""


def _check_text(etc=("nvidia.com/gpu=0", "nvidia.com/gpu=all"), run=(), versions=(("/etc/cdi/nvidia.yaml", "0.5.0"),)):
    lines = ["dir\t/etc/cdi"] + ["dev\t" + d for d in etc] + ["dir\t/var/run/cdi"] + ["dev\t" + d for d in run]
    return "\n".join(lines + ["version\t%s\t%s" % item for item in versions])


def test_one_spec_defines_the_gpus_and_its_version_is_read_by_every_engine():
    limits = [engine_limit("containerd", "containerd containerd.io 1.7.13 x")]
    check = cdi_check(_check_text(), "/etc/cdi/nvidia.yaml", limits)
    assert check == {"ok": True, "problems": [], "devices": ["nvidia.com/gpu=0", "nvidia.com/gpu=all"],
                     "versions": {"/etc/cdi/nvidia.yaml": "0.5.0"},
                     "msg": "CDI devices in /etc/cdi: nvidia.com/gpu=0, nvidia.com/gpu=all; spec versions: "
                            "/etc/cdi/nvidia.yaml 0.5.0"}


def test_a_second_spec_in_var_run_cdi_is_refused_unless_a_check_run_would_remove_it():
    text = _check_text(run=("nvidia.com/gpu=all",))
    assert cdi_check(text, "/etc/cdi/nvidia.yaml")["problems"] == [
        "nvidia.com/gpu is defined in /var/run/cdi as well as in /etc/cdi: a spec in a later CDI directory wins "
        "(/var/run/cdi over /etc/cdi); remove it (nvidia-cdi-refresh writes /var/run/cdi/nvidia.yaml)"]
    assert cdi_check(text, "/etc/cdi/nvidia.yaml", ignore_dirs=["/var/run/cdi"])["ok"] is True


def test_a_spec_an_engine_cannot_read_is_refused_naming_the_engine_and_its_first_release_that_reads_it():
    text = _check_text(versions=(("/etc/cdi/nvidia.yaml", "0.7.0"),))
    limits = [engine_limit("podman", "podman version 4.9.3"), engine_limit("docker", "Docker version 27.5.1, build x")]
    assert cdi_check(text, "/etc/cdi/nvidia.yaml", limits)["problems"] == [
        "/etc/cdi/nvidia.yaml is CDI spec 0.7.0, which podman 4.9.3 cannot read (it reads up to 0.6.0): upgrade podman "
        "to 5.1.0 or later, or pin container_toolkit_version to a release that writes an older spec"]


def test_no_gpu_device_and_a_missing_management_device_are_refused():
    check = cdi_check(_check_text(etc=("nvidia.com/gpu=0",)), "/etc/cdi/nvidia.yaml",
                      management_spec="/etc/cdi/management.nvidia.com-gpu.yaml")
    assert check["problems"] == [
        "nvidia-ctk cdi list shows no nvidia.com/gpu=all in /etc/cdi (nvidia.com/gpu=0); generate it again with "
        "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml and read its messages",
        "nvidia-ctk cdi list shows no management.nvidia.com/gpu=all in /etc/cdi (/etc/cdi/management.nvidia.com-gpu.yaml)"]
    both = _check_text(etc=("management.nvidia.com/gpu=all", "nvidia.com/gpu=all"))
    assert cdi_check(both, "/etc/cdi/nvidia.yaml", management_spec="/etc/cdi/management.nvidia.com-gpu.yaml")["ok"]
