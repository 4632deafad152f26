# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""os_facts: the OS facts preflight_facts returns, from real os-release files of the supported systems."""
import os
import pwd

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import os_facts, preflight

DEBIAN_12 = '''PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"
NAME="Debian GNU/Linux"
VERSION_ID="12"
VERSION="12 (bookworm)"
VERSION_CODENAME=bookworm
ID=debian
HOME_URL="https://www.debian.org/"
'''
UBUNTU_2404 = '''PRETTY_NAME="Ubuntu 24.04.1 LTS"
NAME="Ubuntu"
VERSION_ID="24.04"
VERSION="24.04.1 LTS (Noble Numbat)"
VERSION_CODENAME=noble
ID=ubuntu
ID_LIKE=debian
UBUNTU_CODENAME=noble
'''
ROCKY_9 = '''NAME="Rocky Linux"
VERSION="9.4 (Blue Onyx)"
ID="rocky"
ID_LIKE="rhel centos fedora"
VERSION_ID="9.4"
PLATFORM_ID="platform:el9"
'''
RHEL_9 = '''NAME="Red Hat Enterprise Linux"
VERSION="9.5 (Plow)"
ID="rhel"
ID_LIKE="fedora"
VERSION_ID="9.5"
'''
ALMA_9 = 'NAME="AlmaLinux"\nID="almalinux"\nID_LIKE="rhel centos fedora"\nVERSION_ID="9.5"\n'
UBUNTU_2204 = 'NAME="Ubuntu"\nVERSION_ID="22.04"\nID=ubuntu\nID_LIKE=debian\nVERSION_CODENAME=jammy\n'
UBUNTU_2604 = ('PRETTY_NAME="Ubuntu 26.04 LTS"\nNAME="Ubuntu"\nVERSION_ID="26.04"\nVERSION="26.04 LTS"\n'
               'VERSION_CODENAME=resolute\nID=ubuntu\nID_LIKE=debian\nUBUNTU_CODENAME=resolute\n')
DEBIAN_13 = 'NAME="Debian GNU/Linux"\nVERSION_ID="13"\nVERSION_CODENAME=trixie\nID=debian\n'
RHEL_10 = ('NAME="Red Hat Enterprise Linux"\nID="rhel"\nID_LIKE="fedora"\nVERSION_ID="10.0"\n'
           'PLATFORM_ID="platform:el10"\n')
ROCKY_10 = ('NAME="Rocky Linux"\nID="rocky"\nID_LIKE="rhel centos fedora"\nVERSION_ID="10.1"\n'
            'PLATFORM_ID="platform:el10"\n')
ALMA_10 = ('NAME="AlmaLinux"\nID="almalinux"\nID_LIKE="rhel centos fedora"\nVERSION_ID="10.0"\n'
           'PLATFORM_ID="platform:el10"\n')
DERIVATIVE = '# a derivative\nNAME="Tuxedo OS"\nID=tuxedo\nID_LIKE="ubuntu debian"\nVERSION_ID="24.04"\n'


@pytest.mark.parametrize("text, debian_version, expected", [
    (DEBIAN_12, "12.7\n", ("Debian", "12.7", "12", "Debian")),
    (DEBIAN_12, "trixie/sid\n", ("Debian", "12", "12", "Debian")),
    (UBUNTU_2404, "trixie/sid\n", ("Ubuntu", "24.04", "24", "Debian")),
    (ROCKY_9, "", ("Rocky", "9.4", "9", "RedHat")),
    (RHEL_9, "", ("RedHat", "9.5", "9", "RedHat")),
    (ALMA_9, "", ("AlmaLinux", "9.5", "9", "RedHat")),
    (UBUNTU_2204, "bookworm/sid\n", ("Ubuntu", "22.04", "22", "Debian")),
    (UBUNTU_2604, "forky/sid\n", ("Ubuntu", "26.04", "26", "Debian")),
    (DEBIAN_13, "13.1\n", ("Debian", "13.1", "13", "Debian")),
    (RHEL_10, "", ("RedHat", "10.0", "10", "RedHat")),
    (ROCKY_10, "", ("Rocky", "10.1", "10", "RedHat")),
    (ALMA_10, "", ("AlmaLinux", "10.0", "10", "RedHat")),
    (DERIVATIVE, "", ("Tuxedo OS", "24.04", "24", "Debian")),
    ("", "", ("OtherLinux", "", "", "OtherLinux")),
])
def test_distribution_facts_name_the_system_as_the_setup_module_does(text, debian_version, expected):
    facts = os_facts.distribution_facts(text, debian_version)
    assert (facts["distribution"], facts["distribution_version"], facts["distribution_major_version"],
            facts["os_family"]) == expected


def test_parse_os_release_unquotes_and_skips_comments():
    fields = os_facts.parse_os_release('# c\n\nNAME="A \\"B\\""\nID=\'x\'\nBAD LINE\nEMPTY=\n')
    assert fields == {"NAME": 'A "B"', "ID": "x", "EMPTY": ""}


def test_host_facts_are_ansible_prefixed_with_the_python_and_user():
    facts = os_facts.host_facts(UBUNTU_2404, "", "6.8.0-49-generic", "x86_64",
                                {"executable": "/usr/bin/python3", "version_info": [3, 12, 3, "final", 0]},
                                0, 0, "root")
    assert facts["ansible_kernel"] == "6.8.0-49-generic"
    assert facts["ansible_architecture"] == "x86_64"
    assert facts["ansible_python"]["executable"] == "/usr/bin/python3"
    assert facts["ansible_python"]["version"] == {
        "major": 3, "minor": 12, "micro": 3, "releaselevel": "final", "serial": 0}
    assert facts["ansible_python_version"] == "3.12.3"
    assert (facts["ansible_user_id"], facts["ansible_user_uid"], facts["ansible_effective_user_id"]) == ("root", 0, 0)
    assert facts["ansible_os_family"] == "Debian"
    assert all(key.startswith("ansible_") for key in facts)


def test_current_user_is_the_effective_one():
    user = os_facts.current_user()
    assert user == {"uid": os.geteuid(), "name": pwd.getpwuid(os.geteuid()).pw_name}


@pytest.mark.parametrize("text, debian_version, label", [
    (UBUNTU_2204, "", "Ubuntu 22.04"), (UBUNTU_2404, "", "Ubuntu 24.04"), (UBUNTU_2604, "", "Ubuntu 26.04"),
    (DEBIAN_12, "12.7\n", "Debian 12"), (DEBIAN_13, "13.1\n", "Debian 13"),
    (RHEL_9, "", "RedHat 9"), (ROCKY_9, "", "Rocky 9"), (ALMA_9, "", "AlmaLinux 9"),
    (RHEL_10, "", "RedHat 10"), (ROCKY_10, "", "Rocky 10"), (ALMA_10, "", "AlmaLinux 10"),
])
def test_every_listed_system_is_labelled_as_preflight_supported_os_names_it(text, debian_version, label):
    """Each system of the README's support table, supported or prepared: its label is the one the list would name
    (tests/unit/roles/test_platforms.py checks the list itself; Ubuntu 26.04 and EL 10 are prepared, not in it)."""
    facts = os_facts.distribution_facts(text, debian_version)
    assert preflight.os_label(facts["distribution"], facts["distribution_version"],
                              facts["distribution_major_version"]) == label
