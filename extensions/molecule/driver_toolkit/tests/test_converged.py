# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The converged driver_toolkit container, read with testinfra over podman.

Run by verify.yml: pytest --hosts=podman://NAME, FIXTURE_KEYS=<.build/apt_repo/srv/keys>.
"""
from __future__ import annotations

import os

KEYRING = "/etc/apt/keyrings/nvidia-cuda.asc"
SOURCE = "/etc/apt/sources.list.d/nvidia-cuda.list"
DRIVER_PACKAGES = ["libnvidia-compute-580", "nvidia-compute-utils-580", "nvidia-dkms-580-open",
                   "nvidia-driver-580-open", "nvidia-driver-pinning-580", "nvidia-open", "nvidia-utils-580"]


def _repo_url(host):
    """The fixture repository of the host's Debian release (debian12, debian13)."""
    return "http://127.0.0.1:8580/nvidia/debian%s/x86_64/" % host.system_info.release.split(".")[0]


def _fixture_fpr(name):
    with open(os.path.join(os.environ["FIXTURE_KEYS"], name + ".fpr")) as handle:
        return handle.read().strip()


def test_key_file_is_the_pinned_key(host):
    key = host.file(KEYRING)
    assert key.exists and key.mode == 0o644 and key.user == "root"
    assert key.content_string.startswith("-----BEGIN PGP PUBLIC KEY BLOCK-----")
    out = host.check_output("gpg --homedir \"$(mktemp -d)\" --show-keys --with-colons %s 2>/dev/null", KEYRING)
    fprs = [line.split(":")[9] for line in out.splitlines() if line.startswith("fpr:")]
    assert fprs[0] == _fixture_fpr("fixture")


def test_signed_by_source_line(host):
    lines = [line for line in host.file(SOURCE).content_string.splitlines() if line and not line.startswith("#")]
    assert lines == ["deb [signed-by=%s] %s /" % (KEYRING, _repo_url(host))]


def test_driver_packages_installed_and_held(host):
    for name in DRIVER_PACKAGES + ["dkms", "linux-headers-" + host.check_output("uname -r")]:
        assert host.package(name).is_installed, name
    # the pinning package kept apt on 580 although the repository also offers nvidia-open 595
    assert host.package("nvidia-open").version == "580.95.05-1"
    assert not host.package("nvidia-dkms-open").is_installed
    held = host.check_output("apt-mark showhold").split()
    assert sorted(held) == DRIVER_PACKAGES


def test_unattended_upgrades_exclusion_reaches_apt(host):
    dump = host.check_output("apt-config dump Unattended-Upgrade::Package-Blacklist")
    entries = sorted(line.split('"')[1] for line in dump.splitlines() if '"' in line and line.split('"')[1])
    assert entries == sorted("^%s$" % name for name in DRIVER_PACKAGES)


def test_nouveau_blacklisted(host):
    conf = host.file("/etc/modprobe.d/blacklist-nouveau.conf").content_string
    assert "blacklist nouveau\n" in conf and "options nouveau modeset=0\n" in conf


def test_dkms_signing_and_build(host):
    conf = host.file("/etc/dkms/framework.conf.d/blackwell-mok.conf").content_string
    assert 'mok_signing_key="/var/lib/blackwell-mok/mok.key"' in conf
    assert 'mok_certificate="/var/lib/blackwell-mok/mok.der"' in conf
    status = host.check_output("dkms status")
    assert status == "nvidia/580.95.05, %s, %s: installed" % (host.check_output("uname -r"), host.check_output("uname -m"))


def test_driver_install_went_through_the_followed_log(host):
    log = host.file("/var/log/blackwell-pytorch/nvidia-driver-install.log")
    assert log.exists and log.content_string.startswith("$ apt-get install -y -o DPkg::Lock::Timeout=")
    assert "nvidia-open" in log.content_string and " newly installed, " in log.content_string
    assert host.file("/var/log/blackwell-pytorch/nvidia-driver-install.log.rc").content_string.split()[1] == "0"


def test_toolkit_install_went_through_the_followed_log(host):
    log = host.file("/var/log/blackwell-pytorch/cuda-toolkit-install.log")
    assert log.exists and log.content_string.startswith("$ apt-get install -y -o DPkg::Lock::Timeout=")
    assert "--no-upgrade cuda-toolkit-12-8 cuda-toolkit-13-0\n" in log.content_string.splitlines(True)[0]
    assert "Setting up cuda-toolkit-13-0 " in log.content_string and " newly installed, " in log.content_string
    assert host.file("/var/log/blackwell-pytorch/cuda-toolkit-install.log.rc").content_string.split()[1] == "0"


def test_persistenced_enabled(host):
    assert host.service("nvidia-persistenced").is_enabled


def test_toolkits_side_by_side_and_default(host):
    for version in ("12.8", "13.0"):
        assert host.package("cuda-toolkit-%s" % version.replace(".", "-")).is_installed
        assert host.file("/usr/local/cuda-%s/bin/nvcc" % version).is_executable
    assert not host.package("cuda-toolkit-12-9").is_installed
    assert host.file("/usr/local/cuda").linked_to == "/usr/local/cuda-12.8"
    query = host.check_output("update-alternatives --query cuda")
    assert "Status: manual" in query.splitlines() and "Value: /usr/local/cuda-12.8" in query.splitlines()


def test_profile_d(host):
    profile = host.file("/etc/profile.d/cuda.sh")
    assert profile.mode == 0o644
    assert "/usr/local/cuda/bin" in profile.content_string and "LD_LIBRARY_PATH" not in profile.content_string
    out = host.check_output("bash -lc 'command -v nvcc && nvcc --version'")
    assert out.splitlines()[0] == "/usr/local/cuda/bin/nvcc"
    assert "Cuda compilation tools, release 12.8, V12.8.93" in out
