# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the nvidia_driver role names and runs differently per OS, as pure functions.

repo_options() fills the repository options the role leaves empty (its defaults: the URL, the key's URL, the
keyring, the source and proxy files) with those of the OS the preflight read: the nvidia_driver_state question (the
role's call and the preflight probe's) and the vendor_repo module work them out the same way. commands() is
what nvidia_driver_state returns as `commands` for the change path (the installed-packages probe,
the initramfs tool, the RHEL module stream or EL 10's branch versionlock, and the package). No Ansible import.

The OSes and their repositories (docs/domain.md, section 2): ubuntu2204, ubuntu2404, ubuntu2604, debian12, debian13,
rhel9 and rhel10 (RHEL, Rocky and AlmaLinux share NVIDIA's rhel<major> repository). EL 8/9 pick the driver branch
with a dnf module stream; EL 10 has no module streams: the branch is held by a versionlock of its packages
(`dnf versionlock add '*nvidia*<branch>*'`) before `dnf install nvidia-open`.
"""
from __future__ import annotations

REDHAT = "RedHat"
BASE_URL = "https://developer.download.nvidia.com/compute/cuda/repos"
# Repositories signed by a newer key than their family's (Debian 13's apt verifier, sqv, rejects the
# SHA-1 binding of 3bf863cc, so NVIDIA signs debian13 with 8793F200; rhel10 serves CDF6BA43.pub). An empty
# name: the repository's key file is not known here (ubuntu2604 is set up by NVIDIA's cuda-keyring package and
# no key file name of it is published), so key_url stays empty and the role refuses the empty
# nvidia_driver_repo_key_url until it is set (with the key's fingerprint in nvidia_driver_repo_key_fingerprints).
KEY_FILES = {"debian13": "8793F200.pub", "rhel10": "CDF6BA43.pub", "ubuntu2604": ""}
FAMILY_KEY_FILES = {REDHAT: "D42D0685.pub"}
DEFAULT_KEY_FILE = "3bf863cc.pub"
# Installed driver packages as "name<TAB>version<TAB>status" (dpkg's Status-Abbrev: "hi " = held; rpm lines
# carry "ii", versionlocks are read separately).
PROBE_ARGV = {
    "Debian": ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n", "nvidia-*", "libnvidia-*",
               "cuda-drivers*", "libcuda*", "xserver-xorg-video-nvidia*", "firmware-nvidia*", "libxnvctrl*"],
    REDHAT: ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "nvidia-*", "kmod-nvidia*",
             "libnvidia-*", "cuda-drivers*"],
}
INITRAMFS = {
    "Debian": ("/usr/sbin/update-initramfs", ["update-initramfs", "-u", "-k", "all"]),
    REDHAT: ("/usr/bin/dracut", ["dracut", "--force", "--regenerate-all"]),
}


def os_of(preflight, facts):
    """blackwell_preflight.os; the OS from the facts while preflight has not run yet (the argument spec
    validation templates the role's defaults before any of its tasks)."""
    found = (preflight or {}).get("os")
    if found:
        return dict(found)
    facts = facts or {}
    return {"distribution": facts.get("distribution", "unknown"), "family": facts.get("os_family", "unknown"),
            "version": facts.get("distribution_version", "0")}


def repo_distro(os_info):
    """NVIDIA's repository name of the OS: ubuntu2204, ubuntu2404, ubuntu2604, debian12, debian13, rhel9, rhel10."""
    version = str(os_info.get("version", "0"))
    if os_info.get("distribution") == "Ubuntu":
        return "ubuntu" + version.replace(".", "")
    return ("debian" if os_info.get("family") == "Debian" else "rhel") + version.split(".", maxsplit=1)[0]


def repo_arch(machine):
    """NVIDIA's repository name of the architecture: x86_64, or sbsa for aarch64."""
    machine = machine or "x86_64"
    return "sbsa" if machine == "aarch64" else machine


def key_file(distro, family):
    """The key file NVIDIA serves in the repository of this distro; '' where it is not known."""
    if distro in KEY_FILES:
        return KEY_FILES[distro]
    return FAMILY_KEY_FILES.get(family, DEFAULT_KEY_FILE)


def keyring(family, name):
    """Where the checked key goes (an armored key used with signed-by must end in .asc)."""
    return "/etc/pki/rpm-gpg/RPM-GPG-KEY-" + name if family == REDHAT else "/etc/apt/keyrings/%s.asc" % name


def source_path(family, name):
    """The repository's source (apt) or repo (dnf) file."""
    return "/etc/yum.repos.d/%s.repo" % name if family == REDHAT else "/etc/apt/sources.list.d/%s.list" % name


def proxy_path(name):
    """apt's configuration file of the repository's proxy."""
    return "/etc/apt/apt.conf.d/90%s-proxy" % name


def repo_layout(os_info, machine, name):
    """{"family", "distro", "arch", "key_file", "keyring", "source_path", "proxy_path"} of the repository `name`."""
    family = os_info.get("family", "unknown")
    distro = repo_distro(os_info)
    return {"family": family, "distro": distro, "arch": repo_arch(machine), "key_file": key_file(distro, family),
            "keyring": keyring(family, name), "source_path": source_path(family, name), "proxy_path": proxy_path(name)}


def repo_options(repo, os_info, machine):
    """The repository options with each empty one of url, key_url, keyring, source_path and proxy_path set to the
    OS's layout: url is base_url/<distro>/<arch>/, key_url the url and NVIDIA's key file of that repository
    ('' where that file is not known: the inputs check then refuses it, naming nvidia_driver_repo_key_url)."""
    filled = dict(repo)
    layout = repo_layout(os_info or {}, machine, str(filled.get("name") or "nvidia-cuda"))
    base = str(filled.get("base_url") or BASE_URL).rstrip("/")
    filled["url"] = filled.get("url") or "%s/%s/%s/" % (base, layout["distro"], layout["arch"])
    filled["key_url"] = filled.get("key_url") or (filled["url"] + layout["key_file"] if layout["key_file"] else "")
    for key in ("keyring", "source_path", "proxy_path"):
        filled[key] = filled.get(key) or layout[key]
    return filled


def probe_argv(family):
    """The command that lists the installed driver packages (Debian's for any family but RedHat)."""
    return list(PROBE_ARGV.get(family, PROBE_ARGV["Debian"]))


def el_major(os_info) -> int:
    """The major version of an EL (RedHat family) OS, 0 for another family or an unreadable version."""
    os_info = os_info or {}
    if os_info.get("family") != REDHAT:
        return 0
    head = str(os_info.get("version", "0")).split(".", maxsplit=1)[0]
    return int(head) if head.isdigit() else 0


def has_module_streams(os_info) -> bool:
    """Whether NVIDIA's repository of this EL picks the branch by a dnf module stream: EL 8 and 9 (and an EL
    whose version is not known, as the role always did), not EL 10 and later."""
    return el_major(os_info) < 10


def module_stream(branch, flavor):
    """RHEL 8/9's module stream: nvidia-driver:<branch>-open, nvidia-driver:<branch>-dkms (proprietary)."""
    return "nvidia-driver:%s-%s" % (branch, "open" if flavor == "open" else "dkms")


def branch_lock(branch) -> str:
    """EL 10's versionlock pattern that keeps dnf on the branch: *nvidia*<branch>*."""
    return "*nvidia*%s*" % branch


def rpm_package(flavor):
    """The RHEL package that brings the driver of the branch."""
    return "nvidia-open" if flavor == "open" else "cuda-drivers"


def commands(family, branch, flavor, os_info=None):
    """{"probe_argv", "initramfs_tool", "initramfs_argv", "module_stream", "branch_lock", "rpm_package"} of the
    change path. os_info (blackwell_preflight.os): EL 10 has no module stream (module_stream '') and keeps the
    branch by the versionlock pattern branch_lock instead; EL 8/9, or no os_info, the module stream (branch_lock
    ''). Another family gets EL 9's module_stream and rpm_package (its path reads neither) and branch_lock ''."""
    tool, argv = INITRAMFS[REDHAT if family == REDHAT else "Debian"]
    locks = family == REDHAT and not has_module_streams(dict(os_info or {}, family=family))
    return {"probe_argv": probe_argv(family), "initramfs_tool": tool, "initramfs_argv": list(argv),
            "module_stream": "" if locks else module_stream(branch, flavor),
            "branch_lock": branch_lock(branch) if locks else "", "rpm_package": rpm_package(flavor)}
