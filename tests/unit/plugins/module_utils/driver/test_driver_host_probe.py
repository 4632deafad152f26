# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.host_probe: reading the host for the state module (files under tmp_path, real commands)."""
from __future__ import annotations

import subprocess
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import host_probe


def run(argv):
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    return done.returncode, done.stdout, done.stderr


def printer(text, rc=0):
    """argv of a real command that prints `text` and exits with rc."""
    return [sys.executable, "-c", "import sys; sys.stdout.write(%r); sys.exit(%d)" % (text, rc)]


def test_the_package_probe_accepts_a_pattern_without_match_and_refuses_a_failure():
    assert host_probe.packages_text(run, printer("nvidia-open\t580\tii \n", 1)) == "nvidia-open\t580\tii \n"
    with pytest.raises(host_probe.ProbeError, match="rc 2"):
        host_probe.packages_text(run, printer("", 2))


def test_other_sources_name_the_repository_and_skip_the_role_own(tmp_path):
    url = "http://127.0.0.1:8580/nvidia/debian12/x86_64/"
    (tmp_path / "nvidia-cuda.list").write_text("deb [signed-by=/k.asc] %s /\n" % url)
    other = "# keyring\ndeb [signed-by=/usr/share/keyrings/c.gpg] %s /\n" % url.rstrip("/")
    (tmp_path / "cuda-debian12-x86_64.list").write_text(other)
    (tmp_path / "other.sources").write_text("URIs: http://deb.debian.org/debian\n")
    (tmp_path / "notes.txt").write_text(url)
    assert host_probe.other_sources(str(tmp_path), url, "nvidia-cuda.list") == [
        str(tmp_path / "cuda-debian12-x86_64.list")]
    assert host_probe.other_sources(str(tmp_path / "none"), url, "nvidia-cuda.list") == []


def test_persistenced_without_its_unit_asks_nothing(tmp_path):
    def never(argv):
        raise AssertionError("ran %s" % argv)
    assert host_probe.persistenced(never, units=(str(tmp_path / "x.service"),)) == {
        "unit": False, "enabled": False, "active": False}


def test_persistenced_reads_systemctl(tmp_path):
    unit = tmp_path / "nvidia-persistenced.service"
    unit.write_text("[Unit]\n")
    answers = {"is-enabled": (0, "enabled\n", ""), "is-active": (3, "", "")}
    seen = []

    def systemctl(argv):
        seen.append(argv)
        return answers[argv[1]]
    assert host_probe.persistenced(systemctl, units=(str(unit),)) == {"unit": True, "enabled": True, "active": False}
    assert seen == [["systemctl", "is-enabled", "nvidia-persistenced"],
                    ["systemctl", "is-active", "--quiet", "nvidia-persistenced"]]


def test_read_host_gathers_everything(tmp_path):
    sources = tmp_path / "sources.list.d"
    sources.mkdir()
    (sources / "nvidia-cuda.list").write_text("deb x /\n")
    (tmp_path / "key.asc").write_text("KEY")
    mok = tmp_path / "mok.key"
    mok.write_text("k")
    nouveau = tmp_path / "blacklist-nouveau.conf"
    found = host_probe.read_host(
        run, "Debian", printer("nvidia-open\t580.95.05-1\thi \n"), [], {
            "keyring": str(tmp_path / "key.asc"), "source": str(sources / "nvidia-cuda.list"),
            "proxy": str(tmp_path / "proxy"), "files": [str(nouveau)]},
        [str(mok), str(tmp_path / "mok.der")], "http://mirror.lab/cuda/", True, read_units=False)
    assert found == {
        "packages_text": "nvidia-open\t580.95.05-1\thi \n", "support_text": "", "locks_text": "",
        "missing_mok": [str(tmp_path / "mok.der")], "keyring_text": "KEY",
        "files": {str(sources / "nvidia-cuda.list"): "deb x /\n", str(tmp_path / "proxy"): None, str(nouveau): None},
        "other_sources": [], "persistenced": {"unit": False, "enabled": False, "active": False}}


def test_support_packages_are_read_with_dpkg_query_or_rpm():
    seen = []

    def fake(argv):
        seen.append(argv)
        return 1, "dkms\t3.0\tii \n", "dpkg-query: no packages found matching linux-headers-amd64\n"
    assert host_probe.support_text(fake, "Debian", ["dkms", "linux-headers-amd64"]) == "dkms\t3.0\tii \n"
    assert seen[0][:3] == ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n"]
    assert host_probe.support_text(fake, "RedHat", ["dkms"]) == "dkms\t3.0\tii \n"
    assert seen[1][:2] == ["rpm", "-q"]
    assert host_probe.support_text(fake, "Suse", ["dkms"]) == ""
