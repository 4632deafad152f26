# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the tools venv holds its pins, read from its files without running its interpreter.

The tools role keeps a small venv (nvidia-ml-py, uv) and checks it by running a program under the venv's own
interpreter (roles/tools/files/tools_check.py). The preflight probe answers the same question by reading files:
the interpreter link resolves to an executable file, pyvenv.cfg is there, the interpreter's version names the
site-packages directory it reads, each requirement's distribution is there (its dist-info METADATA name and
version, and the files its RECORD lists), and nvidia-ml-py's module pynvml is there to import. When in doubt the
answer is "not ready": the role then runs its check, which costs a command and never a wrong answer.
input_refusals() refuses the role's path options that cannot be used (relative, of the wrong kind) before it runs.
No Ansible import; Python 3.9+.
"""
from __future__ import annotations

import csv
import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import ModuleType
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import DIRECTORY, FILE, path_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import normalized, read_text

NVML_DISTRIBUTION = "nvidia-ml-py"
NVML_MODULE = "pynvml"
# The interpreter's name says its version when it names one (python3.12); else pyvenv.cfg's says it.
VERSIONED = re.compile(r"^python(\d+)\.(\d+)$")


def input_refusals(host: str, venv: str, base_python: str = "", wheelhouse: str = "",
                   stat: Callable[[str], os.stat_result] = os.stat) -> list[str]:
    """The refusals of the tools role's path options, before the role changes anything ("<host>: <refusal>" each,
    common/path_inputs.py): the venv (blackwell_tools_venv) and the wheelhouse (blackwell_tools_wheelhouse)
    directories, the interpreter that makes the venv (blackwell_tools_base_python) a file; each absolute. [] when
    they can be used."""
    return ["%s: %s" % (host, problem) for problem in path_problems([
        ("blackwell_tools_venv", venv, DIRECTORY, "/opt/blackwell/tools"),
        ("blackwell_tools_base_python", base_python, FILE, "/usr/bin/python3",
         "the interpreter itself (Python 3.9 or newer)"),
        ("blackwell_tools_wheelhouse", wheelhouse, DIRECTORY, "/srv/wheelhouse")], stat)]


def requirement(text: str) -> tuple[str, str]:
    """(name, pinned version or '') of a requirement, parsed as the tools role's check parses it: 'a==1' pins
    1; a bare name or another bound asks only for the distribution."""
    name = re.split(r"[<>=!~;\[ ]", text.strip(), maxsplit=1)[0]
    return name, text.partition("==")[2].split(";")[0].strip()


def key_values(text: str) -> dict[str, str]:
    """The `key = value` lines of pyvenv.cfg as a dict (keys lower case)."""
    found = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            found[key.strip().lower()] = value.strip()
    return found


def headers(text: str) -> dict[str, str]:
    """The header fields of a METADATA file (before the first blank line), names lower case, first one wins."""
    found = {}
    for line in text.splitlines():
        if not line.strip():
            break
        name, sep, value = line.partition(":")
        if sep and not line[:1].isspace():
            found.setdefault(name.strip().lower(), value.strip())
    return found


def interpreter(venv: str) -> tuple[str, str | None]:
    """(path of the venv's interpreter, the file it resolves to or None when the link dangles or the file cannot
    run)."""
    path = os.path.join(venv, "bin", "python")
    resolved = os.path.realpath(path)
    if os.path.isfile(resolved) and os.access(resolved, os.X_OK):
        return path, resolved
    return path, None


def python_version(resolved: str, config: Mapping[str, str]) -> str:
    """'3.12': the version the interpreter file's name says, else pyvenv.cfg's (`version_info` or `version`);
    '' when neither says."""
    match = VERSIONED.match(os.path.basename(resolved))
    if match:
        return "%s.%s" % match.groups()
    for key in ("version_info", "version"):
        parts = config.get(key, "").split(".")
        if len(parts) >= 2 and parts[0].isdigit() and parts[1].isdigit():
            return "%s.%s" % (parts[0], parts[1])
    return ""


def site_directories(venv: str, version: str) -> list[str]:
    """The site-packages directories the venv's interpreter of `version` reads (lib, then lib64), those that
    exist."""
    out = []
    for lib in ("lib", "lib64"):
        path = os.path.join(venv, lib, "python" + version, "site-packages")
        if os.path.isdir(path) and not any(os.path.samefile(path, seen) for seen in out):
            out.append(path)
    return out


def record_complete(site: str, info: str) -> bool:
    """Whether every file the distribution's RECORD lists (compiled files aside) is there; True without a RECORD."""
    text = read_text(os.path.join(site, info, "RECORD"))
    if text is None:
        return True
    for row in csv.reader(text.splitlines()):
        path = row[0] if row else ""
        if not path or path.endswith(".pyc") or "__pycache__" in path:
            continue
        if not os.path.exists(os.path.join(site, path)):
            return False
    return True


def distributions(sites: Iterable[str]) -> dict[str, list[str]]:
    """{normalized name: [versions of its complete installs]} of the dist-info directories in `sites`."""
    found = {}
    for site in sites:
        try:
            entries = sorted(os.listdir(site))
        except OSError:
            continue
        for entry in entries:
            if not entry.endswith(".dist-info"):
                continue
            meta = headers(read_text(os.path.join(site, entry, "METADATA")) or "")
            if not meta.get("name") or not meta.get("version") or not record_complete(site, entry):
                continue
            found.setdefault(normalized(meta["name"]), []).append(meta["version"])
    return found


def module_directory(sites: Iterable[str], module: str) -> str:
    """The site-packages directory that holds `module` (module.py or a package module/__init__.py), '' when none."""
    for site in sites:
        if os.path.isfile(os.path.join(site, module + ".py")) or os.path.isfile(
                os.path.join(site, module, "__init__.py")):
            return site
    return ""


def unsatisfied(requirements: Iterable[str], installed: Mapping[str, list[str]], nvml_importable: bool) -> list[str]:
    """The requirements `installed` ({name: [versions]}) does not satisfy, in their order; then nvidia-ml-py's
    when its module is not there (as the role's check lists them)."""
    missing = []
    for text in requirements:
        name, pin = requirement(text)
        versions = installed.get(normalized(name), [])
        if not versions or (pin and pin not in versions):
            missing.append(text)
    if not nvml_importable:
        missing += [text for text in requirements
                    if normalized(requirement(text)[0]) == NVML_DISTRIBUTION and text not in missing]
    return missing


def reading(venv: str, requirements: Sequence[str], ready: bool, reason: str, missing: list[str] | None = None,
            python: str = "", nvml_site: str = "") -> dict[str, Any]:
    """What the probe answers (blackwell_preflight.tools)."""
    return {"venv": venv, "requirements": list(requirements), "ready": ready, "reason": reason,
            "missing": list(requirements) if missing is None else missing, "python": python,
            "pynvml_site": nvml_site}


def read_venv(venv: str, requirements: Sequence[str]) -> dict[str, Any]:
    """Whether the venv at `venv` holds `requirements` (the tools role's pins), from its files.

    {venv, requirements, ready, reason, missing, python, pynvml_site}: `ready` when nothing is missing (`reason`
    says why not), `missing` the requirements to install (all of them when the venv is not usable), `python` the
    interpreter the venv's files name ('' when none runs), `pynvml_site` the site-packages directory that holds
    nvidia-ml-py's pynvml at one of its pinned versions ('' when none does): pure Python, any interpreter of the
    host can import it from there."""
    given, venv = venv, (venv or "").rstrip("/") or venv
    if not venv or not os.path.isdir(venv):
        return reading(given, requirements, False, "there is no venv at %s" % venv)
    config_text = read_text(os.path.join(venv, "pyvenv.cfg"))
    if config_text is None:
        return reading(given, requirements, False, "%s has no pyvenv.cfg: it is not a venv" % venv)
    path, resolved = interpreter(venv)
    if resolved is None:
        return reading(given, requirements, False, "%s does not resolve to an interpreter that can run" % path)
    version = python_version(resolved, key_values(config_text))
    sites = site_directories(venv, version) if version else []
    if not sites:
        return reading(given, requirements, False, "%s (Python %s) has no site-packages directory in %s" % (
            path, version or "of unknown version", venv), python=path)
    installed = distributions(sites)
    nvml_site = module_directory(sites, NVML_MODULE)
    missing = unsatisfied(requirements, installed, bool(nvml_site))
    nvml_pins = [text for text in requirements if normalized(requirement(text)[0]) == NVML_DISTRIBUTION]
    nvml_ok = bool(nvml_site) and NVML_DISTRIBUTION in installed and not [t for t in nvml_pins if t in missing]
    reason = ("%s lacks %s" % (venv, ", ".join(missing))) if missing else ""
    return reading(given, requirements, not missing, reason, missing, path, nvml_site if nvml_ok else "")


def import_from(site: str, name: str) -> tuple[ModuleType | None, str]:
    """(module, '') of the module `name` imported from the directory `site` alone (sys.path unchanged), or
    (None, why) when it is not there or its import fails. The module is registered in sys.modules under `name`."""
    spec = importlib.machinery.PathFinder.find_spec(name, [site])
    if spec is None or spec.loader is None:
        return None, "no module %s in %s" % (name, site)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as err:  # pylint: disable=broad-except  # any failure of a foreign module means: not usable
        sys.modules.pop(name, None)
        return None, "%s from %s does not import: %s: %s" % (name, site, type(err).__name__, err)
    return sys.modules.get(name, module), ""  # what the import statement gives: the module may replace itself


def not_importable(tools: Mapping[str, Any], error: str) -> dict[str, Any]:
    """The reading `tools` once its pynvml failed to import: nvidia-ml-py's requirements missing, not ready."""
    nvml = [text for text in tools["requirements"] if normalized(requirement(text)[0]) == NVML_DISTRIBUTION]
    missing = tools["missing"] + [text for text in nvml if text not in tools["missing"]]
    return dict(tools, ready=False, missing=missing, pynvml_site="",
                reason="%s lacks %s (%s)" % (tools["venv"], ", ".join(missing), error))


def nvml_bindings(own: object | None, tools: dict[str, Any] | None,
                  executable: str) -> tuple[object | None, str, str, dict[str, Any] | None]:
    """(pynvml module or None, whose it is: 'python', 'tools' or '', why NVML is not used, the tools reading): `own`
    (the running Python's pynvml, None when it has none), else the one in the tools venv that `tools` (read_venv()'s
    reading, None: not read) found holding nvidia-ml-py at its pin; when that one fails to import, the reading
    returned says so (not ready). `executable`: the running Python, for the message."""
    if own is not None:
        return own, "python", "", tools
    why = "NVML not used (nvidia-ml-py is not installed for %s" % executable
    if tools is None:
        return None, "", why + ")", tools
    if not tools["pynvml_site"]:
        return None, "", "%s, nor in the tools venv %s)" % (why, tools["venv"]), tools
    module, error = import_from(tools["pynvml_site"], NVML_MODULE)
    if module is None:
        return None, "", "%s; %s)" % (why, error), not_importable(tools, error)
    return module, "tools", "", tools
