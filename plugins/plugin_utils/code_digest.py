# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The digest of the code that produces and judges a verification result, on the controller.

The files are derived, not listed: the entry modules (torch_benchmark, torch_cuda_check,
stack_fingerprint), the entry package verify (the judging: tests, sizes and the product line's gates in
verify/plan.py, the verdict; the role reaches it through its filters, not through a module) and every module_utils
package they import, followed through the imports
of those packages' files until no new package appears (the imports are found by their text,
ansible_collections.blackwell.pytorch.plugins.module_utils.<package>, in milliseconds). A whole package is hashed, not only
the files named in imports: the kernel check's children import siblings by name at run time,
and a file changed in a package that ships with a module is code that module runs.
`verification_code()` is pure over the tree it is given; `cached()` keeps one answer per
collection root for the life of the process. No Ansible import (PyYAML comes with ansible-core).
"""
from __future__ import annotations

import hashlib
import json
import os
import re

import yaml

ENTRY_MODULES = ("torch_benchmark", "torch_cuda_check", "stack_fingerprint")
ENTRY_PACKAGES = ("verify",)
_PACKAGE_RE = re.compile(r"ansible_collections\.blackwell\.pytorch\.plugins\.module_utils\.(\w+)")
_CACHE = {}


def _imported_packages(path):
    """module_utils package names a Python file names (imports, and module paths written as text, such as
    a child program's): a textual match, so a mention too many only hashes one package more."""
    with open(path, "rb") as handle:
        return set(_PACKAGE_RE.findall(handle.read().decode("utf-8", "replace")))


def _package_files(root, package):
    """Relative paths of a module_utils package's Python files, sorted."""
    base = os.path.join(root, "plugins", "module_utils", package)
    found = []
    for directory, subdirs, files in os.walk(base):
        subdirs[:] = sorted(name for name in subdirs if name != "__pycache__")
        found.extend(os.path.relpath(os.path.join(directory, name), root) for name in files if name.endswith(".py"))
    return sorted(found)


def verification_files(root, entries=ENTRY_MODULES, entry_packages=ENTRY_PACKAGES):
    """Relative paths of the entry modules and packages and of every module_utils package they reach, sorted."""
    files = set(os.path.join("plugins", "modules", name + ".py") for name in entries)
    packages = set(package for package in entry_packages
                   if os.path.isdir(os.path.join(root, "plugins", "module_utils", package)))
    for package in sorted(packages):
        files.update(_package_files(root, package))
    queue = sorted(files)
    while queue:
        for package in sorted(_imported_packages(os.path.join(root, queue.pop()))):
            if package not in packages and os.path.isdir(os.path.join(root, "plugins", "module_utils", package)):
                packages.add(package)
                package_files = _package_files(root, package)
                files.update(package_files)
                queue.extend(package_files)
    return sorted(files)


def collection_version(root):
    """The version in MANIFEST.json (an installed collection), else in galaxy.yml (a checkout), else None."""
    try:
        with open(os.path.join(root, "MANIFEST.json"), "rb") as handle:
            return json.loads(handle.read().decode("utf-8"))["collection_info"]["version"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    try:
        with open(os.path.join(root, "galaxy.yml"), "rb") as handle:
            version = (yaml.safe_load(handle) or {}).get("version")
    except (OSError, yaml.YAMLError, AttributeError):
        return None
    return str(version) if version is not None else None


def verification_code(root, entries=ENTRY_MODULES):
    """{"digest": sha256 over each file's path and content, "files": [paths], "packages": [names],
    "collection_version": ...} of the verification code under the collection root `root`."""
    files = verification_files(root, entries)
    total = hashlib.sha256()
    for path in files:
        with open(os.path.join(root, path), "rb") as handle:
            content = handle.read()
        total.update(("%s\0%d\0" % (path, len(content))).encode("utf-8"))
        total.update(content)
    packages = sorted(set(path.split(os.sep)[2] for path in files if path.startswith(os.path.join("plugins",
                                                                                                  "module_utils"))))
    return {"digest": total.hexdigest(), "files": files, "packages": packages,
            "collection_version": collection_version(root)}


def cached(root):
    """verification_code(root), computed once per process and collection root."""
    key = os.path.realpath(root)
    if key not in _CACHE:
        _CACHE[key] = verification_code(key)
    return _CACHE[key]
