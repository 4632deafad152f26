# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the nvidia_driver role names and runs differently per OS, as pure functions.

repo_options() fills the repository options the role leaves empty (its defaults: the URL, the key's URL, the
keyring, the source and proxy files) with those of the OS the preflight read: the nvidia_driver_state question (the
role's call and the preflight probe's) and the vendor_repo module work them out the same way. commands() is
what nvidia_driver_state returns as `commands` for the change path (the installed-packages probe,
the initramfs tool, the RHEL module stream and package). No Ansible import.
"""
from __future__ import annotations

REDHAT = "RedHat"
BASE_URL = "https://developer.download.nvidia.com/compute/cuda/repos"
# Repositories signed by a newer key than their family's (Debian 13's apt verifier, sqv, rejects the
# SHA-1 binding of 3bf863cc, so NVIDIA signs debian13 with 8793F200).
KEY_FILES = {"debian13": "8793F200.pub"}
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
    """NVIDIA's repository name of the OS: ubuntu2404, ubuntu2204, debian12, debian13, rhel9."""
    version = str(os_info.get("version", "0"))
    if os_info.get("distribution") == "Ubuntu":
        return "ubuntu" + version.replace(".", "")
    return ("debian" if os_info.get("family") == "Debian" else "rhel") + version.split(".", maxsplit=1)[0]


def repo_arch(machine):
    """NVIDIA's repository name of the architecture: x86_64, or sbsa for aarch64."""
    machine = machine or "x86_64"
    return "sbsa" if machine == "aarch64" else machine


def key_file(distro, family):
    """The key file NVIDIA serves in the repository of this distro."""
    return KEY_FILES.get(distro) or FAMILY_KEY_FILES.get(family, DEFAULT_KEY_FILE)


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
    OS's layout: url is base_url/<distro>/<arch>/, key_url the url and NVIDIA's key file of that repository."""
    filled = dict(repo)
    layout = repo_layout(os_info or {}, machine, str(filled.get("name") or "nvidia-cuda"))
    base = str(filled.get("base_url") or BASE_URL).rstrip("/")
    filled["url"] = filled.get("url") or "%s/%s/%s/" % (base, layout["distro"], layout["arch"])
    filled["key_url"] = filled.get("key_url") or filled["url"] + layout["key_file"]
    for key in ("keyring", "source_path", "proxy_path"):
        filled[key] = filled.get(key) or layout[key]
    return filled


def probe_argv(family):
    """The command that lists the installed driver packages (Debian's for any family but RedHat)."""
    return list(PROBE_ARGV.get(family, PROBE_ARGV["Debian"]))


def module_stream(branch, flavor):
    """RHEL 9's module stream: nvidia-driver:<branch>-open, nvidia-driver:<branch>-dkms (proprietary)."""
    return "nvidia-driver:%s-%s" % (branch, "open" if flavor == "open" else "dkms")


def rpm_package(flavor):
    """The RHEL package that brings the driver of the enabled stream."""
    return "nvidia-open" if flavor == "open" else "cuda-drivers"


def commands(family, branch, flavor):
    """{"probe_argv", "initramfs_tool", "initramfs_argv", "module_stream", "rpm_package"} of the change path."""
    tool, argv = INITRAMFS[REDHAT if family == REDHAT else "Debian"]
    return {"probe_argv": probe_argv(family), "initramfs_tool": tool, "initramfs_argv": list(argv),
            "module_stream": module_stream(branch, flavor), "rpm_package": rpm_package(flavor)}
