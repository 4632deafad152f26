# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Facts of a PyTorch source build (docs/domain.md section 5), decided before hours of compiling.

- arch_list(): TORCH_CUDA_ARCH_LIST from the compute capabilities of every GPU of every host.
- arch_rejections(): which of those names the tree's select_compute_arch.cmake rejects ("Unknown
  CUDA Architecture Name": old trees accept only single-digit majors, so 10.0 and 12.0 fail).
- nvcc_rejections(): which of them the toolkit's `nvcc --list-gpu-arch` cannot compile for.
- max_jobs(): MAX_JOBS from cores and available memory (one nvcc job can take several GiB).
- nvcc_version(): "12.8" from `nvcc --version`.

No Ansible import.
"""
from __future__ import annotations

import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability

DEFAULT_GIB_PER_JOB = 4.0
_SPLIT = re.compile(r"[;\s]+")


def arch_list_entries(text):
    """The entries of a TORCH_CUDA_ARCH_LIST text: "8.9;12.0+PTX" or "8.9 12.0" -> ["8.9", "12.0+PTX"]."""
    return [item for item in _SPLIT.split(str(text or "").strip()) if item]


def arch_list(gpu_lists, ptx=False):
    """TORCH_CUDA_ARCH_LIST ("8.9;12.0") for the GPUs of all hosts: a list of per-host GPU lists (entries
    with compute_capability "12.0" or sm "sm_120"). ptx adds +PTX to the newest (forward compatibility).
    "" when there is no GPU at all."""
    capabilities = set()
    for gpus in gpu_lists or ():
        for gpu in gpus or ():
            if not (gpu.get("compute_capability") or gpu.get("sm")):
                continue  # sysfs facts of an unknown PCI id: nothing to build for
            capabilities.add(parse_capability(gpu.get("compute_capability") or gpu.get("sm")))
    names = ["%d.%d" % cap for cap in sorted(capabilities)]
    if names and ptx:
        names[-1] += "+PTX"
    return ";".join(names)


def _cmake_string(text):
    """A CMake quoted argument's value: backslash escapes resolved ("\\\\." -> "\\.")."""
    return re.sub(r"\\(.)", r"\1", text)


def accepted_names(cmake_text):
    """What select_compute_arch.cmake accepts: {"numeric": the regex numeric names must match (Python
    syntax) or None, "names": the architecture names it knows (Kepler, ..., Blackwell)}."""
    numeric = None
    for pattern in re.findall(r'arch_name\s+MATCHES\s+"([^"]+)"', cmake_text or ""):
        value = _cmake_string(pattern)
        if value.startswith("^"):
            numeric = value
    names = sorted(set(re.findall(r'\$\{arch_name\}\s+STREQUAL\s+"([^"]+)"', cmake_text or "")))
    return {"numeric": numeric, "names": names}


def arch_rejections(cmake_text, arch_list_text):
    """The entries of TORCH_CUDA_ARCH_LIST the tree rejects, each {"name", "reason"}; [] when all pass.

    The cmake file strips a +PTX suffix, then takes a name matching its numeric pattern or one of its
    known architecture names; anything else ends the configure step with "Unknown CUDA Architecture
    Name". A file without a numeric pattern is reported as such for every numeric entry.
    """
    accepted = accepted_names(cmake_text)
    rejected = []
    for entry in arch_list_entries(arch_list_text):
        name = entry[:-4] if entry.endswith("+PTX") else entry
        if name in accepted["names"]:
            continue
        if accepted["numeric"] and re.match(accepted["numeric"], name):
            continue
        rejected.append({"name": entry, "reason": (
            "%s does not match the tree's pattern %s and is not one of its names (%s)"
            % (name, accepted["numeric"], ", ".join(accepted["names"]) or "none")
            if accepted["numeric"] else "the tree's select_compute_arch.cmake has no numeric pattern")})
    return rejected


def nvcc_rejections(list_gpu_arch_output, arch_list_text):
    """Entries whose compute_XY `nvcc --list-gpu-arch` does not list ([] when the output is empty:
    older nvcc without that option)."""
    known = set(re.findall(r"compute_(\d+[af]?)", list_gpu_arch_output or ""))
    if not known:
        return []
    rejected = []
    for entry in arch_list_entries(arch_list_text):
        name = entry[:-4] if entry.endswith("+PTX") else entry
        try:
            major, minor = parse_capability(name.rstrip("af"))
        except ValueError:
            continue  # a family name (Hopper): the cmake check judges it
        code = "%d%d%s" % (major, minor, name[-1] if name[-1] in "af" else "")
        if code not in known:
            rejected.append({"name": entry, "reason": "nvcc --list-gpu-arch has no compute_%s" % code})
    return rejected


def build_rejections(arch_list_text, cmake_text, nvcc_arch_output=""):
    """Entries of TORCH_CUDA_ARCH_LIST the tree (arch_rejections) or the toolkit's nvcc (nvcc_rejections,
    skipped when the output is empty) cannot build, the tree's first."""
    return arch_rejections(cmake_text, arch_list_text) + nvcc_rejections(nvcc_arch_output, arch_list_text)


def max_jobs(cpus, memory_mb, gib_per_job=DEFAULT_GIB_PER_JOB, override=0):
    """{"max_jobs", "reason"}: cores, limited by available memory / GiB per job, at least 1.

    Raises ValueError when an argument is not a number or gib_per_job is not positive.
    """
    try:
        cpus, memory_mb, gib_per_job = max(1, int(cpus or 1)), float(memory_mb or 0), float(gib_per_job)
        override = int(override or 0)
    except (TypeError, ValueError) as err:
        raise ValueError("cpus, memory_mb, gib_per_job and override must be numbers: %s" % err)
    if gib_per_job <= 0:
        raise ValueError("gib_per_job must be more than 0, not %g" % gib_per_job)
    if override > 0:
        return {"max_jobs": int(override), "reason": "pytorch_build_max_jobs is %d" % int(override)}
    by_memory = int(float(memory_mb or 0) / 1024.0 / float(gib_per_job))
    jobs = max(1, min(cpus, by_memory))
    return {"max_jobs": jobs, "reason": "%d cores, %d MiB available / %g GiB per job = %d: MAX_JOBS=%d" % (
        cpus, int(memory_mb or 0), float(gib_per_job), by_memory, jobs)}


def nvcc_version(text):
    """"Cuda compilation tools, release 12.8, V12.8.93" -> "12.8"; None when not found."""
    match = re.search(r"release (\d+\.\d+)", text or "")
    return match.group(1) if match else None
