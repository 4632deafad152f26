# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.headers_check import (
    build_planned, build_planned_before_plan, driver_packages_query, headers_refusal, running_headers_to_install)

MISSING = {"release": "6.1.0-99-amd64", "installed": False, "package": "linux-headers-6.1.0-99-amd64",
           "installable": False}
# blackwell_preflight.kernel's shape, as the roles pass it
PUBLISHED = {"release": "6.1.0-99-amd64", "headers_installed": False,
             "headers_package": "linux-headers-6.1.0-99-amd64", "headers_installable": False}
LEAVE_OUT = "run without the driver stage"


@pytest.mark.parametrize("headers", [MISSING, PUBLISHED], ids=["probe", "published"])
def test_missing_uninstallable_headers_refused_with_what_to_do(headers):
    msg = headers_refusal(headers, True, LEAVE_OUT)
    assert msg == (
        "the driver stage builds the NVIDIA kernel module with DKMS for the running kernel 6.1.0-99-amd64, whose "
        "headers are not installed and not in the package lists (no linux-headers-6.1.0-99-amd64). Install that "
        "kernel's headers from where the kernel came, or boot a kernel whose headers the repositories have (the "
        "distribution's current one) and run again, or run without the driver stage")


@pytest.mark.parametrize("change", [
    {"installed": True},            # headers there: DKMS builds
    {"installable": True},          # the lists offer them: the role installs them
    {"installable": "unknown"},     # no lists to answer from: apt decides after its update
    {"package": ""},                # an OS family whose headers package is not known
])
def test_headers_that_can_be_had_are_not_refused(change):
    assert headers_refusal(dict(MISSING, **change), True, LEAVE_OUT) == ""


def test_no_build_no_refusal_even_without_headers():
    assert headers_refusal(MISSING, False, LEAVE_OUT) == ""


def test_a_build_is_planned_only_when_packages_are_installed():
    assert build_planned("manage", in_place=False) is True
    assert build_planned("manage", in_place=True) is False   # fitting packages there: nothing is built
    assert build_planned("adopt", in_place=False) is False   # a loaded driver no package owns: left alone
    assert build_planned("check", in_place=False) is False
    assert build_planned(None, in_place=False) is False      # refused flavor: the plan says why


def test_before_the_plan_a_loaded_driver_or_installed_packages_leave_it_to_the_role():
    assert build_planned_before_plan({"loaded": False}, "") is True
    assert build_planned_before_plan({"loaded": True, "version": "580.95.05"}, "") is False
    assert build_planned_before_plan({"loaded": False}, "nvidia-open\t580.95.05-1\tii \n") is False
    # a removed package (dpkg "rc") and the container toolkit are no driver
    not_a_driver = "nvidia-dkms-550\t550.54.14-0ubuntu1\trc \nnvidia-container-toolkit\t1.17.8-1\tii \n"
    assert build_planned_before_plan({"loaded": False}, not_a_driver) is True


def test_uninstallable_running_headers_are_left_out_of_the_install():
    assert running_headers_to_install(MISSING) == ""
    assert running_headers_to_install(PUBLISHED) == ""
    assert running_headers_to_install(dict(MISSING, installable=True)) == "linux-headers-6.1.0-99-amd64"
    assert running_headers_to_install(dict(MISSING, installable="unknown")) == "linux-headers-6.1.0-99-amd64"
    assert running_headers_to_install({"package": "", "installable": True}) == ""


def test_driver_packages_query_per_family():
    assert driver_packages_query("Debian")[:2] == ["dpkg-query", "-W"]
    assert driver_packages_query("RedHat")[:2] == ["rpm", "-qa"]
    assert driver_packages_query("Suse") is None
