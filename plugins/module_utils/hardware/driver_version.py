# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Facts about the loaded NVIDIA kernel driver, from /proc/driver/nvidia/version and NVML."""
from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions

_VERSION_RE = re.compile(r"\b(\d{3,4}\.\d{1,3}(?:\.\d{1,3})?)\b")


def parse_proc_version(text: str | None) -> dict[str, str | None]:
    """Parse the content of /proc/driver/nvidia/version.

    Open module:        "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.159.04  ..."
    Proprietary module: "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  ..."
    Returns {"version": str or None, "flavor": "open" | "proprietary" | "unknown"}.
    """
    first = ""
    for line in (text or "").splitlines():
        if line.startswith("NVRM version:"):
            first = line
            break
    if not first:
        return {"version": None, "flavor": "unknown"}
    if "Open Kernel Module" in first:
        flavor = "open"
    elif "Kernel Module" in first:
        flavor = "proprietary"
    else:
        flavor = "unknown"
    match = _VERSION_RE.search(first.split("Kernel Module", 1)[-1])
    return {"version": match.group(1) if match else None, "flavor": flavor}


def driver_branch(version: str | None, parse: Callable[[str], Mapping[str, Any] | None] = versions.parse) -> str | None:
    """"580.159.04" -> "580"; None, or text that is not a version, -> None.

    parse: the version parser (common.versions.parse here; the controller passes packaging's).
    """
    fields = parse(version) if version else None
    return str(fields["release"][0]) if fields else None


def cuda_version_string(value: int | None) -> str | None:
    """NVML's integer CUDA driver version (13000, 12080) -> "13.0", "12.8"."""
    if value is None:
        return None
    value = int(value)
    return "%d.%d" % (value // 1000, (value % 1000) // 10)


def driver_facts(proc_text: str | None = None, nvml_version: str | None = None, nvml_cuda: int | None = None,
                 nvml_error: str | None = None, module_loaded: bool = None) -> dict[str, Any]:
    """Assemble ansible_facts.nvidia_driver.

    proc_text: content of /proc/driver/nvidia/version, or None when absent.
    nvml_version / nvml_cuda: from nvmlSystemGetDriverVersion / GetCudaDriverVersion_v2.
    module_loaded: True when /sys/module/nvidia exists (used when procfs is not readable).
    """
    parsed = parse_proc_version(proc_text) if proc_text else {"version": None, "flavor": "unknown"}
    version = nvml_version or parsed["version"]
    loaded = bool(nvml_version) or proc_text is not None or bool(module_loaded)
    return {
        "loaded": loaded,
        "version": version,
        "branch": driver_branch(version),
        "cuda_driver_version": cuda_version_string(nvml_cuda),
        "kernel_module_flavor": parsed["flavor"] if loaded else "unknown",
        "source": "nvml" if nvml_version else ("procfs" if proc_text is not None else "none"),
        "nvml_error": nvml_error,
    }
