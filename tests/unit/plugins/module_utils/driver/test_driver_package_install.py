# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.package_install: the commands of an apt or dnf install, success, the summary, the progress line and
the errors, over package manager logs (package_logs/: apt-get's own output of a Debian 12 install, dpkg's carriage
returns written as the line ends they read as; dnf 4's as it prints it without a terminal)."""
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import package_install

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "package_logs")


def log(name):
    with open(os.path.join(LOGS, name)) as handle:
        return handle.read()


# apt-get install output of the driver (non-interactive, no tty), the DKMS build at its end, shortened.
APT_LOG = """Reading package lists...
Building dependency tree...
The following NEW packages will be installed:
  nvidia-dkms-580-open nvidia-kernel-source-580-open nvidia-open
0 upgraded, 3 newly installed, 0 to remove and 4 not upgraded.
Need to get 512 MB/1,024 MB of archives.
Get:1 http://127.0.0.1:8580/nvidia/debian12/x86_64  nvidia-kernel-source-580-open 580.95.05-1 [510 MB]
Get:2 http://127.0.0.1:8580/nvidia/debian12/x86_64  nvidia-open 580.95.05-1 [2048 kB]
Fetched 512 MB in 9s (56.9 MB/s)
Unpacking nvidia-open (580.95.05-1) ...
Setting up nvidia-dkms-580-open (580.95.05-1) ...
Loading new nvidia-580.95.05 DKMS files...
Building for 6.1.0-28-amd64
Building initial module for 6.1.0-28-amd64
"""


def test_install_argv_present_latest_and_check():
    assert package_install.install_argv(["nvidia-open"], "present", 30) == [
        "apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=30", "-o", "Dpkg::Options::=--force-confdef",
        "-o", "Dpkg::Options::=--force-confold", "--no-upgrade", "nvidia-open"]
    latest = package_install.install_argv(["nvidia-open", "nvidia-driver-pinning-580"], "latest", -5, check=True)
    assert "--no-upgrade" not in latest and "DPkg::Lock::Timeout=0" in latest
    assert latest[-3:] == ["-s", "nvidia-open", "nvidia-driver-pinning-580"]
    assert package_install.install_argvs(["nvidia-open"], "present", 30) == [
        package_install.install_argv(["nvidia-open"], "present", 30)]


def test_dnf_commands_present_latest_and_check():
    toolkits = ["cuda-toolkit-12-8", "cuda-toolkit-13-0"]
    assert package_install.install_argvs(toolkits, manager="dnf") == [["dnf", "-y", "install"] + toolkits]
    assert package_install.install_argvs(toolkits, manager="dnf", check=True) == [
        ["dnf", "--assumeno", "install"] + toolkits]
    # latest: dnf upgrades only what is installed and installs only what is not
    assert package_install.install_argvs(toolkits, "latest", manager="dnf", installed=["cuda-toolkit-12-8"]) == [
        ["dnf", "-y", "install", "cuda-toolkit-13-0"], ["dnf", "-y", "upgrade", "cuda-toolkit-12-8"]]
    assert package_install.install_argvs(["nvidia-open"], "latest", manager="dnf", installed=["nvidia-open"],
                                         check=True) == [["dnf", "--assumeno", "upgrade", "nvidia-open"]]
    assert package_install.install_argvs(["nvidia-open"], "latest", manager="dnf") == [
        ["dnf", "-y", "install", "nvidia-open"]]


def test_rpm_installed_reads_rpm_q():
    out = "cuda-toolkit-12-8\npackage cuda-toolkit-13-0 is not installed\n"
    assert package_install.rpm_installed(["cuda-toolkit-12-8", "cuda-toolkit-13-0"], out) == ["cuda-toolkit-12-8"]
    assert package_install.rpm_installed(["nvidia-open"], "") == []
    assert package_install.RPM_QUERY == ["rpm", "-q", "--queryformat", "%{NAME}\\n"]


@pytest.mark.parametrize("names, state, manager, message", [
    ([], "present", "apt", "no package to install"), (["", None], "present", "dnf", "no package to install"),
    (["nvidia-open"], "absent", "apt", "state must be one of present, latest, not 'absent'"),
    (["nvidia-open"], "present", "zypper", "manager must be one of apt, dnf, not 'zypper'")])
def test_install_argvs_refuses(names, state, manager, message):
    with pytest.raises(ValueError, match=message):
        package_install.install_argvs(names, state, manager=manager)


@pytest.mark.parametrize("name, manager", [
    ("apt_install.log", "apt"), ("apt_simulate.log", "apt"), ("apt_missing.log", "apt"),
    ("apt_nothing_to_do.log", "apt"), ("dnf_toolkit_install.log", "dnf"), ("dnf_toolkit_check.log", "dnf"),
    ("dnf_nothing_to_do.log", "dnf"), ("dnf_missing.log", "dnf"), ("dnf_driver_dkms.log", "dnf"),
    ("dnf_depsolve.log", "dnf")])
def test_the_log_tells_its_manager(name, manager):
    assert package_install.manager_of(log(name)) == manager
    assert package_install.manager_of(log(name), "apt" if manager == "dnf" else "dnf") != manager  # the word wins
    assert package_install.manager_of(log(name), "auto") == manager


def test_succeeded_counts_a_check_runs_aborted_dnf_transaction():
    check = log("dnf_toolkit_check.log")
    assert package_install.succeeded(1, check, check=True, manager="dnf")
    assert not package_install.succeeded(1, check, check=False, manager="dnf")
    assert not package_install.succeeded(1, log("dnf_missing.log"), check=True, manager="dnf")
    assert not package_install.succeeded(100, log("apt_missing.log"), check=True, manager="apt")
    assert package_install.succeeded(0, log("apt_simulate.log"), check=True)


@pytest.mark.parametrize("name, counts, changed", [
    ("apt_install.log", {"upgraded": 0, "installed": 40, "removed": 0}, True),
    ("apt_simulate.log", {"upgraded": 0, "installed": 119, "removed": 0}, True),
    ("apt_nothing_to_do.log", {"upgraded": 0, "installed": 0, "removed": 0}, False),
    ("apt_missing.log", None, False),
    ("dnf_toolkit_install.log", {"installed": 24, "upgraded": 0, "removed": 0, "downgraded": 0}, True),
    ("dnf_toolkit_check.log", {"installed": 24, "upgraded": 0, "removed": 0, "downgraded": 0}, True),
    ("dnf_latest.log", {"installed": 3, "upgraded": 2, "removed": 0, "downgraded": 0}, True),
    ("dnf_nothing_to_do.log", {"installed": 0, "upgraded": 0, "removed": 0, "downgraded": 0}, False),
    ("dnf_missing.log", None, False)])
def test_summary_and_changed(name, counts, changed):
    assert package_install.summary(log(name)) == counts
    assert package_install.changed(log(name)) is changed


def test_apt_progress_counts_packages_megabytes_and_steps():
    assert package_install.progress(APT_LOG) == (
        "2/3 packages fetched, 512.0 of 512.0 MB (100%), 1/3 unpacked, 1/3 set up; "
        "Building initial module for 6.1.0-28-amd64")
    assert package_install.progress("") == "0 packages fetched, 0.0 MB; starting"
    lines = log("apt_install.log").splitlines()
    assert package_install.progress("\n".join(lines[:31])) == (
        "0/40 packages fetched, 0.0 of 56.5 MB (0%); starting")
    assert package_install.progress("\n".join(lines[:50])) == (
        "19/40 packages fetched, 22.9 of 56.5 MB (40%); "
        "Get:19 http://deb.debian.org/debian bookworm/main amd64 libgprofng0 amd64 2.40-2 [812 kB]")
    assert package_install.progress("\n".join(lines[:200])) == (
        "40/40 packages fetched, 56.6 of 56.5 MB (100%), 35/40 unpacked; Unpacking bzip2 (1.0.8-5+b1) ...")
    assert package_install.progress(log("apt_install.log"), "apt") == (
        "40/40 packages fetched, 56.6 of 56.5 MB (100%), 40/40 unpacked, 40/40 set up; "
        "Processing triggers for libc-bin (2.36-9+deb12u14) ...")


def test_dnf_progress_counts_downloads_of_the_total_and_names_the_step():
    assert package_install.progress(log("dnf_toolkit_downloading.log")) == (
        "15/24 packages fetched, 37.3 of 2457.6 MB (1%); "
        "Downloaded (15/24) cuda-gdb-12-8-12.8.90-1.x86_64.rpm, 20.0 MB")
    assert package_install.progress(log("dnf_toolkit_install.log"), "dnf") == (
        "24/24 packages fetched, 2480.3 of 2457.6 MB (100%); Complete!")
    assert package_install.progress(log("dnf_driver_dkms.log")) == (
        "12/12 packages fetched, 435.5 of 435.0 MB (100%); Building module:")
    lines = log("dnf_toolkit_install.log").splitlines()
    running = "\n".join(lines[:lines.index("Running transaction") + 13])
    assert package_install.progress(running) == (
        "24/24 packages fetched, 2480.3 of 2457.6 MB (100%); Installing cuda-gdb-12-8-12.8.90-1.x86_64 (11/24)")


def test_errors_are_apts_e_lines_and_dnfs_error_block():
    text = ("Reading package lists...\nE: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 77 "
            "(unattended-upgr)\nE: Unable to acquire the dpkg frontend lock\n")
    assert package_install.errors(text) == (
        "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 77 (unattended-upgr) | "
        "E: Unable to acquire the dpkg frontend lock")
    assert package_install.errors(APT_LOG) == ""
    assert package_install.errors(log("apt_missing.log")) == "E: Unable to locate package nosuchpkg"
    assert package_install.errors(log("dnf_missing.log")) == (
        "No match for argument: cuda-toolkit-12-7 | Error: Unable to find a match: cuda-toolkit-12-7")
    assert package_install.errors(log("dnf_depsolve.log"), "dnf") == (
        "Error: | Problem: conflicting requests | - nothing provides dkms needed by "
        "kmod-nvidia-open-dkms-3:580.95.05-1.el9.noarch from cuda-rhel9-x86_64")
