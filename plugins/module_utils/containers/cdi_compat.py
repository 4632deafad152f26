# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which CDI spec version each container engine reads, and the check of the specs after generation.

An engine reads a CDI spec through the CDI library it is built with (tags.cncf.io/container-device-interface),
which refuses a spec whose `cdiVersion` it does not know ("invalid version"): library 0.5.x knows up to 0.5.0,
0.6.x 0.6.0, 0.7.x 0.7.0, 0.8.x 0.8.0, 1.0.x 1.0.0, 1.1.0 1.1.0 (specs-go/config.go, specs-go/version.go).
ENGINES gives the first release of each engine that vendors a library of each step (upstream go.mod / vendor.mod at
the tags; distribution builds against their own packaged library may differ). No Ansible import.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.toolkit import NO_GIDS_FLAG

# engine -> [(first release, highest CDI spec version it reads)], oldest first; before the first: no CDI at all.
ENGINES = {
    # moby/moby vendor.mod (v25.0.0 v0.6.2, v26.1.0 v0.7.1, v27.4.0 v0.8.0, v28.1.0 v1.0.1), go.mod (docker-v29.2.0 v1.1.0)
    "docker": [((25, 0, 0), "0.6.0"), ((26, 1, 0), "0.7.0"), ((27, 4, 0), "0.8.0"), ((28, 1, 0), "1.0.0"),
               ((29, 2, 0), "1.1.0")],
    # containerd/containerd go.mod (v1.7.0 v0.5.4, v1.7.12 v0.6.1, v1.7.16 v0.7.2, v1.7.27 v0.8.1, v2.0.0 v0.8.0,
    # v2.0.5 v1.0.0, v2.2.1 v1.1.0)
    "containerd": [((1, 7, 0), "0.5.0"), ((1, 7, 12), "0.6.0"), ((1, 7, 16), "0.7.0"), ((1, 7, 27), "0.8.0"),
                   ((2, 0, 0), "0.8.0"), ((2, 0, 5), "1.0.0"), ((2, 2, 1), "1.1.0")],
    # containers/podman go.mod (v4.1.0 v0.4.0, v4.3.0 v0.5.2, v4.7.0 v0.6.1, v5.1.0 v0.7.2, v5.2.0 v0.8.0, v5.5.0 v1.0.1);
    # 4.0.x vendors an untagged library: not in the table.
    "podman": [((4, 1, 0), "0.4.0"), ((4, 3, 0), "0.5.0"), ((4, 7, 0), "0.6.0"), ((5, 1, 0), "0.7.0"),
               ((5, 2, 0), "0.8.0"), ((5, 5, 0), "1.0.0")],
}
# The CDI spec directories every engine reads by default, lowest precedence first (a later one wins).
SPEC_DIRS = ("/etc/cdi", "/var/run/cdi")
_TRIPLE = re.compile(r"(?<![\d.])v?(\d+)\.(\d+)\.(\d+)")


def triple(text: str) -> tuple[int, ...] | None:
    """The first x.y.z in `text` (`Docker version 27.5.1, build ...`, `containerd ... v2.0.0 ...`), None without one."""
    match = _TRIPLE.search(str(text or ""))
    return tuple(int(part) for part in match.groups()) if match else None


def _spec_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", str(version or "")))


def engine_limit(engine: str, version_text: str) -> dict[str, Any]:
    """{engine, version, max, known}: the highest CDI spec version `engine` reads ("" when it reads none, None when the
    version is unknown or older than the table)."""
    version = triple(version_text)
    steps = ENGINES.get(engine, [])
    result = {"engine": engine, "version": ".".join(str(p) for p in version) if version else "", "max": None,
              "known": False}
    if version is None or not steps:
        return result
    if engine in ("docker", "containerd") and version < steps[0][0]:
        result.update(max="", known=True)  # docker before 25, containerd before 1.7: no CDI support
        return result
    for first, highest in steps:
        if version >= first:
            result.update(max=highest, known=True)
    return result


def first_reading(engine: str, spec_version: str) -> str:
    """The first release of `engine` in the table that reads `spec_version` ("" when none does)."""
    for first, highest in ENGINES.get(engine, []):
        if _spec_key(highest) >= _spec_key(spec_version):
            return ".".join(str(p) for p in first)
    return ""


def spec_plan(toolkit: Mapping[str, Any], engines: Mapping[str, str], chosen: Collection[str]) -> dict[str, Any]:
    """{limits, limit, args, notes}: the engines chosen with their limits, the lowest spec version they all read, and
    the generate options that keep the spec at or below it (the no-GIDs feature flag when the toolkit may write 0.7.0
    and an engine reads less)."""
    limits = [engine_limit(name, engines.get(name, "")) for name in sorted(chosen) if name in ENGINES]
    reading = [item for item in limits if item["max"]]
    limit = min((item["max"] for item in reading), key=_spec_key) if reading else ""
    notes = ["%s %s: version not in the table, its CDI limit is not checked" % (item["engine"], item["version"] or "?")
             for item in limits if not item["known"]]
    args = []
    if toolkit.get("gids") and toolkit.get("no_gids_flag") and limit and _spec_key(limit) < (0, 7, 0):
        args.append(NO_GIDS_FLAG)
        notes.append("%s: %s reads CDI up to %s, the toolkit may write 0.7.0 (device-node GIDs)" % (
            NO_GIDS_FLAG, ", ".join("%s %s" % (i["engine"], i["version"]) for i in reading if i["max"] == limit), limit))
    return {"limits": limits, "limit": limit, "args": args, "notes": notes}


def read_check(text: str) -> dict[str, Any]:
    """The check's output: `dir<TAB>D` then `dev<TAB>NAME` lines (nvidia-ctk cdi list --spec-dir=D), and
    `version<TAB>FILE<TAB>V` (a spec's cdiVersion) -> {dirs: {D: [names]}, versions: {FILE: V}}."""
    dirs, versions, current = {}, {}, None
    for line in (text or "").splitlines():
        fields = line.split("\t")
        if fields[0] == "dir" and len(fields) > 1:
            current = fields[1]
            dirs.setdefault(current, [])
        elif fields[0] == "dev" and len(fields) > 1 and current is not None and fields[1].strip():
            dirs[current].append(fields[1].strip())
        elif fields[0] == "version" and len(fields) > 2:
            versions[fields[1]] = fields[2].strip()
    return {"dirs": dirs, "versions": versions}


def cdi_check(text: str, spec: str, limits: Sequence[Mapping[str, Any]] = (), management_spec: str = "",
              ignore_dirs: Collection[str] = (), preview: bool = False) -> dict[str, Any]:
    """{ok, problems, devices, versions, msg}: nvidia.com/gpu=all defined in the spec's directory and in no other
    directory read (`ignore_dirs`: a check run's stray spec the real run removes), the management spec's device when
    asked, and each spec's version readable by every engine in `limits` (spec_plan's). preview: a check run whose real
    run would regenerate the spec: the versions and the management spec are not checked."""
    if preview:
        limits, management_spec = (), ""
    found = read_check(text)
    spec_dir = spec.rsplit("/", 1)[0] or "/"
    devices = found["dirs"].get(spec_dir, [])
    problems = []
    if "nvidia.com/gpu=all" not in devices:
        problems.append("nvidia-ctk cdi list shows no nvidia.com/gpu=all in %s (%s); generate it again with "
                        "nvidia-ctk cdi generate --output=%s and read its messages"
                        % (spec_dir, ", ".join(devices) or "no device", spec))
    others = [d for d, names in sorted(found["dirs"].items()) if d != spec_dir and d not in ignore_dirs
              and any(name.startswith("nvidia.com/gpu=") for name in names)]
    if others:
        problems.append("nvidia.com/gpu is defined in %s as well as in %s: a spec in a later CDI directory wins "
                        "(/var/run/cdi over /etc/cdi); remove it (nvidia-cdi-refresh writes %s/nvidia.yaml)"
                        % (", ".join(others), spec_dir, others[-1]))
    if management_spec and "management.nvidia.com/gpu=all" not in devices:
        problems.append("nvidia-ctk cdi list shows no management.nvidia.com/gpu=all in %s (%s)"
                        % (spec_dir, management_spec))
    for path, version in sorted(found["versions"].items()):
        for item in limits:
            if item.get("max") and _spec_key(version) > _spec_key(item["max"]):
                first = first_reading(item["engine"], version)
                problems.append("%s is CDI spec %s, which %s %s cannot read (it reads up to %s): upgrade %s%s, or pin "
                                "container_toolkit_version to a release that writes an older spec" % (
                                    path, version, item["engine"], item["version"], item["max"], item["engine"],
                                    " to %s or later" % first if first else ""))
    msg = "CDI devices in %s: %s; spec versions: %s" % (
        spec_dir, ", ".join(devices) or "none",
        ", ".join("%s %s" % item for item in sorted(found["versions"].items())) or "none")
    return {"ok": not problems, "problems": problems, "devices": devices, "versions": found["versions"], "msg": msg}
