# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The tools stage (the tools role's venv: nvidia-ml-py for NVML, uv for the pytorch role): whether the venv is
wanted, what the preflight probe is asked to read of it, whether the role has work, and which interpreter the
modules use for NVML. The tools_state filter is its shell on the controller; the role's vars read its answer.
No Ansible import."""
from __future__ import annotations

from typing import Any, Optional


def _rc(result: Optional[dict[str, Any]]) -> int:
    """A registered command's rc; 2 (the venv's interpreter is not there) when the task did not run."""
    rc = (result or {}).get("rc")
    return 2 if rc is None else int(rc)


def requirements(pip_packages: list[str], uv: bool, uv_package: str) -> list[str]:
    """The requirements the venv must hold: the pins (blackwell_tools_pip_packages), and uv's when uv is asked for."""
    return list(pip_packages) + ([uv_package] if uv else [])


def decide(venv: str, packages: list[str], use_existing: bool = True, uv: bool = False,
           preflight: Optional[dict[str, Any]] = None, python: Optional[dict[str, Any]] = None, base_python: str = "",
           wheelhouse: str = "", check_mode: bool = False,
           check: Optional[dict[str, Any]] = None, built: Optional[dict[str, Any]] = None) -> dict[str, Any]:
    """The tools stage's answer.

    venv, packages: the venv and the requirements it must hold (the pins, uv's when `uv`); use_existing: the current
    interpreter may serve NVML when it imports pynvml; preflight: blackwell_preflight (None before the preflight);
    python: ansible_facts.python ({} when not gathered);
    check, built: the registered results of the venv's check before and after a build (None when not run).

    Returns {"current_has_pynvml", "venv_wanted", "preflight" (the probe's `tools` request, None when no venv is
    wanted), "probe_ready" (the probe read this venv holding these pins), "work" (the role's one task runs),
    "venv_there", "missing", "venv_ready", "python" (the venv's interpreter for NVML, '' for the current one),
    "interpreter" (NVML's: the venv's, else the current one of `python`, '' when not gathered: the role's
    blackwell_tools_python then names ansible_python_interpreter without this function, so that a task whose
    interpreter is blackwell_tools_python never asks for itself), "uv_pending" (the uv a check run that
    builds the venv would install, '' otherwise)}.
    """
    preflight = preflight or {}
    probe_python = preflight.get("python") or {}
    current = (python or {}).get("executable") or ""
    current_has_pynvml = bool(use_existing) and bool(probe_python.get("pynvml")) \
        and (probe_python.get("executable") or "") == (current or "-")
    venv_wanted = not current_has_pynvml or bool(uv)
    read = preflight.get("tools") or {}
    probe_ready = bool(read.get("ready")) and read.get("venv") == venv and list(read.get("requirements") or []) == list(packages)
    check_rc, built_rc = _rc(check), _rc(built)
    stdout = str((check or {}).get("stdout") or "")
    venv_ready = probe_ready or check_rc == 0 or built_rc == 0
    nvml_python = "" if current_has_pynvml or not venv_ready else venv + "/bin/python"
    return {
        "current_has_pynvml": current_has_pynvml,
        "venv_wanted": venv_wanted,
        "preflight": {"venv": venv, "requirements": list(packages), "base_python": base_python, "wheelhouse": wheelhouse}
        if venv_wanted else None,
        "probe_ready": probe_ready,
        "work": venv_wanted and not probe_ready,
        "venv_there": check_rc in (0, 1),
        "missing": stdout.split() if check_rc == 1 and stdout else list(packages),
        "venv_ready": venv_ready,
        "python": nvml_python,
        "interpreter": nvml_python or current,
        "uv_pending": venv + "/bin/uv" if check_mode and uv and not venv_ready else "",
    }


OPTIONS = ("venv", "pip_packages", "uv", "uv_package", "use_existing", "base_python", "wheelhouse",
           "preflight", "python", "check_mode", "check", "built")


def state(options: dict[str, Any]) -> dict[str, Any]:
    """decide() of one dict (the tools_state filter's input): the role's options without their blackwell_tools_
    prefix (venv, pip_packages, uv, uv_package, use_existing, base_python, wheelhouse) and what the host says of them
    (preflight, python, check_mode, check, built: decide()'s). The answer adds "packages" (requirements()).
    Another key is refused (ValueError)."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise ValueError("unknown option(s) %s; known: %s" % (", ".join(unknown), ", ".join(OPTIONS)))
    wanted = requirements(options.get("pip_packages") or [], bool(options.get("uv")), options.get("uv_package") or "")
    found = decide(options.get("venv") or "", wanted, options.get("use_existing", True), bool(options.get("uv")),
                   options.get("preflight"), options.get("python"), options.get("base_python") or "",
                   options.get("wheelhouse") or "", bool(options.get("check_mode")), options.get("check"),
                   options.get("built"))
    return dict(found, packages=wanted)
