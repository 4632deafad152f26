# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet's wheelhouse: the stack's wheels downloaded once on a cache host (the pytorch role's `wheelhouse` entry
point, pytorch_stack state wheelhouse), kept on the controller under <fetch dir>/<stack>/ with a hashes file written
last, and installed from offline by every host of a rollout (`wheelhouse_use`).

Pure functions but others, wheels and hash_lines (they read the wheelhouses) and use (whether the controller holds the
copy yet). Python 3.9, no Ansible import.
"""
from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping
from typing import Any, Optional

HASHES = "hashes.txt"


def cache(stack: str, root: str, fetch_dir: str) -> dict[str, str]:
    """pytorch_wheelhouse_cache: the stack, its wheelhouse on the controller and on the cache host, the hashes file."""
    return {"stack": stack, "controller_dir": "%s/%s" % (fetch_dir, stack),
            "host_dir": "%s/wheelhouses/%s" % (root, stack), "hashes": HASHES}


def refusal(plan: Optional[Mapping[str, Any]], adopt_path: str, wheelhouse: str) -> str:
    """Why a fleet wheelhouse cannot serve this request ("" when it can): an adopted environment, a source plan, or
    a local wheelhouse have no wheels to fetch from an index."""
    method = (plan or {}).get("method", "")
    if not adopt_path and method == "wheel" and not wheelhouse:
        return ""
    what = "adopts " + adopt_path if adopt_path else "method %s%s" % (
        method, ", wheelhouse " + wheelhouse if wheelhouse else "")
    return ("A fleet wheelhouse holds the wheels of a planned wheel install from an index; this request (%s) has "
            "none to fetch: run it without the cache (a source build is shared through pytorch_build_host; a "
            "wheelhouse is already local)." % what)


def fetch(state: Mapping[str, Any], fetch_dir: str, wheelhouse: str) -> dict[str, Any]:
    """The entry point's names for the decision `state` (role_steps.decide: plan, root, adopt_path) and
    pytorch_wheelhouse (a local wheelhouse): {refusal ("" when a fleet wheelhouse serves the request), cache
    (pytorch_wheelhouse_cache; None with a refusal), hashes_path (the controller's hashes file, written last: the
    copy is complete when it is there; "" with a refusal), pins (the plan's) and check_mode (the decision's), for
    the report}."""
    plan = state.get("plan") or {}
    why = refusal(plan, state.get("adopt_path") or "", wheelhouse)
    named = None if why else cache(plan.get("stack") or "", state.get("root") or "", fetch_dir)
    return {"refusal": why, "cache": named, "pins": list(plan.get("pins") or ()),
            "hashes_path": "%s/%s" % (named["controller_dir"], named["hashes"]) if named else "",
            "check_mode": bool(state.get("check_mode"))}


def fetched(names: Mapping[str, Any], download: Mapping[str, Any]) -> str:
    """report() of the entry point: `names` (fetch()'s answer: the cache, the plan's pins, check mode), `download`
    (the result of pytorch_stack state wheelhouse: skipped when the controller's copy was complete, else its
    files)."""
    if not names.get("cache"):
        raise ValueError("no fleet wheelhouse to report: %s" % (names.get("refusal") or "no cache named"))
    return report(names["cache"], bool(download.get("skipped")), bool(names.get("check_mode")),
                  list(names.get("pins") or ()), list(download.get("files") or ()))


def report(cached_info: Mapping[str, Any], cached: bool, check_mode: bool, pins: list[str], files: list[str]) -> str:
    """The entry point's last line: the controller's wheelhouse, and whether it was there, would be downloaded
    (check mode) or how many wheels this run downloaded (`files`: what pytorch_stack state wheelhouse returned)."""
    if cached:
        how = "already complete, nothing downloaded"
    elif check_mode:
        how = ("check mode: not there yet; a run without --check downloads the planned wheels (%s) and their "
               "dependencies from the index once" % ", ".join(pins))
    else:
        how = "%d wheels downloaded from the index once" % len([name for name in files if name.endswith(".whl")])
    return "%s: wheelhouse %s on the controller (%s)" % (cached_info["stack"], cached_info["controller_dir"], how)


def download_command(pip_python: str, dest: str, python_version: str, pip_args: list[str]) -> list[str]:
    """`pip download` of the plan's wheels and their dependencies for the stack's interpreter. --only-binary=:all:
    comes last: the role's own --only-binary (the torch family) would replace it, and pip downloads for another
    interpreter (--python-version) only with it."""
    return ([pip_python, "-m", "pip", "download", "--disable-pip-version-check", "--no-input", "--dest", dest,
             "--python-version", python_version] + list(pip_args) + ["--only-binary=:all:"])


def others(top: str, stack: str) -> list[str]:
    """The wheelhouses of other stacks under `top` (<root>/wheelhouses), by name; hidden entries are not one."""
    if not os.path.isdir(top):
        return []
    return sorted(name for name in os.listdir(top)
                  if name != stack and not name.startswith(".") and os.path.isdir(os.path.join(top, name)))


def wheels(top: str) -> list[str]:
    """The wheel files of a wheelhouse, by name."""
    return sorted(name for name in os.listdir(top) if name.endswith(".whl"))


def hash_lines(top: str) -> str:
    """The hashes file of a wheelhouse: `<dist>==<version> --hash=sha256:<digest>` per wheel (pip and uv install
    with --require-hashes from it)."""
    lines = []
    for name in wheels(top):
        digest = hashlib.sha256()
        with open(os.path.join(top, name), "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
        dist, version = name.split("-")[:2]
        lines.append("%s==%s --hash=sha256:%s\n" % (dist, version, digest.hexdigest()))
    return "".join(lines) or "\n"


def use(source: Any, root: str, check_mode: bool) -> dict[str, Any]:
    """wheelhouse_use's steps for `source` (pytorch_wheelhouse_from, the cache host's pytorch_wheelhouse_cache), on
    the controller: {refusal ("" when it names a wheelhouse), pending (check mode and its controller_dir not there
    yet), dir (this host's copy: pytorch_wheelhouse), hashes_file (pytorch_hashes_file), preview (blackwell_pytorch
    of a check run that cannot copy it yet)}."""
    named = isinstance(source, Mapping) and bool(source.get("stack")) and bool(source.get("controller_dir"))
    if not named:
        return {"refusal": "pytorch_wheelhouse_from names no fleet wheelhouse (%s): run the pytorch role's "
                           "wheelhouse entry point on the cache host first and pass its pytorch_wheelhouse_cache "
                           "fact." % (source,),
                "pending": False, "dir": "", "hashes_file": "", "preview": None}
    stack, where = source["stack"], "%s/wheelhouses/%s" % (root, source["stack"])
    text = ("check mode: the fleet's wheelhouse %s is not on the controller yet (the cache host downloads it in a run "
            "without --check); a real run copies it here and installs %s from it, every wheel checked against its "
            "sha256" % (source["controller_dir"], stack))
    pending = bool(check_mode) and not os.path.isdir(str(source["controller_dir"]))
    return {"refusal": "", "pending": pending, "dir": where,
            "hashes_file": "%s/%s" % (where, source.get("hashes", HASHES)),
            "preview": {"stack": stack, "python": "%s/current/bin/python" % root, "torch": "", "channel": "",
                        "method": "wheel", "converged": False, "check": None, "source": None, "warnings": [],
                        "preview": text}}
