# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import preflight

DISK_OK = {"path": "/opt", "measured_at": "/opt", "mount": "/", "free_gib": 52.3, "total_gib": 100.0,
           "min_free_gib": 20.0, "ok": True}
DISK_SHORT = dict(DISK_OK, free_gib=5.2, ok=False)
SUPPORTED = ["Ubuntu 24.04", "Debian 12"]


@pytest.mark.parametrize("facts,label", [
    (("Ubuntu", "24.04", "24"), "Ubuntu 24.04"),
    (("Debian", "12.7", "12"), "Debian 12"),
    (("Rocky", "9.4", "9"), "Rocky 9"),
])
def test_os_label_names_ubuntu_by_full_version_and_the_others_by_major(facts, label):
    assert preflight.os_label(*facts) == label


@pytest.mark.parametrize("connection,controller,target,local", [
    ("local", "", "", True),
    ("ssh", "abc", "abc", True),
    ("ssh", "abc", "def", False),
    ("ssh", "", "", False),          # no machine id on either side is not a match
    ("ssh", " abc\n", "abc", True),
])
def test_connection_is_local(connection, controller, target, local):
    assert preflight.connection_is_local(connection, controller, target) is local


def test_no_refusal_for_a_good_host():
    assert preflight.refusals("ws", "Debian 12", SUPPORTED, False, 1, True, [], [DISK_OK]) == []


def test_every_refusal_in_the_roles_order_each_a_whole_message():
    got = preflight.refusals("ws", "Fedora 41", SUPPORTED, False, 0, True,
                             ["the pytorch stage changes the host and needs root", "second"], [DISK_OK, DISK_SHORT])
    assert got == [
        "blackwell.pytorch supports Ubuntu 24.04, Debian 12; ws runs Fedora 41. "
        'To try anyway (untested): make site ARGS="-e preflight_allow_unsupported_os=true"',
        "No NVIDIA GPU found on the PCI bus of ws. To provision without one (image builds, tests): "
        'make site ARGS="-e blackwell_require_gpu=false"',
        "ws: the pytorch stage changes the host and needs root.",
        "ws: second.",
        "Not enough free disk on ws: /opt needs 20.0 GiB free and its mount / has 5.2 GiB.",
    ]


def test_allowed_unsupported_os_and_no_gpu_when_none_is_required_pass():
    assert preflight.refusals("ws", "Fedora 41", SUPPORTED, True, 0, False, [], []) == []


def test_published_fact_and_summary():
    gpus = [{"pci_bus_id": "0000:01:00.0", "name": "NVIDIA GeForce RTX 5090", "sm": "sm_120"}]
    driver = {"loaded": True, "version": "580.95.05", "kernel_module_flavor": "open"}
    headers = {"release": "6.8.0-48-generic", "installed": True, "package": "linux-headers-6.8.0-48-generic",
               "installable": True}
    fact = preflight.published({"distribution": "Ubuntu", "version": "24.04", "major_version": "24",
                                "family": "Debian"}, SUPPORTED, gpus, driver, True, {"state": "disabled"}, headers,
                               [DISK_OK], False, {"executable": "/usr/bin/python3", "pynvml": False},
                               {"uid": 0, "name": "root"}, {"type": "ssh", "local": False})
    assert fact["os"] == {"label": "Ubuntu 24.04", "distribution": "Ubuntu", "version": "24.04",
                          "family": "Debian", "supported": True}
    assert fact["gpus"]["count"] == 1 and fact["gpus"]["sm"] == ["sm_120"]
    assert fact["kernel"] == {"release": "6.8.0-48-generic", "headers_installed": True,
                              "headers_package": "linux-headers-6.8.0-48-generic", "headers_installable": True}
    assert preflight.summary(fact) == (
        "Ubuntu 24.04; 1 NVIDIA GPU(s) sm_120; driver 580.95.05 (open); Secure Boot disabled; headers installed; "
        "nouveau not loaded; connection ssh")
