# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A Python environment read from its files, without running it: its site directories, the
distributions installed there (*.dist-info / *.egg-info names) and its torch build
(torch/version.py). Costs milliseconds where importing torch costs seconds. read_text() is the collection's
one way to read a small text file that may be absent. No Ansible import.
"""
from __future__ import annotations

import glob
import os
import re
from collections.abc import Iterable

_TORCH_FIELD_RE = re.compile(r"^(git_version|cuda|hip)\s*(?::\s*[\w\[\], ]+)?=\s*['\"]?([^'\"\n]*)['\"]?", re.MULTILINE)


def read_text(path: str | None) -> str | None:
    """The text of a file as UTF-8, bytes that are not UTF-8 replaced (U+FFFD) and line ends kept as they are;
    None when the path is empty or missing, not a regular file (a directory, a device, a pipe) or unreadable."""
    if not path or not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as stream:
            return stream.read().decode("utf-8", "replace")
    except (IOError, OSError):
        return None


def normalized(name: str) -> str:
    """A distribution name as compared (PEP 503): 'nvidia_ml_py' and 'Nvidia-ML.py' are 'nvidia-ml-py'."""
    return re.sub(r"[-_.]+", "-", str(name)).lower()


def site_dirs(python: str) -> list[str]:
    """site-packages / dist-packages directories of the environment whose interpreter is `python`
    (bin/python of a venv: the venv's own; symlinks are not followed, so a venv stays itself)."""
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    found = []
    for pattern in ("lib/python3*/site-packages", "lib64/python3*/site-packages", "lib/python3*/dist-packages"):
        found.extend(sorted(glob.glob(os.path.join(prefix, pattern))))
    return found


def packages(python: str) -> list[str]:
    """Sorted "name==version" of every distribution installed in the environment."""
    found = set()
    for directory in site_dirs(python):
        for path in glob.glob(os.path.join(directory, "*.dist-info")) + glob.glob(os.path.join(directory, "*.egg-info")):
            stem = os.path.basename(path).rsplit(".", 1)[0]
            name, sep, version = stem.partition("-")
            if sep:
                found.add("%s==%s" % (normalized(name), version.split("-py")[0]))
    return sorted(found)


_TORCH_VERSION_RE = re.compile(r"^__version__\s*(?::\s*str\s*)?=\s*['\"]([^'\"\n]+)['\"]", re.MULTILINE)


def torch_version(python: str) -> str | None:
    """torch.__version__ as torch/version.py states it ("2.11.0+cu130", where the wheel from PyPI is
    named 2.11.0), or None when the environment has no torch."""
    for directory in site_dirs(python):
        match = _TORCH_VERSION_RE.search(read_text(os.path.join(directory, "torch", "version.py")) or "")
        if match:
            return match.group(1)
    return None


def installed_torch(python: str, package_set: Iterable[str]) -> dict[str, str | None] | None:
    """{version, cuda, git_version} of the environment's installed torch, read from its files without importing
    it (None when torch is not installed); stack_probe.torch_build is what an imported torch says."""
    version = None
    for entry in package_set:
        if entry.startswith("torch=="):
            version = entry.split("==", 1)[1]
    if version is None:
        return None
    build = {"version": version, "cuda": None, "git_version": None}
    for directory in site_dirs(python):
        text = read_text(os.path.join(directory, "torch", "version.py"))
        if text:
            for key, value in _TORCH_FIELD_RE.findall(text):
                if key in build:
                    build[key] = None if value in ("None", "") else value
            break
    return build
