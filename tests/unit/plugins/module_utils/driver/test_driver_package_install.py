# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.package_install: apt-get's argv, its summary, the progress line and the errors from its log."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import package_install

# apt-get install output (non-interactive, no tty) of the fixture repository, shortened.
APT_LOG = """Reading package lists...
Building dependency tree...
The following NEW packages will be installed:
  nvidia-dkms-580-open nvidia-kernel-source-580-open nvidia-open
0 upgraded, 3 newly installed, 0 to remove and 4 not upgraded.
Need to get 512 MB/1,024 MB of archives.
Get:1 http://127.0.0.1:8580/nvidia/debian12/x86_64  nvidia-kernel-source-580-open 580.95.05-1 [510 MB]
Get:2 http://127.0.0.1:8580/nvidia/debian12/x86_64  nvidia-open 580.95.05-1 [2,048 kB]
Fetched 512 MB in 9s (56.9 MB/s)
Unpacking nvidia-open (580.95.05-1) ...
Setting up nvidia-dkms-580-open (580.95.05-1) ...
Building initial module for 6.1.0-28-amd64
"""


def test_install_argv_present_latest_and_check():
    assert package_install.install_argv(["nvidia-open"], "present", 30) == [
        "apt-get", "install", "-y", "-o", "DPkg::Lock::Timeout=30", "-o", "Dpkg::Options::=--force-confdef",
        "-o", "Dpkg::Options::=--force-confold", "--no-upgrade", "nvidia-open"]
    latest = package_install.install_argv(["nvidia-open", "nvidia-driver-pinning-580"], "latest", -5, check=True)
    assert "--no-upgrade" not in latest and "DPkg::Lock::Timeout=0" in latest
    assert latest[-3:] == ["-s", "nvidia-open", "nvidia-driver-pinning-580"]


@pytest.mark.parametrize("names, state, message", [
    ([], "present", "no package to install"), (["", None], "present", "no package to install"),
    (["nvidia-open"], "absent", "state must be one of present, latest, not 'absent'")])
def test_install_argv_refuses(names, state, message):
    with pytest.raises(ValueError, match=message):
        package_install.install_argv([n for n in names if n is not None], state)


def test_summary_and_changed():
    assert package_install.summary(APT_LOG) == {"upgraded": 0, "installed": 3, "removed": 0}
    assert package_install.changed(APT_LOG)
    unchanged = "nvidia-open is already the newest version (580.95.05-1).\n0 upgraded, 0 newly installed, 0 to remove.\n"
    assert package_install.summary(unchanged) == {"upgraded": 0, "installed": 0, "removed": 0}
    assert not package_install.changed(unchanged)
    assert package_install.summary("E: Unable to locate package nvidia-open\n") is None
    assert not package_install.changed("")


def test_progress_counts_packages_and_megabytes_and_names_the_last_step():
    assert package_install.progress(APT_LOG) == (
        "2/3 packages fetched, 512.0 of 512.0 MB; Building initial module for 6.1.0-28-amd64")
    assert package_install.progress("") == "0 packages fetched, 0.0 MB; starting"
    first = "\n".join(APT_LOG.splitlines()[:7])
    assert package_install.progress(first) == (
        "1/3 packages fetched, 510.0 of 512.0 MB; Get:1 http://127.0.0.1:8580/nvidia/debian12/x86_64  "
        "nvidia-kernel-source-580-open 580.95.05-1 [510 MB]")


def test_errors_are_apts_e_lines():
    text = ("Reading package lists...\nE: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 77 "
            "(unattended-upgr)\nE: Unable to acquire the dpkg frontend lock\n")
    assert package_install.errors(text) == (
        "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 77 (unattended-upgr) | "
        "E: Unable to acquire the dpkg frontend lock")
    assert package_install.errors(APT_LOG) == ""
