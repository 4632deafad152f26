# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CUDA toolkit versions against the driver and the GPUs (docs/domain.md section 3).

- the minimum Linux driver of each toolkit (GA release) and the minor-version compatibility
  floor of each major (12.x runs on >= 525.60.13, 13.x on >= 580 without the newer minor's
  new features and PTX);
- which GPU architectures each toolkit can target (`nvcc --list-gpu-arch`);
- the default toolkit for a driver: the newest one the driver runs natively that can target
  every GPU;
- parsing `nvcc --version` and `nvcc --list-gpu-arch`, and the toolkit plan the cuda_toolkit
  role follows.

A table ages: the role verifies the installed nvcc's own answers after installing.
No Ansible import: the filter plugin and the unit tests use these functions.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import (
    gpu_label, parse_package_lines, plain_version)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

_ARCH_12_0 = (50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86, 87, 89, 90)
# toolkit (major, minor) -> (minimum Linux driver of the GA release, compute_XY it targets).
# 12.8-13.0 rows: docs/domain.md section 3 (13.0's arch list measured there). 12.0-12.6: NVIDIA's
# CUDA release notes ("CUDA Toolkit and Corresponding Driver Versions"); none of them can
# target Blackwell (sm_100 / sm_120 arrived with 12.8).
TOOLKITS = {
    (12, 0): ("525.60.13", _ARCH_12_0),
    (12, 1): ("530.30.02", _ARCH_12_0),
    (12, 2): ("535.54.03", _ARCH_12_0),
    (12, 3): ("545.23.06", _ARCH_12_0),
    (12, 4): ("550.54.14", _ARCH_12_0),
    (12, 5): ("555.42.02", _ARCH_12_0),
    (12, 6): ("560.28.03", _ARCH_12_0),
    (12, 8): ("570.26", _ARCH_12_0 + (100, 101, 120)),
    (12, 9): ("575.51.03", _ARCH_12_0 + (100, 101, 103, 120, 121)),
    (13, 0): ("580.65.06", (75, 80, 86, 87, 88, 89, 90, 100, 103, 110, 120, 121)),
}
# Minor-version compatibility: any toolkit of the major runs on this driver or newer.
MINOR_COMPAT_FLOOR = {12: "525.60.13", 13: "580"}
# What the cuda_toolkit role installs by default: the toolkits with Blackwell support.
INSTALLABLE = ((12, 8), (12, 9), (13, 0))

_NVCC_RELEASE = re.compile(r"release (\d+)\.(\d+), V(\d+(?:\.\d+)*)")
_VERSION = re.compile(r"^\s*(?:cuda[-_]?)?(\d+)[.\-_](\d+)(?:[.\-_]\d+)*\s*$", re.I)


def parse_cuda_version(value):
    """"12.8", "12-8", "cuda-12.8", "12.8.1", (12, 8) -> (12, 8). Raises ValueError otherwise."""
    if isinstance(value, (tuple, list)) and len(value) == 2:
        return int(value[0]), int(value[1])
    match = _VERSION.match(str(value if value is not None else ""))
    if not match:
        raise ValueError("not a CUDA version (X.Y): %r" % (value,))
    return int(match.group(1)), int(match.group(2))


def cuda_string(version):
    """(12, 8) -> "12.8"."""
    return "%d.%d" % tuple(version)


def package_name(version):
    """(12, 8) -> "cuda-toolkit-12-8" (the same on apt and dnf)."""
    return "cuda-toolkit-%d-%d" % tuple(parse_cuda_version(version))


def driver_tuple(version):
    """"580.95.05" -> (580, 95, 5); "580" -> (580,); debian "580.95.05-1" / epoch "1:" stripped.

    Raises ValueError for text that is not a driver version.
    """
    text = plain_version(str(version or "").strip()) or ""
    if not re.match(r"^\d+(\.\d+)*$", text):
        raise ValueError("not a driver version: %r" % (version,))
    return tuple(int(part) for part in text.split("."))


def minimum_driver(version):
    """Minimum Linux driver (GA) of a toolkit, or None when the table does not know it."""
    row = TOOLKITS.get(parse_cuda_version(version))
    return row[0] if row else None


def driver_supports(version, driver, minor_compat=False):
    """(ok, how) for toolkit `version` on driver `driver`.

    how: "native" (driver >= the toolkit's minimum), "minor_compat" (only through minor-version
    compatibility, allowed when minor_compat is true), or the reason it is refused.
    """
    cuda = parse_cuda_version(version)
    need = minimum_driver(cuda)
    if need is None:
        return False, "CUDA %s is not in the toolkit table (known: %s)" % (
            cuda_string(cuda), ", ".join(cuda_string(v) for v in sorted(TOOLKITS)))
    have = driver_tuple(driver)
    if have >= driver_tuple(need):
        return True, "native"
    floor = MINOR_COMPAT_FLOOR.get(cuda[0])
    if floor and have >= driver_tuple(floor):
        if minor_compat:
            return True, "minor_compat"
        return False, ("CUDA %s needs driver >= %s; driver %s runs it only through minor-version "
                       "compatibility (no new features or PTX of %s): set "
                       "cuda_toolkit_minor_version_compat: true to accept that" % (
                           cuda_string(cuda), need, driver, cuda_string(cuda)))
    return False, "CUDA %s needs driver >= %s; the driver is %s" % (cuda_string(cuda), need, driver)


def driver_cuda_version(driver):
    """The newest CUDA the table says `driver` runs natively, "13.0" for 580.95.05; None if none."""
    have = driver_tuple(driver)
    fits = [v for v, row in TOOLKITS.items() if have >= driver_tuple(row[0])]
    return cuda_string(max(fits)) if fits else None


def toolkit_archs(version):
    """["compute_75", ...] the table says the toolkit targets; [] for an unknown toolkit."""
    row = TOOLKITS.get(parse_cuda_version(version))
    return ["compute_%d" % arch for arch in row[1]] if row else []


def compute_name(capability):
    """"12.0" / "sm_120" / (12, 0) -> "compute_120"."""
    major, minor = parse_capability(capability)
    return "compute_%d%d" % (major, minor)


def untargetable(version, capabilities):
    """The GPUs' compute_XY names the toolkit cannot target (by the table)."""
    archs = set(toolkit_archs(version))
    return sorted(set(compute_name(cap) for cap in capabilities) - archs,
                  key=lambda name: int(name.split("_")[1]))


def default_toolkit(driver, capabilities=(), driver_cuda=None, choices=INSTALLABLE):
    """The newest toolkit of `choices` the driver runs natively and that targets every GPU.

    driver_cuda ("13.0", NVML's CUDA driver version) caps the choice when given. Returns
    "13.0" or None when nothing fits.
    """
    have = driver_tuple(driver)
    cap = parse_cuda_version(driver_cuda) if driver_cuda else None
    for version in sorted((parse_cuda_version(v) for v in choices), reverse=True):
        row = TOOLKITS.get(version)
        if not row or have < driver_tuple(row[0]) or (cap and version > cap):
            continue
        if untargetable(version, capabilities):
            continue
        return cuda_string(version)
    return None


def parse_nvcc_version(text):
    """"... Cuda compilation tools, release 12.8, V12.8.93 ..." -> {"release": "12.8", "full": "12.8.93"}.

    None when the text carries no release line.
    """
    match = _NVCC_RELEASE.search(text or "")
    if not match:
        return None
    return {"release": "%s.%s" % (match.group(1), match.group(2)), "full": match.group(3)}


def parse_gpu_archs(text):
    """`nvcc --list-gpu-arch` output -> ["compute_75", ...] in order, without duplicates."""
    seen = []
    for name in re.findall(r"\bcompute_\d+[a-z]?\b", text or ""):
        if name not in seen:
            seen.append(name)
    return seen


def nvcc_check(version_text, arch_text, expected, capabilities=()):
    """Check one installed nvcc: its release is `expected` and it targets every GPU.

    Returns {"ok", "release", "full", "archs", "missing", "msg"}.
    """
    want = cuda_string(parse_cuda_version(expected))
    parsed = parse_nvcc_version(version_text) or {}
    archs = parse_gpu_archs(arch_text)
    missing = [name for name in sorted(set(compute_name(cap) for cap in capabilities)) if name not in archs]
    problems = []
    if parsed.get("release") != want:
        problems.append("nvcc --version reports %s, expected %s" % (
            parsed.get("release") or "no release line", want))
    if missing:
        problems.append("nvcc --list-gpu-arch lacks %s (the GPUs here need them)" % ", ".join(missing))
    return {"ok": not problems, "release": parsed.get("release"), "full": parsed.get("full"),
            "archs": archs, "missing": missing,
            "msg": "; ".join(problems) if problems else "nvcc %s targets %s" % (
                parsed.get("full"), ", ".join(sorted(set(compute_name(c) for c in capabilities))) or "(no GPU)")}


def parse_found(text):
    """Lines "path<TAB>release" (each nvcc that answered) -> {"12.8": "/usr/local/cuda-12.8"}.

    For one release the directory named after it (cuda-12.8) wins over links to it
    (/usr/local/cuda, /usr/local/cuda-12), which win over nothing.
    """
    found, rank = {}, {}
    for line in (text or "").splitlines():
        path, _sep, release = line.partition("\t")
        path, release = path.strip(), release.strip()
        if not path or not release:
            continue
        try:
            key = cuda_string(parse_cuda_version(release))
        except ValueError:
            continue
        score = 2 if path.rstrip("/").rsplit("/", 1)[-1] == "cuda-" + key else 1
        if score > rank.get(key, 0):
            found[key], rank[key] = path, score
    return found


def current_release(text):
    """The release /usr/local/cuda answers with, from the same "path<TAB>release" lines; None if none."""
    for line in (text or "").splitlines():
        path, _sep, release = line.partition("\t")
        if path.strip().rstrip("/") == "/usr/local/cuda" and release.strip():
            try:
                return cuda_string(parse_cuda_version(release.strip()))
            except ValueError:
                return None
    return None


def toolkits_from_packages(text):
    """Installed packages ("name<TAB>version<TAB>status" lines) -> ["12.8", "13.0"] of cuda-toolkit-X-Y."""
    versions = []
    for package in parse_package_lines(text):
        match = re.match(r"^cuda-toolkit-(\d+)-(\d+)$", package["name"])
        if match:
            versions.append("%s.%s" % match.groups())
    return sorted(set(versions), key=parse_cuda_version)


def toolkit_plan(versions, default="", driver=None, driver_cuda=None, gpus=(), minor_compat=False,
                 manage="auto", installed=(), found=None, current=None):
    """Decide what the cuda_toolkit role does, before it changes anything.

    versions: requested toolkits ([] = choose one from the driver); default: the one
    /usr/local/cuda points at ("" = the newest requested); driver: the driver version the
    toolkits will run on (None when unknown); driver_cuda: NVML's CUDA driver version; gpus:
    ansible_facts.nvidia_gpus; manage: auto | true | false; installed: toolkit versions
    installed as packages ("12.8"); found: {"12.8": "/usr/local/cuda-12.8", ...} toolkits whose
    nvcc answers with that release, wherever they live (packages included); current: the
    release /usr/local/cuda/bin/nvcc answers with (None when none).

    manage auto leaves the toolkits alone (action adopt) when every requested release answers
    already and /usr/local/cuda answers with the default; otherwise it installs what is missing
    and points /usr/local/cuda at the default (action manage). true always manages; false checks.

    Returns {"ok", "problems", "warnings", "versions", "default", "install" (versions to
    install), "packages", "adopted" ({version: path} found answering, left as they are),
    "managed" (versions whose package is installed), "current",
    "action": manage | adopt | check, "driver", "driver_cuda", "chosen_from_driver"}.
    """
    found = dict(found or {})
    installed = [cuda_string(parse_cuda_version(v)) for v in (installed or [])]
    gpus = list(gpus or [])
    caps = [gpu.get("compute_capability") or gpu.get("sm") for gpu in gpus]
    plan = {"ok": False, "problems": [], "warnings": [], "versions": [], "default": None,
            "install": [], "packages": [], "adopted": {}, "managed": [], "action": "manage",
            "driver": driver or None, "driver_cuda": driver_cuda or None, "chosen_from_driver": False,
            "current": current or None}
    problems, warnings = plan["problems"], plan["warnings"]
    manage = str(manage).lower()
    if manage in ("yes", "on", "1"):
        manage = "true"
    elif manage in ("no", "off", "0"):
        manage = "false"
    if manage not in ("auto", "true", "false"):
        problems.append("cuda_toolkit_manage must be auto, true or false, not %r" % manage)
        return plan

    if driver:
        try:
            driver_tuple(driver)
        except ValueError as err:
            problems.append(str(err))
            return plan
        if not driver_cuda:
            plan["driver_cuda"] = driver_cuda_version(driver)

    try:
        wanted = [parse_cuda_version(v) for v in (versions or [])]
    except ValueError as err:
        problems.append("cuda_toolkit_versions: %s" % err)
        return plan
    if not wanted:
        if not driver:
            problems.append("cuda_toolkit_versions is empty and no driver version is known to choose "
                            "from: run the nvidia_driver role first, or set cuda_toolkit_versions "
                            "(or cuda_toolkit_driver_version)")
            return plan
        chosen = default_toolkit(driver, caps, plan["driver_cuda"])
        if not chosen:
            problems.append("no toolkit of %s runs on driver %s and targets %s" % (
                ", ".join(cuda_string(v) for v in INSTALLABLE), driver,
                ", ".join(gpu_label(g) for g in gpus) or "the GPUs"))
            return plan
        wanted = [parse_cuda_version(chosen)]
        plan["chosen_from_driver"] = True
    wanted = sorted(set(wanted))
    plan["versions"] = [cuda_string(v) for v in wanted]

    for version in wanted:
        label = cuda_string(version)
        if version not in TOOLKITS:
            problems.append("CUDA %s is not in the toolkit table (known: %s)" % (
                label, ", ".join(cuda_string(v) for v in sorted(TOOLKITS))))
            continue
        for gpu in gpus:
            cap = gpu.get("compute_capability") or gpu.get("sm")
            if untargetable(version, [cap]):
                problems.append("CUDA %s cannot target %s: its nvcc has no %s (Blackwell needs 12.8 "
                                "or newer)" % (label, gpu_label(gpu), compute_name(cap))
                                if parse_capability(cap)[0] >= 10 else
                                "CUDA %s cannot target %s: its nvcc has no %s" % (
                                    label, gpu_label(gpu), compute_name(cap)))
        if driver:
            ok, how = driver_supports(version, driver, minor_compat)
            if not ok:
                problems.append(how)
            elif how == "minor_compat":
                warnings.append("CUDA %s runs on driver %s only through minor-version compatibility "
                                "(needs %s for all its features)" % (label, driver, minimum_driver(version)))
        else:
            warnings.append("no driver version known: CUDA %s was not checked against the minimum "
                            "driver %s" % (label, minimum_driver(version)))

    if default:
        try:
            chosen_default = parse_cuda_version(default)
        except ValueError as err:
            problems.append("cuda_toolkit_default_version: %s" % err)
            return plan
        if chosen_default not in wanted:
            problems.append("cuda_toolkit_default_version %s is not one of cuda_toolkit_versions %s" % (
                cuda_string(chosen_default), ", ".join(plan["versions"])))
    else:
        chosen_default = wanted[-1]
    plan["default"] = cuda_string(chosen_default)
    if problems:
        return plan

    for version in wanted:
        label = cuda_string(version)
        if label in installed:
            plan["managed"].append(label)
        if manage == "true":
            if label not in installed:
                plan["install"].append(label)
                if label in found:
                    warnings.append("CUDA %s already answers at %s outside the package manager; "
                                    "cuda_toolkit_manage is true, so the package is installed as well" % (
                                        label, found[label]))
        elif label in found:
            plan["adopted"][label] = found[label]
        elif label in installed:
            pass  # the package is there; verify.yml asks its nvcc
        elif manage == "false":
            problems.append("CUDA %s is not installed and cuda_toolkit_manage is false (check only)" % label)
        else:
            plan["install"].append(label)
    plan["packages"] = [package_name(v) for v in plan["install"]]
    if manage == "false":
        plan["action"] = "check"
    elif manage == "auto" and not plan["install"] and current == plan["default"]:
        plan["action"] = "adopt"
    plan["ok"] = not problems
    return plan
