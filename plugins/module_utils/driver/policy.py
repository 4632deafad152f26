# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Decisions of the nvidia_driver role (docs/domain.md section 2), made before anything changes.

- flavor: auto | open | proprietary against the GPUs (which GPUs the open kernel modules are required
  for or do not support is the GPU catalogue's: hardware.catalogue.open_module);
- what to do with the driver already there: manage it with packages, adopt a loaded driver of
  the wanted branch and flavor that no package owns (runfile, image-provided), or only check;
- which packages to install from what the repository offers: the branch pinning package then
  nvidia-open, else the older branch-suffixed names;
- whether a reboot is needed after installing.

`parse` arguments take the version parser (common.versions.parse by default; the filters pass
packaging's). No Ansible import: the filter plugins and the unit tests use these functions.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import driver_branch
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import model_label

FLAVORS = ("auto", "open", "proprietary")

# Installed packages that make up a driver (dpkg / rpm names). The container toolkit shares
# the prefix but is no part of the driver.
_DRIVER_NAME = re.compile(r"^(nvidia-|libnvidia-|cuda-drivers|libcuda|xserver-xorg-video-nvidia|"
                          r"firmware-nvidia|kmod-nvidia|libxnvctrl)")
_NOT_DRIVER = re.compile(r"^(nvidia-container|libnvidia-container|nvidia-docker)")
# The packages that say a driver is installed by the package manager at all (a kernel module
# package or a driver meta package). Others (Ubuntu's libxnvctrl0 510.47.03 next to an
# image-provided 580 driver, seen on the GPU test machine) do not.
_CORE_NAME = re.compile(r"^(nvidia-open|nvidia-driver(-\d+)?(-open)?|nvidia-driver-pinning-\d+|cuda-drivers(-\d+)?|"
                        r"nvidia-dkms(-\d+)?(-open)?|nvidia-kernel-(open-)?dkms|nvidia-kernel-source(-\d+)?(-open)?|"
                        r"kmod-nvidia.*|libnvidia-compute(-\d+)?)$")


def _open_module(gpu):
    return catalogue.open_module(parse_capability(gpu.get("compute_capability") or gpu.get("sm")), gpu.get("name"))


def needs_open(gpu):
    """Whether the GPU works only with the open kernel module (Blackwell, Grace Hopper)."""
    return _open_module(gpu) == catalogue.OPEN_REQUIRED


def _oldest_open():
    """("Turing", "7.5"): the family and capability of the oldest GPUs the open kernel modules support."""
    oldest = catalogue.open_module_oldest()
    return catalogue.family(*oldest), "%d.%d" % oldest


def choose_flavor(requested, gpus=()):
    """auto | open | proprietary -> {"ok", "flavor", "open_required", "msg"}.

    auto picks open (required for Blackwell and Grace Hopper, recommended for every Turing+
    GPU, and the choice when no GPU is known); proprietary only where a pre-Turing GPU needs
    it (the GPU catalogue says which GPUs are which). Refused: proprietary on a GPU that needs open, open on a pre-Turing GPU, or both
    kinds in one host.
    """
    requested = str(requested or "auto").lower()
    gpus = list(gpus or [])
    result = {"ok": False, "flavor": None, "open_required": False, "msg": ""}
    if requested not in FLAVORS:
        result["msg"] = "nvidia_driver_flavor must be one of %s, not %r" % (", ".join(FLAVORS), requested)
        return result
    need_open = [g for g in gpus if needs_open(g)]
    too_old = [g for g in gpus if _open_module(g) == catalogue.OPEN_UNSUPPORTED]
    result["open_required"] = bool(need_open)
    oldest, oldest_capability = _oldest_open()
    if need_open and too_old:
        result["msg"] = ("%s need(s) the open kernel module, which does not support %s (older than "
                         "%s): no driver flavor drives both; put them in different hosts" % (
                             ", ".join(model_label(g) for g in need_open),
                             ", ".join(model_label(g) for g in too_old), oldest))
        return result
    if requested == "proprietary" and need_open:
        result["msg"] = ("nvidia_driver_flavor proprietary refused: %s is supported only by NVIDIA's open "
                         "kernel modules (with the proprietary module the kernel logs 'requires use of "
                         "the NVIDIA open kernel modules' and RmInitAdapter fails). Set "
                         "nvidia_driver_flavor: open (or auto)" % ", ".join(model_label(g) for g in need_open))
        return result
    if requested == "open" and too_old:
        result["msg"] = ("nvidia_driver_flavor open refused: the open kernel modules support %s "
                         "(compute capability %s) and newer, not %s. Set nvidia_driver_flavor: "
                         "proprietary (or auto)" % (oldest, oldest_capability, ", ".join(model_label(g) for g in too_old)))
        return result
    if requested == "auto":
        flavor = "proprietary" if too_old else "open"
        if need_open:
            why = "required by %s" % ", ".join(model_label(g) for g in need_open)
        elif too_old:
            why = "%s predate(s) %s, which the open module does not support" % (
                ", ".join(model_label(g) for g in too_old), oldest)
        elif gpus:
            why = "recommended for %s and newer" % oldest
        else:
            why = "no GPU known; open is NVIDIA's recommendation for %s and newer" % oldest
        result["msg"] = "flavor %s (auto: %s)" % (flavor, why)
    else:
        flavor = requested
        result["msg"] = "flavor %s (asked for)" % flavor
    result["ok"] = True
    result["flavor"] = flavor
    return result


def plain_version(version):
    """Debian/RPM package version -> driver version: "580.95.05-1" / "3:580.95.05-1.el9" -> "580.95.05"."""
    if not version:
        return None
    return str(version).split(":", 1)[-1].split("-", 1)[0]


def same_version(one, other, parse=versions.parse):
    """Whether two driver versions are the same version ("580.95.05" and "580.95.5" are); text
    that is not a version compares as text."""
    first, second = parse(plain_version(one)), parse(plain_version(other))
    if first is None or second is None:
        return str(one) == str(other)
    return first["key"] == second["key"]


def parse_package_lines(text):
    """Lines "name<TAB>version<TAB>status" (dpkg-query -W -f, or rpm -qa --qf) -> installed packages.

    status is dpkg's db:Status-Abbrev ("ii ", "hi ", "rc ", ...): the second letter 'i' means
    installed, the first 'h' a hold. rpm lines carry "ii" (or "hi" for a versionlock).
    Returns [{"name", "version", "held"}] of installed packages, sorted by name.
    """
    packages = []
    for line in (text or "").splitlines():
        parts = line.split("\t")
        if len(parts) < 2 or not parts[0].strip():
            continue
        status = parts[2] if len(parts) > 2 else "ii"
        if len(status) < 2 or status[1] != "i":
            continue
        packages.append({"name": parts[0].strip(), "version": parts[1].strip(), "held": status[0] == "h"})
    return sorted(packages, key=lambda p: p["name"])


def driver_packages_installed(packages):
    """The packages of `parse_package_lines` that belong to a driver (not the container toolkit)."""
    return [p for p in packages if _DRIVER_NAME.match(p["name"]) and not _NOT_DRIVER.match(p["name"])]


def installed_driver(packages, parse=versions.parse):
    """What the installed driver packages say: {"version", "branch", "flavor", "names", "held", "unheld"}.

    Only core packages (a kernel module or driver meta package) count as an installed driver;
    version comes from the one that defines the driver (nvidia-open, nvidia-driver-B-open,
    nvidia-driver-B, cuda-drivers-B, ...); flavor from the names (open when a "-open" kernel
    package is there). names are the driver packages of that branch (what the role holds).
    All None / [] when no core package is installed.
    """
    pkgs = driver_packages_installed(packages)
    core = [p for p in pkgs if _CORE_NAME.match(p["name"])]
    info = {"version": None, "branch": None, "flavor": None, "names": [], "held": [], "unheld": []}
    if not core:
        return info
    order = (r"^nvidia-open$", r"^nvidia-driver-\d+-open$", r"^nvidia-driver-\d+$", r"^cuda-drivers-\d+$",
             r"^cuda-drivers$", r"^nvidia-driver$", r"^kmod-nvidia", r"^nvidia-dkms", r"^nvidia-kernel",
             r"^libnvidia-compute", r"^nvidia-driver-pinning-\d+$")
    chosen = None
    for pattern in order:
        chosen = next((p for p in core if re.match(pattern, p["name"])), None)
        if chosen:
            break
    info["version"] = plain_version(chosen["version"])
    info["branch"] = driver_branch(info["version"], parse)
    branch_pkgs = [p for p in pkgs if driver_branch(plain_version(p["version"]), parse) == info["branch"]]
    names = [p["name"] for p in branch_pkgs]
    info.update(names=names, held=[p["name"] for p in branch_pkgs if p["held"]],
                unheld=[p["name"] for p in branch_pkgs if not p["held"]])
    open_names = [n for n in names if n == "nvidia-open" or re.search(r"-open(-|$)", n) or "kernel-open" in n]
    info["flavor"] = "open" if open_names else "proprietary"
    return info


def driver_action(manage, branch, flavor, loaded=None, packages=(), upgrade=False, parse=versions.parse):
    """What to do with the driver already on the host.

    manage: auto | true | false. loaded: ansible_facts.nvidia_driver. packages: output of
    parse_package_lines. Returns {"ok", "action": manage | adopt | check, "installed":
    installed_driver(...), "msg"}.

    auto: a loaded driver of the wanted branch and flavor that no package owns is adopted
    (left untouched); one of another branch or flavor is refused (installing packages over a
    runfile driver breaks both); otherwise the packages are managed. Installed packages of
    another branch or flavor move only with upgrade.
    """
    manage = str(manage).lower()
    manage = {"yes": "true", "on": "true", "1": "true", "no": "false", "off": "false", "0": "false"}.get(manage, manage)
    branch = str(branch)
    loaded = loaded or {}
    installed = installed_driver(list(packages or []), parse)
    result = {"ok": False, "action": "manage", "installed": installed, "msg": ""}
    if manage not in ("auto", "true", "false"):
        result["msg"] = "nvidia_driver_manage must be auto, true or false, not %r" % manage
        return result
    is_loaded = bool(loaded.get("loaded"))
    loaded_branch = str(loaded.get("branch") or "") or None
    loaded_flavor = loaded.get("kernel_module_flavor")
    loaded_fits = is_loaded and loaded_branch == branch and (flavor != "open" or loaded_flavor == "open") \
        and (flavor != "proprietary" or loaded_flavor == "proprietary")
    desc = "driver %s (%s kernel module)" % (loaded.get("version"), loaded_flavor) if is_loaded else "no driver"

    if manage == "false":
        result["action"] = "check"
        if loaded_fits:
            result.update(ok=True, msg="nvidia_driver_manage is false: loaded %s fits branch %s %s" % (
                desc, branch, flavor))
        elif not is_loaded and installed["branch"] == branch and installed["flavor"] == flavor:
            result.update(ok=True, msg="nvidia_driver_manage is false: packages of branch %s %s are "
                          "installed (%s), not loaded" % (branch, flavor, installed["version"]))
        else:
            result["msg"] = ("nvidia_driver_manage is false (check only) and the host has %s%s; wanted "
                             "branch %s, %s flavor" % (desc, ", packages %s %s" % (
                                 installed["version"], installed["flavor"]) if installed["names"] else "",
                                 branch, flavor))
        return result

    if manage == "auto" and is_loaded and not installed["names"]:
        if loaded_fits:
            result.update(ok=True, action="adopt", msg=(
                "loaded %s is not package-managed (runfile or image-provided) and fits branch %s %s: "
                "left untouched (nvidia_driver_manage: auto; set true to install packages anyway)" % (
                    desc, branch, flavor)))
        else:
            result["msg"] = ("loaded %s is not package-managed (runfile or image-provided) and is not "
                             "branch %s %s: installing packages over it breaks both. Remove it "
                             "(nvidia-uninstall) or set nvidia_driver_manage: true" % (desc, branch, flavor))
        return result

    if installed["names"] and not upgrade and (installed["branch"] != branch or installed["flavor"] != flavor):
        result["msg"] = ("installed driver packages are branch %s %s (%s), nvidia_driver_branch/flavor ask "
                         "for %s %s: set nvidia_driver_upgrade: true to move the driver on purpose "
                         "(a reboot follows)" % (installed["branch"], installed["flavor"],
                                                 installed["version"], branch, flavor))
        return result
    result.update(ok=True, msg="packages of branch %s %s managed%s" % (
        branch, flavor, " (installed: %s)" % installed["version"] if installed["names"] else ""))
    return result


def apt_packages(policy_text, branch, flavor):
    """Install method and package names from `apt-cache policy` output (apt_choose_packages)."""
    return apt_choose_packages(parse_apt_policy(policy_text), branch, flavor)


def parse_apt_policy(text):
    """`apt-cache policy NAME...` -> {name: {"installed": version|None, "candidate": version|None}}.

    Names apt does not know at all are absent from the output, hence from the result.
    """
    result, current = {}, None
    for line in (text or "").splitlines():
        if line and not line[0].isspace() and line.rstrip().endswith(":"):
            current = line.rstrip()[:-1].split(":", 1)[0] if line.count(":") > 1 else line.rstrip()[:-1]
            result[current] = {"installed": None, "candidate": None}
            continue
        stripped = line.strip()
        if current is None:
            continue
        for key in ("installed", "candidate"):
            prefix = key.capitalize() + ":"
            if stripped.startswith(prefix):
                value = stripped[len(prefix):].strip()
                result[current][key] = None if value in ("(none)", "") else value
    return result


def apt_candidates(branch, flavor):
    """Package names to ask apt about, in order of preference: (first, then) per method."""
    branch = str(branch)
    if flavor == "open":
        return [("pinning", "nvidia-driver-pinning-%s" % branch, "nvidia-open"),
                ("branch-suffixed", None, "nvidia-driver-%s-open" % branch),
                ("cuda-drivers-branch", None, "cuda-drivers-%s" % branch)]
    return [("pinning", "nvidia-driver-pinning-%s" % branch, "cuda-drivers"),
            ("branch-suffixed", None, "nvidia-driver-%s" % branch),
            ("cuda-drivers-branch", None, "cuda-drivers-%s" % branch)]


def apt_query_names(branch, flavor):
    """Every name apt_choose_packages looks at."""
    names = []
    for _method, first, then in apt_candidates(branch, flavor):
        names.extend(n for n in (first, then) if n and n not in names)
    return names


def apt_choose_packages(policy, branch, flavor):
    """Choose the install method from what the repository offers.

    policy: parse_apt_policy output. Returns {"ok", "method", "first": [...], "then": [...],
    "pin": bool (the role writes its own branch pin: cuda-drivers-B depends on an unbounded
    nvidia-driver and can pull in the next branch), "msg"}.
    """
    result = {"ok": False, "method": None, "first": [], "then": [], "pin": False, "msg": ""}
    available = set(name for name, row in (policy or {}).items() if row.get("candidate") or row.get("installed"))
    for method, first, then in apt_candidates(branch, flavor):
        if first and first not in available:
            continue
        if then not in available:
            continue
        result.update(ok=True, method=method, first=[first] if first else [], then=[then],
                      pin=method == "cuda-drivers-branch")
        if method == "pinning":
            result["msg"] = "%s first (keeps apt on branch %s), then %s" % (first, branch, then)
        else:
            result["msg"] = ("the repository has no %s: fell back to the branch-suffixed %s%s" % (
                "nvidia-driver-pinning-%s" % branch, then,
                " with a branch %s pin written by the role (it depends on an unbounded nvidia driver)" % branch
                if result["pin"] else ""))
        return result
    result["msg"] = ("the repository offers none of %s for branch %s %s: check nvidia_driver_repo_url, "
                     "nvidia_driver_branch and nvidia_driver_flavor" % (
                         ", ".join(apt_query_names(branch, flavor)), branch, flavor))
    return result


def load_state(gpu_count, nouveau_loaded, loaded, installed_version, parse=versions.parse):
    """After installing: {"reboot_required", "try_modprobe", "reason"}.

    No GPU (image build, container): nothing to load. nouveau bound: reboot. A loaded module
    of another version than the packages': reboot (the old module stays until then). No module
    loaded: try modprobe first (the caller reboots when that fails).
    """
    loaded = loaded or {}
    if not gpu_count:
        return {"reboot_required": False, "try_modprobe": False,
                "reason": "no NVIDIA GPU here: the driver is installed for the next boot on GPU hardware"}
    if nouveau_loaded:
        return {"reboot_required": True, "try_modprobe": False,
                "reason": "nouveau is loaded and holds the GPU; it is blacklisted now and goes away at boot"}
    if loaded.get("loaded"):
        if installed_version and loaded.get("version") and not same_version(loaded["version"], installed_version, parse):
            return {"reboot_required": True, "try_modprobe": False,
                    "reason": "the loaded module is %s, the installed packages %s" % (
                        loaded["version"], installed_version)}
        return {"reboot_required": False, "try_modprobe": False, "reason": "driver %s loaded" % loaded.get("version")}
    return {"reboot_required": False, "try_modprobe": True, "reason": "driver installed, not loaded yet"}


def headers_meta_package(kernel_release, os_family):
    """The package that keeps headers coming with kernel updates, "" when none can be told.

    Ubuntu "6.8.0-50-generic" -> linux-headers-generic; Debian "6.1.0-28-cloud-amd64" ->
    linux-headers-cloud-amd64; RHEL -> kernel-devel; a custom kernel -> "".
    """
    if os_family == "RedHat":
        return "kernel-devel"
    if os_family != "Debian":
        return ""
    match = re.match(r"^\d+\.\d+\.\d+-\d+(?:\.\d+)*-([a-z][a-z0-9-]*)$", str(kernel_release or ""))
    return "linux-headers-%s" % match.group(1) if match else ""
