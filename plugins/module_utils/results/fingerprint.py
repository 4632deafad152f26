# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stack fingerprint: what a stored verification result depends on, and whether it still holds.

Components: the loaded NVIDIA driver's version, the CUDA toolkit's version, the torch build
(version, CUDA, git revision), the stack's installed-package set (name==version of every
distribution in its site-packages), the GPUs' UUIDs, the digest of the verification code
(given by the controller, plugins/plugin_utils/code_digest.py) and the run's settings (profile,
tests, sizes, gates: module_utils/verify/plan.py). The host's parts are read from files only
(/sys, /proc, version.json, *.dist-info names, torch/version.py), so taking a fingerprint costs
milliseconds and imports nothing. The collection's version is kept in the record for display
and is not compared: a version can stay the same across changes of the code. A stored result is
reused only when it parses, has the shape its readers use (module_utils/results/stored.py: a damaged file is
not used, and the reason says which file and why), passed, and its compared components equal the current ones.
No Ansible import.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import DIRECTORY, FILE, path_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import (
    installed_torch, packages, read_text, site_dirs)
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import stored as stored_results

__all__ = ["COMPONENTS", "SCHEMA", "cuda_toolkit", "decide", "differences", "digest", "driver_version", "fingerprint",
           "gpu_models", "gpu_uuids", "input_path_problems", "installed_torch", "load", "packages", "site_dirs"]
SCHEMA = "blackwell.pytorch.verify/1"
COMPONENTS = ("driver_version", "cuda_toolkit", "torch", "packages", "gpu_uuids", "code", "settings")
_DRIVER_RE = re.compile(r"Kernel Module(?: for [\w.]+)?\s+([0-9]+(?:\.[0-9]+)+)")
_UUID_RE = re.compile(r"^GPU UUID:\s*(\S+)", re.MULTILINE)
_MODEL_RE = re.compile(r"^Model:\s*(.+?)\s*$", re.MULTILINE)


def driver_version(root: str = "/") -> str | None:
    """The loaded kernel module's version (/sys/module/nvidia/version, else /proc/driver/nvidia/version)."""
    text = read_text(os.path.join(root, "sys/module/nvidia/version"))
    if text and text.strip():
        return text.strip()
    match = _DRIVER_RE.search(read_text(os.path.join(root, "proc/driver/nvidia/version")) or "")
    return match.group(1) if match else None


def _gpu_information(root):
    """[(pci_bus_id, text)] of the driver's /proc/driver/nvidia/gpus/*/information files, in bus order."""
    return [(os.path.basename(os.path.dirname(path)), read_text(path) or "")
            for path in sorted(glob.glob(os.path.join(root, "proc/driver/nvidia/gpus/*/information")))]


def gpu_uuids(root: str = "/") -> list[str]:
    """Sorted UUIDs of the GPUs the driver initialised (/proc/driver/nvidia/gpus/*/information)."""
    return sorted(match.group(1) for match in (_UUID_RE.search(text) for _bus, text in _gpu_information(root))
                  if match)


def gpu_models(root: str = "/") -> list[dict[str, str]]:
    """[{pci_bus_id, name, uuid}] of the GPUs the driver initialised, in bus order, from the same files as
    gpu_uuids(): the names the verify role's default gates are chosen by, without an NVML call."""
    gpus = []
    for bus, text in _gpu_information(root):
        model, uuid = _MODEL_RE.search(text), _UUID_RE.search(text)
        if model:
            gpus.append({"pci_bus_id": bus, "name": model.group(1), "uuid": uuid.group(1) if uuid else None})
    return gpus


# The verify role's path inputs (stack_fingerprint's input_paths): variable -> (kind, example[, what the file is]);
# any other name is a directory.
INPUT_PATHS = {"verify_python": (FILE, "/opt/pytorch/current/bin/python", "the interpreter itself"),
               "verify_cuda_home": (DIRECTORY, "/usr/local/cuda")}


def input_path_problems(paths: Mapping[str, str], stat: Callable[[str], os.stat_result] = os.stat) -> list[str]:
    """The refusals of the role's path inputs ({variable: path}, common/path_inputs.py): relative, a file where a
    directory is due (verify_cuda_home), a directory where a file is due (verify_python); in variable order."""
    return path_problems([(name, path) + INPUT_PATHS.get(name, (DIRECTORY, ""))
                          for name, path in sorted((paths or {}).items())], stat)


def cuda_toolkit(cuda_home: str) -> str | None:
    """The toolkit's version from <cuda_home>/version.json (CUDA 11.1+) or version.txt; None without one."""
    text = read_text(os.path.join(cuda_home, "version.json"))
    if text:
        try:
            version = json.loads(text)["cuda"]["version"]
        except (ValueError, KeyError, TypeError):
            version = None
        if isinstance(version, str):  # a damaged version.json (another kind there) falls back to version.txt
            return version
    match = re.search(r"CUDA Version\s+([0-9.]+)", read_text(os.path.join(cuda_home, "version.txt")) or "")
    return match.group(1) if match else None


def digest(components: Mapping[str, Any]) -> str:
    """sha256 of the canonical JSON of the compared components."""
    text = json.dumps(dict((key, components.get(key)) for key in COMPONENTS), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def fingerprint(python: str, cuda_home: str, collection_version: str, root: str = "/", code: str = "",
                settings: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The current fingerprint: every component, `collection_version` (not compared), and `digest` over the
    compared components."""
    package_set = packages(python)
    result = {"driver_version": driver_version(root), "cuda_toolkit": cuda_toolkit(cuda_home),
              "torch": installed_torch(python, package_set), "packages": package_set, "gpu_uuids": gpu_uuids(root),
              "code": code, "settings": settings if settings is not None else {},
              "collection_version": collection_version}
    result["digest"] = digest(result)
    return result


def missing_text(python: str) -> str:
    """The refusal of a stack interpreter `python` that is not there (a run without --check)."""
    return ("the stack's interpreter %s (verify_python) is not there: give the interpreter of the stack to verify, "
            "e.g. -e verify_python=/opt/pytorch/current/bin/python (the pytorch stage of site.yml makes "
            "<pytorch_root>/current)" % python)


# how every check-mode preview of the verify role ends (preview_text, decision.pending_change)
PREVIEW_END = ("neither checked nor benchmarked now; a run without --check checks it with torch_cuda_check, "
               "benchmarks it and stores verify.json")


def preview_text(python: str) -> str:
    """What a check run says of a stack whose interpreter `python` is not there yet (a fresh host)."""
    return ("check mode: %s is not there yet (a run without --check makes the stack in the pytorch stage), so it is %s"
            % (python, PREVIEW_END))


def differences(stored: Mapping[str, Any], current: Mapping[str, Any]) -> list[str]:
    """Components that differ (every component when there is no stored fingerprint)."""
    if not isinstance(stored, dict):
        return list(COMPONENTS)
    return [key for key in COMPONENTS if stored.get(key) != current.get(key)]


def load(path: str) -> dict[str, Any] | None:
    """The stored document at `path`, or None when it is missing, unreadable, not JSON, of another
    schema, or damaged (stored.read(): a key its readers use of another kind): a damaged file counts as no
    file. stored.read() also says why."""
    return stored_results.read(path)[0]


def decide(stored: Mapping[str, Any] | None, current: Mapping[str, Any], force: bool = False,
           problem: str | None = None) -> tuple[bool, str, list[str]]:
    """(reuse, reason, changed components) for a stored document against the current fingerprint; `problem`:
    why the file at its path is not used (stored.read()), said in the reason."""
    if stored is None:
        if problem:
            return False, stored_results.unused_reason(problem), list(COMPONENTS)
        return False, "no stored result (missing or unreadable)", list(COMPONENTS)
    changed = differences(stored["fingerprint"], current)
    if force:
        return False, "forced", changed
    if changed:
        return False, "fingerprint changed: %s" % ", ".join(changed), changed
    if not stored["passed"]:
        return False, "the stored result failed", []
    return True, "fingerprint unchanged since %s and the stored result passed" % stored.get("written"), []
