# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""CUDA toolkit versions against the driver and the GPUs (docs/domain.md section 3).

- the minimum Linux driver of each toolkit (GA release) and the minor-version compatibility
  floor of each major (12.x runs on >= 525.60.13, 13.x on >= 580 without the newer minor's
  new features and PTX);
- which GPU architectures each toolkit can target (`nvcc --list-gpu-arch`, from the GPU catalogue)
  and the oldest driver branch of each architecture;
- the default toolkit for a driver: the newest one the driver runs natively that can target
  every GPU;
- parsing `nvcc --version` and `nvcc --list-gpu-arch`, and checking one nvcc against the GPUs
  (the toolkit plan the cuda_toolkit role follows is in driver/toolkit_plan.py).

A table ages: the role verifies the installed nvcc's own answers after installing.
Driver versions compare through `parse` (common.versions.parse by default; the filters pass
packaging's). No Ansible import: the filter plugins and the unit tests use these functions.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import parse_package_lines, plain_version
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import driver_branch, toolkit_targets
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

# toolkit (major, minor) -> minimum Linux driver of the GA release. 12.8-13.0: docs/domain.md section 3.
# 12.0-12.6: NVIDIA's CUDA release notes ("CUDA Toolkit and Corresponding Driver Versions"). Which
# compute capabilities each toolkit targets is the GPU catalogue's (hardware.catalogue: first and
# last toolkit of each capability; none before 12.8 targets Blackwell).
TOOLKITS = {
    (12, 0): "525.60.13",
    (12, 1): "530.30.02",
    (12, 2): "535.54.03",
    (12, 3): "545.23.06",
    (12, 4): "550.54.14",
    (12, 5): "555.42.02",
    (12, 6): "560.28.03",
    (12, 8): "570.26",
    (12, 9): "575.51.03",
    (13, 0): "580.65.06",
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


def driver_key(version, parse=versions.parse):
    """Sort key of a driver version: "580.95.05", "580"; debian "580.95.05-1" / epoch "1:" stripped.

    parse: the version parser (common.versions.parse; the filters pass packaging's), so "580" <
    "580.65.06" < "580.95.05". Raises ValueError for text that is not a driver version.
    """
    text = plain_version(str(version or "").strip()) or ""
    fields = parse(text) if re.match(r"^\d+(\.\d+)*$", text) else None
    if fields is None:
        raise ValueError("not a driver version: %r" % (version,))
    return fields["key"]


def minimum_driver(version):
    """Minimum Linux driver (GA) of a toolkit, or None when the table does not know it."""
    return TOOLKITS.get(parse_cuda_version(version))


def driver_supports(version, driver, minor_compat=False, parse=versions.parse):
    """(ok, how) for toolkit `version` on driver `driver`.

    how: "native" (driver >= the toolkit's minimum), "minor_compat" (only through minor-version
    compatibility, allowed when minor_compat is true), or the reason it is refused.
    """
    cuda = parse_cuda_version(version)
    need = minimum_driver(cuda)
    if need is None:
        return False, "CUDA %s is not in the toolkit table (known: %s)" % (
            cuda_string(cuda), ", ".join(cuda_string(v) for v in sorted(TOOLKITS)))
    have = driver_key(driver, parse)
    if have >= driver_key(need, parse):
        return True, "native"
    floor = MINOR_COMPAT_FLOOR.get(cuda[0])
    if floor and have >= driver_key(floor, parse):
        if minor_compat:
            return True, "minor_compat"
        return False, ("CUDA %s needs driver >= %s; driver %s runs it only through minor-version "
                       "compatibility (no new features or PTX of %s): set "
                       "cuda_toolkit_minor_version_compat: true to accept that" % (
                           cuda_string(cuda), need, driver, cuda_string(cuda)))
    return False, "CUDA %s needs driver >= %s; the driver is %s" % (cuda_string(cuda), need, driver)


def driver_cuda_version(driver, parse=versions.parse):
    """The newest CUDA the table says `driver` runs natively, "13.0" for 580.95.05; None if none."""
    have = driver_key(driver, parse)
    fits = [v for v, need in TOOLKITS.items() if have >= driver_key(need, parse)]
    return cuda_string(max(fits)) if fits else None


def toolkit_archs(version):
    """["compute_75", ...] the toolkit targets (the catalogue's); [] for a toolkit not in TOOLKITS."""
    version = parse_cuda_version(version)
    if version not in TOOLKITS:
        return []
    return ["compute_%d%d" % capability for capability in toolkit_targets(version)]


def minimum_branch(capability):
    """The oldest driver branch that drives a GPU of this compute capability (the catalogue's), or None.

    None for architectures every toolkit of the table targets (any supported branch drives them)
    and for ones the catalogue does not know.
    """
    return driver_branch(parse_capability(capability))


def compute_name(capability):
    """"12.0" / "sm_120" / (12, 0) -> "compute_120"."""
    major, minor = parse_capability(capability)
    return "compute_%d%d" % (major, minor)


def untargetable(version, capabilities):
    """The GPUs' compute_XY names the toolkit cannot target (by the table)."""
    archs = set(toolkit_archs(version))
    return sorted(set(compute_name(cap) for cap in capabilities) - archs,
                  key=lambda name: int(name.split("_")[1]))


def default_toolkit(driver, capabilities=(), driver_cuda=None, choices=INSTALLABLE, parse=versions.parse):
    """The newest toolkit of `choices` the driver runs natively and that targets every GPU.

    driver_cuda ("13.0", NVML's CUDA driver version) caps the choice when given. Returns
    "13.0" or None when nothing fits.
    """
    have = driver_key(driver, parse)
    cap = parse_cuda_version(driver_cuda) if driver_cuda else None
    for version in sorted((parse_cuda_version(v) for v in choices), reverse=True):
        need = TOOLKITS.get(version)
        if not need or have < driver_key(need, parse) or (cap and version > cap):
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


def nvcc_check_gpus(version_text, arch_text, expected, gpus=()):
    """nvcc_check for the GPUs of ansible_facts.nvidia_gpus (compute_capability "12.0" or sm "sm_120")."""
    return nvcc_check(version_text, arch_text, expected,
                      [gpu.get("compute_capability") or gpu.get("sm") for gpu in gpus or ()])
