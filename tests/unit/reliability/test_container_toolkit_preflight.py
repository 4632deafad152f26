# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""container_toolkit's preflight refuses an OS it does not support, before any change (row C8).

No image of another OS can be built offline, so the OS comes from what the preflight role
publishes (blackwell_preflight), as it would on a Rocky 9 host; the rest of the preflight runs
for real on this machine (its probe only reads), in check mode.
"""
from __future__ import annotations

import copy

import pytest

from playbook import PREFLIGHT, outcome, run


def _preflight(distribution, version, family):
    published = copy.deepcopy(PREFLIGHT)
    published["os"].update(label="%s %s" % (distribution, version), distribution=distribution,
                           version=version, family=family)
    return published


HOSTS = {
    "rocky9": {"blackwell_preflight": _preflight("Rocky", "9", "RedHat")},
    "fedora41": {"blackwell_preflight": _preflight("Fedora", "41", "RedHat")},
    "debian12": {"blackwell_preflight": _preflight("Debian", "12", "Debian")},
}


@pytest.fixture(scope="module")
def play(tmp_path_factory):
    inventory = {name: dict(values, container_toolkit_require_driver=False, container_toolkit_runtimes=[])
                 for name, values in HOSTS.items()}
    tasks = [{"name": "Run the preflight of container_toolkit", "ansible.builtin.include_role": {
        "name": "blackwell.pytorch.container_toolkit", "tasks_from": "preflight"}}]
    _rc, stdout, stderr = run(tmp_path_factory.mktemp("ctk"), tasks, inventory)
    assert "plays" in stdout, stderr
    return stdout


@pytest.mark.parametrize("host,label", [("rocky9", "Rocky 9"), ("fedora41", "Fedora 41")])
def test_container_toolkit_refuses_an_unsupported_os_before_any_change(play, host, label):
    result = outcome(play, host)
    assert result["failed_task"] and "Refuse an unsupported system" in result["failed_task"], result
    assert "%s is not supported by the container_toolkit role (container_toolkit_supported_os: " % label \
        in result["msg"], result["msg"]
    assert result["changed_before"] == [], result


def test_container_toolkit_does_not_refuse_a_supported_os_for_its_os(play):
    result = outcome(play, "debian12")
    assert "is not supported by the container_toolkit role" not in (result["msg"] or ""), result
    assert result["changed_before"] == [], result
