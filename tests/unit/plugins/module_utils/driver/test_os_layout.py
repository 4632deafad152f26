# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.os_layout: the nvidia_driver role's per-OS names, paths and commands."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import os_layout


def os_info(distribution, family, version):
    return {"distribution": distribution, "family": family, "version": version}


@pytest.mark.parametrize("distribution,family,version,distro,key_file", [
    ("Ubuntu", "Debian", "24.04", "ubuntu2404", "3bf863cc.pub"),
    ("Ubuntu", "Debian", "22.04", "ubuntu2204", "3bf863cc.pub"),
    ("Debian", "Debian", "12", "debian12", "3bf863cc.pub"),
    ("Debian", "Debian", "12.8", "debian12", "3bf863cc.pub"),
    ("Debian", "Debian", "13", "debian13", "8793F200.pub"),  # signed by the newer key
    ("Ubuntu", "Debian", "26.04", "ubuntu2604", ""),  # no key file name published: the key URL is asked for
    ("RedHat", "RedHat", "9.4", "rhel9", "D42D0685.pub"),
    ("Rocky", "RedHat", "9", "rhel9", "D42D0685.pub"),
    ("AlmaLinux", "RedHat", "9.5", "rhel9", "D42D0685.pub"),
    ("RedHat", "RedHat", "10.0", "rhel10", "CDF6BA43.pub"),
    ("Rocky", "RedHat", "10.1", "rhel10", "CDF6BA43.pub"),
    ("AlmaLinux", "RedHat", "10", "rhel10", "CDF6BA43.pub"),
    ("unknown", "unknown", "0", "rhel0", "3bf863cc.pub"),
])
def test_repository_names_and_key_file(distribution, family, version, distro, key_file):
    assert os_layout.repo_distro(os_info(distribution, family, version)) == distro
    assert os_layout.key_file(distro, family) == key_file


def test_a_numeric_version_is_read_as_text():
    assert os_layout.repo_distro(os_info("Debian", "Debian", 12)) == "debian12"
    assert os_layout.repo_distro(os_info("Ubuntu", "Debian", 24.04)) == "ubuntu2404"


@pytest.mark.parametrize("machine,arch", [("x86_64", "x86_64"), ("aarch64", "sbsa"), ("", "x86_64"), (None, "x86_64")])
def test_repository_arch(machine, arch):
    assert os_layout.repo_arch(machine) == arch


def test_paths_per_family():
    debian = os_layout.repo_layout(os_info("Debian", "Debian", "12"), "x86_64", "nvidia-cuda")
    assert debian == {"family": "Debian", "distro": "debian12", "arch": "x86_64", "key_file": "3bf863cc.pub",
                      "keyring": "/etc/apt/keyrings/nvidia-cuda.asc",
                      "source_path": "/etc/apt/sources.list.d/nvidia-cuda.list",
                      "proxy_path": "/etc/apt/apt.conf.d/90nvidia-cuda-proxy"}
    rhel = os_layout.repo_layout(os_info("Rocky", "RedHat", "9.4"), "aarch64", "lab-cuda")
    assert rhel == {"family": "RedHat", "distro": "rhel9", "arch": "sbsa", "key_file": "D42D0685.pub",
                    "keyring": "/etc/pki/rpm-gpg/RPM-GPG-KEY-lab-cuda", "source_path": "/etc/yum.repos.d/lab-cuda.repo",
                    "proxy_path": "/etc/apt/apt.conf.d/90lab-cuda-proxy"}


@pytest.mark.parametrize("distribution,family,version,machine,path,key_file", [
    ("Ubuntu", "Debian", "26.04", "x86_64", "ubuntu2604/x86_64/", ""),
    ("Ubuntu", "Debian", "24.04", "aarch64", "ubuntu2404/sbsa/", "3bf863cc.pub"),
    ("Ubuntu", "Debian", "22.04", "x86_64", "ubuntu2204/x86_64/", "3bf863cc.pub"),
    ("Debian", "Debian", "12.8", "x86_64", "debian12/x86_64/", "3bf863cc.pub"),
    ("Debian", "Debian", "13.1", "x86_64", "debian13/x86_64/", "8793F200.pub"),
    ("RedHat", "RedHat", "9.6", "x86_64", "rhel9/x86_64/", "D42D0685.pub"),
    ("Rocky", "RedHat", "10.1", "x86_64", "rhel10/x86_64/", "CDF6BA43.pub"),
    ("AlmaLinux", "RedHat", "10.0", "aarch64", "rhel10/sbsa/", "CDF6BA43.pub"),
])
def test_repository_urls_of_every_listed_os(distribution, family, version, machine, path, key_file):
    filled = os_layout.repo_options({"name": "nvidia-cuda"}, os_info(distribution, family, version), machine)
    url = "https://developer.download.nvidia.com/compute/cuda/repos/" + path
    assert (filled["url"], filled["key_url"]) == (url, url + key_file if key_file else "")


def test_a_key_url_set_is_kept_where_the_layout_knows_no_key_file():
    repo = {"name": "nvidia-cuda", "key_url": "https://mirror.lab/cuda/ubuntu2604/x86_64/lab.pub"}
    filled = os_layout.repo_options(repo, os_info("Ubuntu", "Debian", "26.04"), "x86_64")
    assert filled["key_url"] == "https://mirror.lab/cuda/ubuntu2604/x86_64/lab.pub"
    assert filled["keyring"] == "/etc/apt/keyrings/nvidia-cuda.asc"


def test_rhel10_paths():
    rhel = os_layout.repo_layout(os_info("AlmaLinux", "RedHat", "10.0"), "x86_64", "nvidia-cuda")
    assert rhel == {"family": "RedHat", "distro": "rhel10", "arch": "x86_64", "key_file": "CDF6BA43.pub",
                    "keyring": "/etc/pki/rpm-gpg/RPM-GPG-KEY-nvidia-cuda",
                    "source_path": "/etc/yum.repos.d/nvidia-cuda.repo",
                    "proxy_path": "/etc/apt/apt.conf.d/90nvidia-cuda-proxy"}


@pytest.mark.parametrize("info,major,streams", [
    (os_info("RedHat", "RedHat", "9.4"), 9, True),
    (os_info("Rocky", "RedHat", "8.10"), 8, True),
    (os_info("RedHat", "RedHat", "10.0"), 10, False),
    (os_info("AlmaLinux", "RedHat", "10"), 10, False),
    (os_info("Rocky", "RedHat", "10.1"), 10, False),
    (os_info("Ubuntu", "Debian", "26.04"), 0, True),
    (os_info("RedHat", "RedHat", "rolling"), 0, True),
    (None, 0, True),
])
def test_el_major_and_module_streams(info, major, streams):
    assert os_layout.el_major(info) == major
    assert os_layout.has_module_streams(info) is streams


def test_el10_commands_lock_the_branch_instead_of_a_module_stream():
    for distribution, version in (("RedHat", "10.0"), ("Rocky", "10.1"), ("AlmaLinux", "10")):
        found = os_layout.commands("RedHat", "580", "open", os_info(distribution, "RedHat", version))
        assert (found["module_stream"], found["branch_lock"], found["rpm_package"]) == (
            "", "*nvidia*580*", "nvidia-open")
        assert found["initramfs_argv"] == ["dracut", "--force", "--regenerate-all"]
    el9 = os_layout.commands("RedHat", "580", "open", os_info("Rocky", "RedHat", "9.4"))
    assert (el9["module_stream"], el9["branch_lock"], el9["rpm_package"]) == (
        "nvidia-driver:580-open", "", "nvidia-open")
    # without the OS (the caller gave none) EL is read as 9, as the role always did
    assert os_layout.commands("RedHat", "595", "open")["module_stream"] == "nvidia-driver:595-open"
    assert os_layout.commands("RedHat", "595", "open")["branch_lock"] == ""
    ubuntu = os_layout.commands("Debian", "580", "open", os_info("Ubuntu", "Debian", "26.04"))
    assert ubuntu["branch_lock"] == ""
    assert os_layout.branch_lock("610") == "*nvidia*610*"


def test_the_os_is_preflights_and_else_the_facts():
    pre = {"os": os_info("Debian", "Debian", "13")}
    facts = {"distribution": "Ubuntu", "os_family": "Debian", "distribution_version": "24.04"}
    assert os_layout.os_of(pre, facts) == os_info("Debian", "Debian", "13")
    assert os_layout.os_of(None, facts) == os_info("Ubuntu", "Debian", "24.04")
    assert os_layout.os_of({}, facts) == os_info("Ubuntu", "Debian", "24.04")
    assert os_layout.os_of(None, None) == os_info("unknown", "unknown", "0")


def test_commands_per_family():
    debian = os_layout.commands("Debian", "580", "open")
    assert debian["probe_argv"][:3] == ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n"]
    assert "libxnvctrl*" in debian["probe_argv"]
    assert (debian["initramfs_tool"], debian["initramfs_argv"]) == (
        "/usr/sbin/update-initramfs", ["update-initramfs", "-u", "-k", "all"])
    rhel = os_layout.commands("RedHat", "580", "proprietary")
    assert rhel["probe_argv"] == ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "nvidia-*",
                                  "kmod-nvidia*", "libnvidia-*", "cuda-drivers*"]
    assert (rhel["initramfs_tool"], rhel["initramfs_argv"]) == ("/usr/bin/dracut", ["dracut", "--force", "--regenerate-all"])
    assert (rhel["module_stream"], rhel["branch_lock"], rhel["rpm_package"]) == (
        "nvidia-driver:580-dkms", "", "cuda-drivers")
    assert (debian["module_stream"], debian["branch_lock"]) == ("nvidia-driver:580-open", "")  # unused there
    assert os_layout.commands("RedHat", "590", "open")["module_stream"] == "nvidia-driver:590-open"
    assert os_layout.commands("RedHat", "590", "open")["rpm_package"] == "nvidia-open"
    # another family is read as Debian's, as the role always did
    assert os_layout.commands("Suse", "580", "open")["probe_argv"] == debian["probe_argv"]


def test_commands_are_fresh_lists():
    first = os_layout.commands("Debian", "580", "open")
    first["probe_argv"].append("x")
    first["initramfs_argv"].append("x")
    assert "x" not in os_layout.commands("Debian", "580", "open")["probe_argv"]
    assert "x" not in os_layout.commands("Debian", "580", "open")["initramfs_argv"]
