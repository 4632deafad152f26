# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.package_steps: the steps around a driver install (module stream, holds, pin, blacklist), with the outputs
dnf, dpkg-query and rpm print."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, package_steps

# dpkg-query -W -f='${Package}\t${Version}\t${db:Status-Abbrev}\n' after the install of branch 580 (one held already,
# the container toolkit and an older libxnvctrl0 beside it)
DPKG = ("libnvidia-compute-580\t580.95.05-1\tii \nnvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\tii \n"
        "nvidia-container-toolkit\t1.17.8-1\tii \nlibxnvctrl0\t510.47.03-0ubuntu1\tii \nnvidia-dkms-575-open\t575.57.08-1\trc \n")
RPM = "nvidia-open\t580.95.05-1.el9\tii\nkmod-nvidia-open-dkms\t580.95.05-1.el9\tii\nnvidia-driver-cuda\t580.95.05-1.el9\tii\n"
# dnf --quiet module list --enabled nvidia-driver (RHEL 9)
STREAMS = ("Name           Stream        Profiles                      Summary\n"
           "nvidia-driver  580-open [e]  default [d], fm, ks, src      Nvidia driver for 580-open branch\n\n"
           "Hint: [d]efault, [e]nabled, [x]disabled, [i]nstalled\n")
# dnf --quiet versionlock list
LOCKS = "nvidia-open-3:580.95.05-1.el9.*\nkmod-nvidia-open-dkms-3:580.95.05-1.el9.*\n"


def test_the_installed_driver_packages_are_its_branchs():
    assert package_steps.installed(DPKG) == {
        "version": "580.95.05", "branch": "580", "flavor": "open",
        "names": ["libnvidia-compute-580", "nvidia-driver-pinning-580", "nvidia-open"],
        "held": ["nvidia-open"], "unheld": ["libnvidia-compute-580", "nvidia-driver-pinning-580"]}
    assert package_steps.installed("") == {"version": None, "branch": None, "flavor": None, "names": [], "held": [],
                                           "unheld": []}


def test_what_to_hold_apt_unheld_dnf_not_versionlocked():
    assert package_steps.to_hold("apt", package_steps.installed(DPKG)) == [
        "libnvidia-compute-580", "nvidia-driver-pinning-580"]
    assert package_steps.to_hold("dnf", package_steps.installed(RPM), LOCKS) == ["nvidia-driver-cuda"]
    assert package_steps.to_hold("dnf", package_steps.installed(RPM), "") == [
        "kmod-nvidia-open-dkms", "nvidia-driver-cuda", "nvidia-open"]


@pytest.mark.parametrize("manager, names, unhold, hold", [
    ("apt", ["nvidia-open", "libnvidia-compute-580"], ["apt-mark", "unhold", "nvidia-open", "libnvidia-compute-580"],
     ["apt-mark", "hold", "nvidia-open", "libnvidia-compute-580"]),
    ("dnf", ["*nvidia*"], ["dnf", "versionlock", "delete", "*nvidia*"], ["dnf", "versionlock", "add", "*nvidia*"]),
    ("apt", [], [], []),
    ("dnf", ["", None], [], []),
])
def test_hold_and_unhold_commands(manager, names, unhold, hold):
    assert package_steps.unhold_argv(manager, names) == unhold
    assert package_steps.hold_argv(manager, names) == hold


def test_the_module_stream_enabled_or_to_enable():
    assert package_steps.stream_enabled(STREAMS, "nvidia-driver:580-open") is True
    assert package_steps.stream_enabled(STREAMS, "nvidia-driver:580-dkms") is False
    assert package_steps.stream_enabled(STREAMS, "nvidia-driver:58") is False
    assert package_steps.stream_enabled("", "nvidia-driver:580-open") is False  # exit 1: none enabled
    assert package_steps.stream_argv("nvidia-driver:580-open") == ["dnf", "-y", "module", "enable",
                                                                   "nvidia-driver:580-open"]
    assert package_steps.stream_argv("nvidia-driver:590-open", "latest") == [
        "dnf", "-y", "module", "switch-to", "nvidia-driver:590-open"]


EL10_LOCKS = ("Last metadata expiration check: 0:01:02 ago.\n"
              "nvidia-open-3:580.95.05-1.el10.*\n"
              "kmod-nvidia-open-dkms-3:580.95.05-1.el10.*\n")


@pytest.mark.parametrize("locks, pattern, locked", [
    (EL10_LOCKS, "*nvidia*580*", True),
    (EL10_LOCKS, "*nvidia*595*", False),
    ("*nvidia*580*\n", "*nvidia*580*", True),  # a pattern listed as it is
    ("cuda-toolkit-13-0-0:13.0.2-1.*\nnvidia-open-3:5800.1-1.el10.*\n", "*nvidia*580*", False),
    ("", "*nvidia*580*", False),  # nothing locked yet, or no versionlock plugin
    ("", "", True),  # no pattern: nothing to lock (EL 9, Debian)
])
def test_the_branch_lock_of_el10(locks, pattern, locked):
    assert package_steps.branch_locked(locks, pattern) is locked


def test_the_branch_lock_command():
    assert package_steps.branch_lock_argv("*nvidia*580*") == ["dnf", "versionlock", "add", "*nvidia*580*"]
    assert package_steps.branch_lock_argv("") == []


def test_the_probe_is_the_os_familys():
    assert package_steps.probe_argv("apt")[:2] == ["dpkg-query", "-W"]
    assert package_steps.probe_argv("dnf") == ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "nvidia-*",
                                               "kmod-nvidia*", "libnvidia-*", "cuda-drivers*"]


def test_the_branch_pin_and_the_unattended_upgrades_blacklist():
    assert package_steps.pin_file({"path": "/etc/apt/preferences.d/blackwell-nvidia-driver-580", "branch": 580},
                                  ["cuda-drivers-580"]) == {
        "path": "/etc/apt/preferences.d/blackwell-nvidia-driver-580",
        "content": "# Managed by blackwell.pytorch.nvidia_driver: keeps apt on NVIDIA driver branch 580\n"
                   "# (cuda-drivers-580 would otherwise pull in a newer branch).\n"
                   "Package: *nvidia* cuda-drivers* libcuda* libxnvctrl*\n"
                   "Pin: version 580.*\n"
                   "Pin-Priority: 1000\n"}
    assert package_steps.pin_file(None, ["cuda-drivers-580"]) is None
    found = package_steps.installed(DPKG)
    assert package_steps.uu_file("/etc/apt/apt.conf.d/51blackwell-nvidia-driver", found) == {
        "path": "/etc/apt/apt.conf.d/51blackwell-nvidia-driver",
        "content": managed_files.uu_blacklist(["libnvidia-compute-580", "nvidia-driver-pinning-580", "nvidia-open"])}
    assert managed_files.uu_blacklist(["nvidia-open", "libnvidia-compute-580"]) == (
        "// Managed by blackwell.pytorch.nvidia_driver: the NVIDIA driver moves only when the role is\n"
        "// asked to (nvidia_driver_upgrade), never under a running system. Regular expressions.\n"
        "Unattended-Upgrade::Package-Blacklist {\n"
        '    "^nvidia-open$";\n'
        '    "^libnvidia-compute-580$";\n'
        "};\n")
    assert package_steps.uu_file("", found) is None
    assert package_steps.uu_file("/etc/apt/apt.conf.d/51blackwell-nvidia-driver", package_steps.installed("")) is None
