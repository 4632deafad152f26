# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The OS facts the collection's roles read, from /etc/os-release and the running interpreter.

The play runs without gather_facts: preflight_facts returns these instead of Ansible's minimal facts.
Ansible's fact collectors weigh about 350 kB of module source that every preflight call would
compile on the target and pack on the controller; the roles read nine facts (os_family,
distribution, distribution_version, distribution_major_version, kernel, architecture, python,
user_id, effective_user_id). The names and values are those the setup module gives, for the
distributions below (a molecule test compares them with setup's on the test images).
No Ansible import.
"""
from __future__ import annotations

import os
import pwd
from collections.abc import Iterable, Mapping
from typing import Any

# os-release ID -> Ansible's distribution name (the setup module's spelling).
DISTRIBUTIONS = {
    "debian": "Debian", "ubuntu": "Ubuntu", "linuxmint": "Linux Mint", "pop": "Pop!_OS", "kali": "Kali",
    "rhel": "RedHat", "rocky": "Rocky", "almalinux": "AlmaLinux", "centos": "CentOS", "fedora": "Fedora",
    "ol": "OracleLinux", "amzn": "Amazon", "sles": "SLES", "opensuse-leap": "openSUSE Leap",
    "opensuse-tumbleweed": "openSUSE Tumbleweed", "arch": "Archlinux",
}
# Ansible's distribution name -> os_family.
FAMILIES = {
    "Debian": "Debian", "Ubuntu": "Debian", "Linux Mint": "Debian", "Pop!_OS": "Debian", "Kali": "Debian",
    "RedHat": "RedHat", "Rocky": "RedHat", "AlmaLinux": "RedHat", "CentOS": "RedHat", "Fedora": "RedHat",
    "OracleLinux": "RedHat", "Amazon": "RedHat", "SLES": "Suse", "openSUSE Leap": "Suse",
    "openSUSE Tumbleweed": "Suse", "Archlinux": "Archlinux",
}
# os-release ID_LIKE words -> os_family, for a derivative not named above.
LIKE_FAMILIES = (("debian", "Debian"), ("ubuntu", "Debian"), ("rhel", "RedHat"), ("fedora", "RedHat"),
                 ("centos", "RedHat"), ("suse", "Suse"), ("arch", "Archlinux"))


def parse_os_release(text: str) -> dict[str, str]:
    """{KEY: value} of an os-release file's text (quotes removed, comments and blank lines skipped)."""
    fields = {}
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        fields[key.strip()] = value.replace('\\"', '"').replace("\\$", "$").replace("\\\\", "\\")
    return fields


def distribution_facts(os_release: str, debian_version: str = "") -> dict[str, str]:
    """{"distribution", "distribution_version", "distribution_major_version", "os_family"} from an os-release
    text; debian_version: /etc/debian_version's text, whose point release Debian reports (12.7, not 12)."""
    fields = parse_os_release(os_release)
    os_id = fields.get("ID", "").lower()
    name = DISTRIBUTIONS.get(os_id) or fields.get("NAME", "") or "OtherLinux"
    version = fields.get("VERSION_ID", "")
    point = (debian_version or "").strip()
    if name == "Debian" and point[:1].isdigit():
        version = point
    family = FAMILIES.get(name)
    if family is None:
        likes = fields.get("ID_LIKE", "").lower().split()
        family = next((fam for word, fam in LIKE_FAMILIES if word in likes), name)
    return {"distribution": name, "distribution_version": version,
            "distribution_major_version": version.split(".", 1)[0] if version else "",
            "os_family": family}


def host_facts(os_release: str, debian_version: str, kernel: str, machine: str, python: Mapping[str, Any], uid: int,
               euid: int, user_name: str) -> dict[str, Any]:
    """The facts preflight_facts returns for the play, ansible_ prefixed as the setup module's.
    python: {"executable", "version_info": [major, minor, micro, releaselevel, serial]}."""
    facts = distribution_facts(os_release, debian_version)
    info = list(python.get("version_info") or [])
    facts.update(
        kernel=kernel, architecture=machine, system="Linux", user_id=user_name, user_uid=uid,
        effective_user_id=euid,
        python={"executable": python.get("executable", ""),
                "version": dict(zip(("major", "minor", "micro", "releaselevel", "serial"), info)),
                "version_info": info, "type": "CPython" if python.get("cpython", True) else "other"},
        python_version=".".join(str(part) for part in info[:3]))
    return {"ansible_" + key: value for key, value in facts.items()}


def read_first(paths: Iterable[str]) -> str:
    """The text of the first readable file of paths, '' when none is."""
    for path in paths:
        try:
            with open(path) as stream:
                return stream.read()
        except (IOError, OSError):
            continue
    return ""


def current_user() -> dict[str, Any]:
    """{"uid", "name"} of the effective user."""
    uid = os.geteuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    return {"uid": uid, "name": name}
