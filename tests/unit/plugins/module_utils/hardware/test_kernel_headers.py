# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_headers import (
    headers_installable, headers_package, headers_query, headers_report, package_lists_present)


@pytest.mark.parametrize("family,kernel,package", [
    ("Debian", "6.8.0-48-generic", "linux-headers-6.8.0-48-generic"),
    ("RedHat", "5.14.0-427.el9.x86_64", "kernel-devel-5.14.0-427.el9.x86_64"),
    ("Suse", "6.4.0", ""), ("Debian", "", ""), ("", "6.8.0", ""),
])
def test_package(family, kernel, package):
    assert headers_package(family, kernel) == package


def test_query():
    assert headers_query("Debian", "linux-headers-x") == ["apt-cache", "policy", "linux-headers-x"]
    assert headers_query("RedHat", "kernel-devel-x") == [
        "dnf", "--cacheonly", "--quiet", "list", "--available", "kernel-devel-x"]
    assert headers_query("Suse", "kernel-default-devel") is None
    assert headers_query("Debian", "") is None


@pytest.mark.parametrize("family,rc,stdout,expected", [
    ("Debian", 0, "x:\n  Installed: (none)\n  Candidate: 6.8.0-48.48\n", True),
    ("Debian", 0, "x:\n  Installed: (none)\n  Candidate: (none)\n", False),
    ("Debian", 0, "", False),  # apt-cache prints nothing for a package it has never heard of
    ("RedHat", 0, "kernel-devel.x86_64 ...\n", True),
    ("RedHat", 1, "", False),
    ("Debian", None, "", "unknown"),
    ("Arch", 0, "", "unknown"),
])
def test_installable(family, rc, stdout, expected):
    assert headers_installable(family, rc, stdout) == expected


def test_report_reads_the_build_directory(tmp_path):
    (tmp_path / "6.8.0-48-generic" / "build").mkdir(parents=True)
    assert headers_report("Debian", "6.8.0-48-generic", str(tmp_path), (0, "  Candidate: 1\n")) == {
        "release": "6.8.0-48-generic", "installed": True,
        "package": "linux-headers-6.8.0-48-generic", "installable": True}
    dangling = tmp_path / "6.1.0-13-amd64"
    dangling.mkdir()
    (dangling / "build").symlink_to(tmp_path / "gone")
    assert headers_report("Debian", "6.1.0-13-amd64", str(tmp_path), None)["installed"] is False
    assert headers_report("Debian", "6.1.0-13-amd64", str(tmp_path), None)["installable"] == "unknown"


def test_without_package_lists_a_no_from_apt_is_unknown(tmp_path):
    lists, cache = tmp_path / "lists", tmp_path / "dnf"
    lists.mkdir()
    cache.mkdir()
    (lists / "lock").write_text("")
    assert package_lists_present("Debian", str(lists), str(cache)) is False
    no_candidate = (0, "linux-headers-6.1.0-99-amd64:\n  Installed: (none)\n  Candidate: (none)\n")
    assert headers_report("Debian", "6.1.0-99-amd64", str(tmp_path), no_candidate, False)["installable"] == "unknown"
    (lists / "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages").write_text("")
    assert package_lists_present("Debian", str(lists), str(cache)) is True
    assert headers_report("Debian", "6.1.0-99-amd64", str(tmp_path), no_candidate, True)["installable"] is False


def test_dnf_metadata_and_other_families():
    assert package_lists_present("RedHat", "/nonexistent", "/nonexistent") is False
    assert package_lists_present("Suse", "/nonexistent", "/nonexistent") is True


def test_dnf_cache_with_metadata(tmp_path):
    (tmp_path / "baseos-1234" / "repodata").mkdir(parents=True)
    assert package_lists_present("RedHat", "/nonexistent", str(tmp_path)) is True
