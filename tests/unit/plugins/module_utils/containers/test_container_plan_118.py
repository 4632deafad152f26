# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit preflight with toolkit 1.17 and 1.18+ side by side: containerd's drop-in, nvidia-cdi-refresh,
the spec version the engines read, the management spec, and the check of the specs after generation."""
from __future__ import annotations

import base64
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi import cdi_plan, fingerprint, record_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi_compat import cdi_check
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.plan import preflight_plan

NVRM = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:00:00 UTC 2025")
PACKAGES = ["nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools",
            "libnvidia-container1"]
SPEC = "/etc/cdi/nvidia.yaml"
MSPEC = "/etc/cdi/management.nvidia.com-gpu.yaml"
NO_GIDS = "--feature-flag=no-additional-gids-for-device-nodes"
MANAGEMENT = ["--mode=management", "--vendor=management.nvidia.com", "--class=gpu"]


def _settings(**changes):
    settings = {"os": {"family": "Debian", "distribution": "Debian", "version": "12"}, "supported_os": ["Debian 12"],
                "require_driver": True, "driver_status": None, "runtimes": [], "packages": PACKAGES,
                "version": "1.20.0-1", "repo_url": "https://nvidia.github.io/libnvidia-container/stable/deb/amd64/",
                "key_url": "https://nvidia.github.io/libnvidia-container/gpgkey", "key_content": "",
                "fingerprints": ["C95B321B61E88C1809C4F759DDCAE044F796ECB0"], "proxy": "", "spec": SPEC,
                "cdi_args": [], "driver_root": "/proc/driver/nvidia", "check_mode": False}
    settings.update(changes)
    return settings


def _probe(containerd="containerd containerd.io 1.7.27 x", *lines):
    rows = ["root\t%x" % (stat.S_IFDIR | 0o555), "nvrm\t" + NVRM, "gpu\t0000:01:00.0",
            "runtime\tdockerd\t/usr/bin/dockerd\tDocker version 27.5.1, build x",
            "runtime\tcontainerd\t/usr/bin/containerd\t" + containerd, "active\tdocker", "active\tcontainerd"]
    return "\n".join(rows + list(lines))


@pytest.mark.parametrize("version,drop_in,units,spec", [
    ("1.17.8-1", "", [], ""),
    ("1.18.0-1", "/etc/containerd/config.d/99-nvidia.toml", ["nvidia-cdi-refresh.path", "nvidia-cdi-refresh.service"],
     "/var/run/cdi/nvidia.yaml"),
    ("1.20.0-1", "/etc/containerd/conf.d/99-nvidia.toml", ["nvidia-cdi-refresh.path", "nvidia-cdi-refresh.service"],
     "/var/run/cdi/nvidia.yaml"),
])
def test_each_release_gets_its_dry_run_files_and_its_refresh_units(version, drop_in, units, spec):
    plan = preflight_plan(_probe(), _settings(version=version))
    assert plan["ok"], plan["problems"]
    assert plan["dry_run"] == {"containerd": {"config": "/etc/containerd/config.toml", "drop_in": drop_in},
                               "docker": {"config": "/etc/docker/daemon.json", "drop_in": ""}}
    assert plan["refresh_units"] == units and plan["refresh_spec"] == spec
    assert plan["check_dirs"] == ["/etc/cdi", "/var/run/cdi"]


def test_the_refresh_spec_is_kept_when_it_is_the_roles_own_and_a_spec_elsewhere_adds_its_directory():
    assert preflight_plan(_probe(), _settings(spec="/var/run/cdi/nvidia.yaml"))["refresh_spec"] == ""
    assert preflight_plan(_probe(), _settings(spec="/srv/cdi/gpu.yaml"))["check_dirs"] == [
        "/etc/cdi", "/var/run/cdi", "/srv/cdi"]


def test_an_engine_that_reads_no_070_spec_gets_the_no_gids_flag_and_the_fingerprint_records_it():
    plan = preflight_plan(_probe("containerd containerd.io 1.7.13 x"), _settings(cdi_args=["--device-name-strategy=uuid"]))
    assert plan["cdi_args"] == ["--device-name-strategy=uuid", NO_GIDS]
    assert plan["cdi"]["fingerprint"]["args"] == ["--device-name-strategy=uuid", NO_GIDS]
    assert plan["management_args"] == MANAGEMENT + [NO_GIDS]
    assert plan["msg"].endswith("; %s: containerd 1.7.13 reads CDI up to 0.6.0, the toolkit may write 0.7.0 "
                                "(device-node GIDs)" % NO_GIDS)
    assert preflight_plan(_probe(), _settings())["cdi_args"] == []  # containerd 1.7.27 reads 0.8.0
    assert preflight_plan(_probe("containerd containerd.io 1.7.13 x"), _settings(version="1.17.8-1"))["cdi_args"] == []


def test_the_management_spec_joins_the_fingerprint_and_a_missing_one_is_generated_again():
    record = record_text(fingerprint("580.95.05", ["0000:01:00.0"], "1.20.0-1", [], SPEC, True))
    spec_lines = ["spec\t" + SPEC, "fingerprint\t" + base64.b64encode(record.encode()).decode()]
    missing = preflight_plan(_probe("containerd containerd.io 1.7.27 x", *spec_lines), _settings(management=True))
    assert missing["cdi"]["action"] == "regenerate" and missing["management_spec"] == MSPEC
    assert missing["cdi"]["reason"] == ("/etc/cdi/nvidia.yaml matches driver 580.95.05 but the management spec is "
                                        "missing")
    there = preflight_plan(_probe("containerd containerd.io 1.7.27 x", "mspec", *spec_lines), _settings(management=True))
    assert there["cdi"]["action"] == "keep"
    turned_off = preflight_plan(_probe("containerd containerd.io 1.7.27 x", *spec_lines), _settings())
    assert turned_off["cdi"]["reason"] == "/etc/cdi/nvidia.yaml is stale: management spec yes -> no"


def test_a_record_written_before_the_management_field_still_matches():
    old = '{"args": [], "driver": "580.95.05", "gpus": ["0000:01:00.0"], "spec": "%s", "toolkit": "1.20.0-1"}\n' % SPEC
    assert cdi_plan("580.95.05", ["0000:01:00.0"], old, True, "1.20.0-1", [], SPEC)["action"] == "keep"


def test_the_check_after_generation_reads_the_plans_limits_and_previews_skip_versions_and_management():
    listing = "dir\t/etc/cdi\ndev\tnvidia.com/gpu=all\ndir\t/var/run/cdi\nversion\t%s\t0.7.0" % SPEC
    probe = _probe("containerd containerd.io 1.7.13 x")
    planned = preflight_plan(probe, _settings(management=True))
    assert "check" not in planned and planned["management_spec"] == MSPEC
    check = cdi_check(listing, SPEC, planned["cdi_spec_plan"]["limits"], planned["management_spec"])
    assert check["problems"] == [
        "nvidia-ctk cdi list shows no management.nvidia.com/gpu=all in /etc/cdi (%s)" % MSPEC,
        "/etc/cdi/nvidia.yaml is CDI spec 0.7.0, which containerd 1.7.13 cannot read (it reads up to 0.6.0): upgrade "
        "containerd to 1.7.16 or later, or pin container_toolkit_version to a release that writes an older spec"]
    assert cdi_check(listing, SPEC, planned["cdi_spec_plan"]["limits"], planned["management_spec"], preview=True)["ok"]
