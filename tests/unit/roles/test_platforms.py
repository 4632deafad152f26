# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One platform list: every role's meta/main.yml platforms name the systems of preflight_supported_os (its default
and its argument spec's), and the README's support table has a row for each. The one exception, kept here:
the container_toolkit role installs from NVIDIA's flat apt repository only, so its platforms are its own
container_toolkit_supported_os, a part of the collection's list."""
from __future__ import annotations

import os
import re

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ROLES = sorted(name for name in os.listdir(os.path.join(ROOT, "roles"))
               if os.path.exists(os.path.join(ROOT, "roles", name, "meta", "main.yml")))
# Galaxy's platform versions -> the "<distribution> <version>" labels preflight compares (preflight.os_label).
UBUNTU = {"jammy": "22.04", "noble": "24.04", "resolute": "26.04"}
DEBIAN = {"bookworm": "12", "trixie": "13"}
EL_DISTRIBUTIONS = ("RedHat", "Rocky", "AlmaLinux")
# Roles that support fewer systems than the collection, with the variable that lists theirs and why.
EXCEPTIONS = {"container_toolkit": ("container_toolkit_supported_os",
                                    "apt only: NVIDIA's container toolkit repository is a flat Debian one here")}
SUPPORTED = ["Ubuntu 22.04", "Ubuntu 24.04", "Debian 12", "Debian 13", "RedHat 9", "Rocky 9", "AlmaLinux 9"]
# Known to the repository layout and the os-release parsing, not supported yet (README.md, "Support", says why).
PREPARED = ["Ubuntu 26.04", "RedHat 10", "Rocky 10", "AlmaLinux 10"]


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def labels(platforms):
    """The preflight labels of a meta/main.yml platforms list."""
    found = []
    for platform in platforms:
        for version in platform["versions"]:
            if platform["name"] == "Ubuntu":
                found.append("Ubuntu " + UBUNTU[version])
            elif platform["name"] == "Debian":
                found.append("Debian " + DEBIAN[version])
            else:
                assert platform["name"] == "EL", platform
                found.extend("%s %s" % (name, version) for name in EL_DISTRIBUTIONS)
    return sorted(found)


def test_the_collection_list_is_the_preflight_default_and_its_argument_spec():
    assert load("roles", "preflight", "defaults", "main.yml")["preflight_supported_os"] == SUPPORTED
    spec = load("roles", "preflight", "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]
    assert spec["preflight_supported_os"]["default"] == SUPPORTED


def test_every_role_has_platforms():
    assert ROLES == ["_common", "container_toolkit", "cuda_toolkit", "fleet_report", "nvidia_driver", "preflight",
                     "pytorch", "tools", "verify"]


@pytest.mark.parametrize("role", [role for role in ROLES if role not in EXCEPTIONS])
def test_role_platforms_are_the_collection_list(role):
    assert labels(load("roles", role, "meta", "main.yml")["galaxy_info"]["platforms"]) == sorted(SUPPORTED)


@pytest.mark.parametrize("role", sorted(EXCEPTIONS))
def test_an_exception_lists_its_own_systems_and_only_supported_ones(role):
    variable, _why = EXCEPTIONS[role]
    own = load("roles", role, "defaults", "main.yml")[variable]
    assert own == ["Ubuntu 22.04", "Ubuntu 24.04", "Debian 12", "Debian 13"]
    assert labels(load("roles", role, "meta", "main.yml")["galaxy_info"]["platforms"]) == sorted(own)
    assert set(own) < set(SUPPORTED)


def test_the_readme_support_table_has_a_row_for_every_system():
    with open(os.path.join(ROOT, "README.md")) as handle:
        text = handle.read()
    table = text[text.index("## Support"):]
    table = table[:table.index("\n\n", table.index("| OS |"))]
    rows = [line.split("|")[1].strip() for line in table.splitlines() if line.startswith("| ")][1:]
    assert rows == ["Debian 12", "Debian 13", "Ubuntu 24.04", "Ubuntu 22.04", "Ubuntu 26.04",
                    "RHEL / Rocky / AlmaLinux 9", "RHEL / Rocky / AlmaLinux 10"]
    named = set()
    for row in rows:
        head, _sep, version = row.rpartition(" ")
        names = ["RedHat", "Rocky", "AlmaLinux"] if head.startswith("RHEL") else [head]
        named.update("%s %s" % (name, version) for name in names)
    assert named == set(SUPPORTED) | set(PREPARED)
    assert re.search(r"\| Ubuntu 24\.04 \| [^|\n]*GPU", table)
    for row in ("Ubuntu 26.04", "RHEL / Rocky / AlmaLinux 10"):  # said to be not supported yet, and why
        assert re.search(r"\| %s \| not supported yet: " % re.escape(row), table), row


def test_a_prepared_system_is_refused_by_the_preflight_unless_allowed():
    assert not set(PREPARED) & set(load("roles", "preflight", "defaults", "main.yml")["preflight_supported_os"])
