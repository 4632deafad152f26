# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What a wheel's METADATA says about its CUDA build and the torch it needs.

PyPI's torch wheels carry no local label; their CUDA shows only in Requires-Dist (docs/domain.md
section 4): `nvidia-cuda-runtime-cu12==12.8.90` (a CUDA 12.8 build), `nvidia-cuda-runtime==13.0.96`,
`cuda-toolkit[cublas,cudart,...]==13.0.2` (13.0), `cuda-toolkit==13.2.2` (13.2). torchvision and
torchaudio declare the torch they go with: `torch==2.12.1` (exact) or `torch>=2.14.0` (a lower
bound only). Markers are evaluated for a Linux target (python, arch); extras are left out.
Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from email.parser import HeaderParser

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import normalized

_REQ = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?\s*\(?([^;()]*)\)?\s*(?:;\s*(.*))?$")
_CLAUSE = re.compile(r"""^\(?\s*([a-z_.]+|'[^']*'|"[^"]*")\s*(==|!=|<=|>=|<|>|~=|not in|in)\s*"""
                     r"""([a-z_.]+|'[^']*'|"[^"]*")\s*\)?$""")
_NUM = re.compile(r"(\d+)\.(\d+)")
# Which Requires-Dist name tells the CUDA version best, best first.
_RUNTIME = (re.compile(r"^cuda-toolkit$"), re.compile(r"^nvidia-cuda-runtime(-cu\d+)?$"),
            re.compile(r"^nvidia-cuda-nvrtc(-cu\d+)?$"), re.compile(r"^cuda-bindings$"))
_ANY_CUDA = re.compile(r"^(nvidia-[a-z0-9-]+|cuda-[a-z0-9-]+)$")
_SUFFIX = re.compile(r"-cu(\d+)$")


def requires_dist(text: str) -> list[str]:
    """The Requires-Dist lines of a METADATA file's text."""
    return [value.strip() for value in HeaderParser().parsestr(text or "").get_all("Requires-Dist") or ()]


def parse_requirement(line: str) -> dict[str, str]:
    """"torch (==2.12.1) ; extra == 'x'" -> {"name", "extras", "spec", "marker"}; None if unreadable."""
    match = _REQ.match(line or "")
    if not match:
        return None
    return {"name": normalized(match.group(1)), "extras": match.group(2) or "",
            "spec": match.group(3).replace(" ", ""), "marker": (match.group(4) or "").strip()}


def _marker_env(python_tag, arch):
    digits = python_tag[2:]
    version = "%s.%s" % (digits[0], digits[1:])
    return {"platform_system": "Linux", "sys_platform": "linux", "os_name": "posix", "platform_machine": arch,
            "python_version": version, "python_full_version": version + ".0",
            "implementation_name": "cpython", "platform_python_implementation": "CPython", "extra": ""}


def _version_tuple(text):
    return tuple(int(part) for part in re.findall(r"\d+", text)[:3])


def _clause(text, env):
    match = _CLAUSE.match(text.strip())
    if not match:
        return True  # a marker this reader does not understand does not drop the requirement
    left, op, right = match.groups()
    values = [env.get(side, side) if not side[0] in "'\"" else side[1:-1] for side in (left, right)]
    if left in ("python_version", "python_full_version") and op in ("<", "<=", ">", ">=", "==", "!="):
        a, b = _version_tuple(values[0]), _version_tuple(values[1])
    else:
        a, b = values
    return {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b, "~=": a >= b,
            "in": a in b, "not in": a not in b}[op]


def marker_applies(marker: str, python_tag: str, arch: str) -> bool:
    """Whether a PEP 508 marker holds on Linux `arch` with CPython `python_tag` and no extra
    (and / or of simple clauses; parentheses around single clauses)."""
    if not marker:
        return True
    env = _marker_env(python_tag, arch)
    return any(all(_clause(part, env) for part in re.split(r"\s+and\s+", alt)) for alt in re.split(r"\s+or\s+", marker))


def applicable(lines: Iterable[str], python_tag: str, arch: str) -> list[dict[str, str]]:
    """Parsed requirements whose marker holds for the target."""
    reqs = [parse_requirement(line) for line in lines]
    return [req for req in reqs if req and marker_applies(req["marker"], python_tag, arch)]


def cuda_build(lines: Iterable[str], python_tag: str, arch: str) -> dict[str, str | None]:
    """{"channel": "cu130", "cuda": "13.0", "evidence": "cuda-toolkit==13.0.2"} from Requires-Dist lines,
    {"channel": "cpu", ...} when no CUDA package is required, None when only the CUDA major is known."""
    reqs = [req for req in applicable(lines, python_tag, arch) if _ANY_CUDA.match(req["name"])]
    if not reqs:
        return {"channel": "cpu", "cuda": None, "evidence": "no nvidia-* / cuda-* requirement"}
    for pattern in _RUNTIME:
        for req in reqs:
            number = _NUM.search(req["spec"])
            if pattern.match(req["name"]) and number:
                major, minor = int(number.group(1)), int(number.group(2))
                return {"channel": "cu%d%d" % (major, minor), "cuda": "%d.%d" % (major, minor),
                        "evidence": "%s%s%s" % (req["name"], req["extras"], req["spec"])}
    majors = sorted(set(_SUFFIX.search(req["name"]).group(1) for req in reqs if _SUFFIX.search(req["name"])))
    return {"channel": None, "cuda": None,
            "evidence": "CUDA %s packages without a runtime version (%s)" % (
                "/".join(majors) or "?", ", ".join(req["name"] for req in reqs[:3]))}


def torch_requirement(lines: Iterable[str], python_tag: str, arch: str) -> dict[str, str]:
    """{"exact": "2.12.1"} or {"lower": "2.14.0"} or {} from a companion's `torch` requirement."""
    for req in applicable(lines, python_tag, arch):
        if req["name"] != "torch":
            continue
        exact = re.search(r"===?([0-9][^,]*)", req["spec"])
        if exact and "*" not in exact.group(1):
            return {"exact": exact.group(1)}
        lower = re.search(r"(?:>=|~=)([0-9][^,]*)", req["spec"])
        if lower:
            return {"lower": lower.group(1)}
        return {"any": req["spec"] or "any"}
    return {}
