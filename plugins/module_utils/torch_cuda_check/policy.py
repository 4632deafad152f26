# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""torch_cuda_check's policy: which requirements a report meets, and what to do when not.

What is required is the caller's choice (`require`, `min_verdict`); without requirements the
check only reports. Each unmet requirement becomes one message naming the GPU (index, name,
sm), what was required, what was found and what to do.

No Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.probes import PROBES
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import (
    parse_image, verdict_at_least)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.labels import gpu_label

BUILD_REQUIREMENTS = ("nccl", "torchvision", "torchaudio")
# Every name `require` accepts; the module's documentation says what each one asks for.
REQUIREMENTS = ("cuda", "native", "forward_compatible", "native_sass_launch") + PROBES + BUILD_REQUIREMENTS


def _late_channel(capability):
    """The first wheel channel with SASS for `capability` (the GPU catalogue's) where that came after the
    oldest channel the catalogue knows (Blackwell: cu128), else None."""
    first = catalogue.first_wheel_channel(capability)
    oldest = min(row["wheel_sass"][0] for row in catalogue.ARCHITECTURES.values() if row["wheel_sass"])
    return first if first and first > oldest else None


def wheel_remedy(capability: Sequence[int], sass: Sequence[str]) -> str:
    """What to install so that a GPU of `capability` (major, minor) gets native kernels."""
    sm = "sm_%d%d" % tuple(capability)
    late = _late_channel(tuple(capability))
    if late:
        return "install a cu%d%d+ wheel" % late
    plain = [parse_image(name) for name in sass]
    plain = [image for image in plain if image and not image["variant"]]
    oldest = min(plain, key=lambda image: image["capability"]) if plain else None
    if oldest and tuple(capability) < oldest["capability"]:
        return ("this build's oldest SASS is %s: install a wheel of an older CUDA channel that lists %s "
                "(2.7.1+cu126 lists sm_50 to sm_90)" % (oldest["name"], sm))
    return "install a wheel whose torch.cuda.get_arch_list() lists %s" % sm


def _verdict_failure(gpu, build, wanted):
    verdict = gpu["kernel_image"]
    return "%s: %s required, found %s: torch %s has %s: %s" % (
        gpu_label(gpu), wanted, verdict["verdict"], build["torch_version"], verdict["reason"],
        wheel_remedy(parse_capability(gpu["compute_capability"]), build["sass"]))


def _run_failure(gpu, wanted, mode, remedy):
    run = gpu["runs"][mode]
    return "%s: %s required, found the %s run %s: %s: %s" % (
        gpu_label(gpu), wanted, run["env"] or "normal", run["status"], run["error"], remedy)


def _gpu_failures(gpu, build, require, min_verdict):
    failures = []
    verdict = gpu["kernel_image"]
    if min_verdict and not verdict_at_least(verdict["verdict"], min_verdict):
        failures.append(_verdict_failure(gpu, build, "min_verdict=%s" % min_verdict))
    for name in require:
        if name == "cuda" and gpu["runs"]["normal"]["status"] != "ok":
            failures.append(_run_failure(gpu, name, "normal", "see gpus[%s].runs.normal" % gpu["index"]))
        elif name == "native" and verdict["verdict"] != "native":
            failures.append(_verdict_failure(gpu, build, name))
        elif name == "native" and gpu["runs"]["disable_ptx_jit"]["status"] != "ok":
            failures.append(_run_failure(gpu, name, "disable_ptx_jit", "the arch list lists %s but it did not "
                                         "run natively: check the driver (nvidia-smi) and reinstall torch"
                                         % verdict["image"]))
        elif name == "forward_compatible" and gpu["runs"]["force_ptx_jit"]["status"] != "ok":
            failures.append(_run_failure(gpu, name, "force_ptx_jit", (
                "torch %s has no PTX: build from source with TORCH_CUDA_ARCH_LIST ending in +PTX"
                % build["torch_version"]) if not build["ptx"] else "see gpus[%s].runs.force_ptx_jit" % gpu["index"]))
        elif name == "native_sass_launch" and gpu["native_sass_launch"]["status"] != "ok":
            test = gpu["native_sass_launch"]
            failures.append("%s: native_sass_launch required, found %s: %s: %s" % (
                gpu_label(gpu), test["status"], test["error"],
                "install NVRTC (the nvidia-cuda-nvrtc wheel of torch's CUDA, or a CUDA toolkit)"
                if test["status"] == "unavailable" else "check the NVIDIA driver (nvidia-smi, dmesg)"))
        elif name in PROBES and gpu["probes"][name]["status"] != "ok":
            probe = gpu["probes"][name]
            failures.append("%s: %s required, found %s: %s: see gpus[%s].probes.%s" % (
                gpu_label(gpu), name, probe["status"], probe.get("error") or probe.get("reason"),
                gpu["index"], name))
    return failures


def _build_failures(report, require):
    failures = []
    build, torch_version = report["build"], report["build"]["torch_version"]
    if "nccl" in require and not build["nccl"]["available"]:
        failures.append("nccl required, found torch.distributed.is_nccl_available() false in torch %s: "
                        "install a Linux CUDA build of torch (NCCL ships with it)" % torch_version)
    for name in ("torchvision", "torchaudio"):
        companion = report["companions"][name]
        if name not in require or (companion["import_ok"] and companion["match"] is not False):
            continue
        found = companion["reason"] if companion["import_ok"] or companion["installed"] is None else (
            "%s %s does not import (%s)" % (name, companion["installed"], companion["import_error"]))
        todo = ("install %s==%s together with torch==%s in one pip call" % (
            name, companion["expected"], torch_version.split("+")[0]) if companion["expected"]
            else "check the package index for the %s release of torch %s" % (name, torch_version))
        failures.append("%s required, found: %s: %s" % (name, found, todo))
    return failures


def unmet(report: Mapping[str, Any], require: Sequence[str] | None = (), min_verdict: str | None = None) -> list[str]:
    """Messages for every requirement `report` (from run_check) does not meet; [] when all are met."""
    require = list(require or ())
    failures = _build_failures(report, require)
    gpu_wanted = (["min_verdict=%s" % min_verdict] if min_verdict else []) + [
        name for name in require if name not in BUILD_REQUIREMENTS]
    if not gpu_wanted:
        return failures
    if not report["gpus"]:
        build = report["build"]
        reason = report["cuda"]["reason"] or "no GPU is visible (device count 0)"
        todo = ("install a CUDA build of torch (a cuXYZ wheel)" if build["cuda_runtime"] is None
                else "check the NVIDIA driver (nvidia-smi) and CUDA_VISIBLE_DEVICES")
        return failures + ["%s required, but CUDA is not usable from %s (torch %s): %s: %s" % (
            ", ".join(gpu_wanted), report["python"], build["torch_version"], reason, todo)]
    for gpu in report["gpus"]:
        failures.extend(_gpu_failures(gpu, report["build"], require, min_verdict))
    return failures
