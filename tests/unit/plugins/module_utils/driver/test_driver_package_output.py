# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.apt_output and driver.dnf_output: what apt-get's and dnf's output say, line by line (package_logs/)."""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import apt_output, dnf_output

LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "package_logs")


def log(name):
    with open(os.path.join(LOGS, name)) as handle:
        return handle.read()


def test_apt_facts_of_a_whole_install_and_of_a_simulation():
    found = apt_output.facts(log("apt_install.log"))
    assert dict(found, mb=round(found["mb"], 1)) == {
        "packages": 40, "fetched": 40, "mb": 56.6, "need": 56.5, "unpacked": 40, "set_up": 40,
        "last": "Processing triggers for libc-bin (2.36-9+deb12u14) ..."}
    assert apt_output.facts(log("apt_simulate.log")) == {
        "packages": 119, "fetched": 0, "mb": 0.0, "need": None, "unpacked": 0, "set_up": 0,
        "last": "Conf manpages-dev (6.03-2 Debian:12.15/oldstable [all])"}
    assert apt_output.facts("") == {"packages": None, "fetched": 0, "mb": 0.0, "need": None, "unpacked": 0,
                                    "set_up": 0, "last": ""}


def test_apt_sizes_and_the_partly_cached_download():
    text = ("Need to get 1290 MB/2,050 MB of archives.\nGet:1 http://mirror.lab/cuda  libcublas-12-8 12.8.4.1-1 [574 MB]\n"
            "Get:2 http://mirror.lab/cuda  cuda-nvcc-12-8 12.8.93-1 [71.3 MB]\nGet:3 http://mirror.lab/cuda  "
            "cuda-toolkit-12-8 12.8.1-1 [3310 B]\nGet:4 http://mirror.lab/cuda  cuda-cccl-12-8 12.8.90-1 [1,612 kB]\n")
    found = apt_output.facts(text)
    assert found["need"] == 1290.0 and found["fetched"] == 4 and round(found["mb"], 4) == 646.9153
    assert apt_output.summary("0 upgraded, 2 newly installed, 1 to remove.\n") == {
        "upgraded": 0, "installed": 2, "removed": 1}


def test_apt_summary_sums_the_installs_of_one_log():
    """The pinning package's install, then the driver's: one log, two summary lines."""
    text = ("$ apt-get install -y --no-upgrade nvidia-driver-pinning-580\n"
            "0 upgraded, 1 newly installed, 0 to remove and 3 not upgraded.\n"
            "$ apt-get install -y --no-upgrade nvidia-open\n"
            "1 upgraded, 6 newly installed, 0 to remove and 3 not upgraded.\n")
    assert apt_output.summary(text) == {"upgraded": 1, "installed": 7, "removed": 0}
    assert apt_output.facts(text)["packages"] == 8
    assert apt_output.summary("$ apt-mark hold nvidia-open\nnvidia-open set on hold.\n") is None


def test_apt_errors():
    assert apt_output.errors(log("apt_missing.log")) == "E: Unable to locate package nosuchpkg"
    assert apt_output.errors(log("apt_install.log")) == ""


def test_dnf_facts_while_downloading_installing_and_building():
    assert dnf_output.facts(log("dnf_toolkit_downloading.log")) == {
        "packages": 24, "fetched": 15, "mb": dnf_output.facts(log("dnf_toolkit_downloading.log"))["mb"],
        "need": 2.4 * 1024, "last": "Downloaded (15/24) cuda-gdb-12-8-12.8.90-1.x86_64.rpm, 20.0 MB"}
    assert round(dnf_output.facts(log("dnf_toolkit_downloading.log"))["mb"], 2) == 37.28
    found = dnf_output.facts(log("dnf_driver_dkms.log"))
    assert (found["packages"], found["fetched"], found["need"], found["last"]) == (12, 12, 435.0, "Building module:")
    check = dnf_output.facts(log("dnf_toolkit_check.log"))
    assert (check["packages"], check["fetched"], check["last"]) == (24, 0, "Operation aborted.")
    # two transactions (latest: install, then upgrade): counts and sizes add up
    latest = dnf_output.facts(log("dnf_latest.log"))
    assert (latest["packages"], latest["fetched"], round(latest["need"], 1)) == (5, 5, 195.6)


def test_dnf_download_lines():
    single = "cuda-toolkit-12-8-12.8.1-1.x86_64.rpm            9.5 kB/s | 9.5 kB     00:01    "
    found = dnf_output.facts("Total download size: 9.5 k\nDownloading Packages:\n" + single + "\n")
    assert found["fetched"] == 1 and found["last"] == "Downloaded cuda-toolkit-12-8-12.8.1-1.x86_64.rpm, 0.0 MB"
    assert round(found["mb"] * 1024, 1) == 9.5 and round(found["need"] * 1024, 1) == 9.5
    total = "Total                                            36 MB/s | 435 MB     00:12     "
    assert dnf_output.facts(total)["fetched"] == 0 and dnf_output.facts(total)["last"] == "Total 36 MB/s | 435 MB 00:12"
    skipped = "[SKIPPED] libcublas-12-8-12.8.4.1-1.x86_64.rpm: Already downloaded"
    assert dnf_output.facts(skipped)["fetched"] == 1
    assert dnf_output.facts(skipped)["last"] == "Already downloaded libcublas-12-8-12.8.4.1-1.x86_64.rpm"
    tiny = "(2/3): cuda-toolkit-config-common-12.8.90-1.noarch.rpm  840  B/s |  840  B     00:01    "
    assert dnf_output.facts(tiny)["mb"] == 840.0 / 1024 ** 2


def test_dnf_transaction_lines():
    assert dnf_output.facts("  Preparing        :                                                        1/1 ")[
        "last"] == "Preparing (1/1)"
    line = "  Running scriptlet: kmod-nvidia-open-dkms-3:580.95.05-1.el9.noarch        2/12 "
    assert dnf_output.facts(line)["last"] == "Running scriptlet kmod-nvidia-open-dkms-3:580.95.05-1.el9.noarch (2/12)"
    line = "  Verifying        : libnvjitlink-12-8-12.8.93-1.x86_64                     23/24 "
    assert dnf_output.facts(line)["last"] == "Verifying libnvjitlink-12-8-12.8.93-1.x86_64 (23/24)"
    assert dnf_output.facts("Installing:\n cuda-toolkit-12-8   x86_64  12.8.1-1  cuda-rhel9-x86_64  9.6 k\n")[
        "last"] == ""


def test_dnf_summary_aborted_and_errors():
    assert dnf_output.summary("Transaction Summary\n=====\nInstall    3 Packages\nUpgrade    1 Package\n"
                              "Remove     1 Package\nDowngrade  2 Packages\nSkip       4 Packages\n") == {
        "installed": 3, "upgraded": 1, "removed": 1, "downgraded": 2}
    assert dnf_output.summary(log("dnf_nothing_to_do.log")) == dict.fromkeys(
        ("installed", "upgraded", "removed", "downgraded"), 0)
    assert dnf_output.summary(log("dnf_depsolve.log")) is None
    assert dnf_output.aborted(log("dnf_toolkit_check.log")) and dnf_output.aborted("Error: Operation aborted.\n")
    assert not dnf_output.aborted(log("dnf_toolkit_install.log"))
    assert dnf_output.errors(log("dnf_toolkit_install.log")) == ""
    assert dnf_output.errors("Error: \n Problem: conflicting requests\n  - nothing provides dkms\n(try to add "
                             "'--skip-broken')\nError: again\n") == (
        "Error: | Problem: conflicting requests | - nothing provides dkms | Error: again")


def test_the_steps_around_a_driver_install_are_last_steps():
    assert apt_output.facts("Setting up nvidia-open (580.95.05-1) ...\n$ apt-mark hold nvidia-open\n"
                            "nvidia-open set on hold.\n")["last"] == "$ apt-mark hold nvidia-open"
    assert dnf_output.facts("$ dnf -y module enable nvidia-driver:580-open\nComplete!\n$ dnf versionlock add  nvidia-open\n"
                            "Adding versionlock on: nvidia-open-3:580.95.05-1.el9.*\n")["last"] == (
        "$ dnf versionlock add nvidia-open")
