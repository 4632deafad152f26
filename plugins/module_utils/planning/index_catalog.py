# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch plan from what a package index really holds (docs/planning.md).

index_catalog() reads the index (listing), keeps the wheels for the target's Python and platform,
classifies the torch builds it needs (classify) and finds each build's companions from their own
declared torch requirement; read_catalog() gives that catalog (or the version table's) to the pytorch_plan
module, which plans from it with resolve.resolve_stack, so the rules (channel checked against every GPU,
driver, companions, pins) are the version table's; with_index() adds what the reading found to the plan.

Which builds are read: the requested version, the newest patch of the requested line, or for the
default choice the newest patch of each of the newest LINES_READ lines, and of older ones (MORE_LINES at most)
while none read has every companion asked for (the default choice passes over a torch without them); a labelled build costs
nothing, an unlabelled one (PyPI, a mirror) a metadata file or three range requests, and so does
each companion candidate. Every listed version is named in refusals. Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import time

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import redact
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import inputs
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.catalog import table_catalog
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import COMPANIONS, parse_version
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import classify as wheel_class
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher, IndexUnreachable
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.filenames import fits, target_tags
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.listing import list_project

LINES_READ = 3
MORE_LINES = 3  # older lines read at most for the default choice while no line read has every companion


def _line(wheel):
    return tuple(int(part) for part in wheel["public"].split(".")[:2])


def _by_version(wheels):
    out = {}
    for wheel in sorted(wheels, key=lambda w: w["key"]):
        out.setdefault(wheel["public"], []).append(wheel)
    return out


def _wanted_versions(by_version, requested):
    """The torch versions whose unlabelled builds get read, newest first: the requested one, or for the default
    choice the newest patch of every line (index_catalog reads the first LINES_READ, and older ones only while none
    read has every companion)."""
    finals = [v for v in by_version if all(w["final"] for w in by_version[v])]
    parsed = parse_version(requested) if requested else None
    if parsed:
        text = str(requested).strip()
        if text.count(".") == 1 and "+" not in text:
            same = [v for v in finals if _line(by_version[v][0]) == parsed["release"][:2]]
            return same[-1:]
        return [parsed["public"]] if parsed["public"] in by_version else []
    newest, lines = [], set()
    for version in reversed(finals):
        line = _line(by_version[version][0])
        if line not in lines:
            lines.add(line)
            newest.append(version)
    return newest


def _companion(name, torch_version, channel, label, wheels, fetch, python_tag, arch, cache, notes):
    """The companion version for one torch build: an exact `torch==` pin first, else a lower bound of the
    same torch line (said in notes); "" when the index has none for the line."""
    line = tuple(int(p) for p in torch_version.split(".")[:2])
    minor = line[1] + 15 if name == "torchvision" else line[1]
    major = 0 if name == "torchvision" else line[0]
    candidates = [w for w in wheels if _line(w) == (major, minor) and w["final"]
                  and (not w["label"] or w["label"] == label or w["label"] == channel)]
    lower = None
    for wheel in sorted(candidates, key=lambda w: w["key"], reverse=True):
        need = wheel_class.torch_requirement(wheel, fetch, python_tag, arch, cache)
        if need.get("exact") and parse_version(need["exact"])["public"] == torch_version:
            return wheel["public"]
        bound = versions.parse(need.get("lower") or "")
        if lower is None and bound and tuple(bound["release"][:2]) == line and (
                bound["key"] <= versions.parse(torch_version)["key"]):
            lower = (wheel["public"], need["lower"])
    if lower:
        notes.append("%s %s declares only torch>=%s (no exact pin): taken as the %s release for torch %d.%d"
                     % (name, lower[0], lower[1], name, line[0], line[1]))
        return lower[0]
    return ""


def _has_every(catalog, companions):
    """Whether a torch version read so far has every wanted companion on the index."""
    return any(all(found.get(name) for name in companions) for found in catalog["companions"].values())


def index_catalog(index_url, python_tag, platform, fetch, requested="", companions=COMPANIONS):
    """A planning.catalog of the index for CPython `python_tag` on Linux `platform` (see the module)."""
    python_tag, arch = target_tags(python_tag, platform)
    listed = dict((name, [w for w in list_project(index_url, name, fetch)
                          if not w["yanked"] and fits(w, python_tag, arch)])
                  for name in ("torch",) + tuple(companions))
    by_version = _by_version(listed["torch"])
    if not by_version:
        raise IndexUnreachable(index_url, index_url, "it lists no torch wheel for %s on Linux %s" % (python_tag, arch))
    newest = _wanted_versions(by_version, requested)
    catalog = {"source": "index %s" % redact(index_url), "index": True, "torch": {}, "companions": {}, "notes": [],
               "listed": sorted(by_version, key=lambda v: versions.parse(v)["key"]), "read": {}}
    cache = {}
    for count, version in enumerate(newest):
        if count >= LINES_READ + MORE_LINES or (count >= LINES_READ and _has_every(catalog, companions)):
            break  # an older line is read only while no line read has every companion (the default choice's rule)
        builds = {}
        for wheel in by_version[version]:
            found = wheel_class.classify(wheel, fetch, python_tag, arch, cache)
            catalog["read"].setdefault(version, []).append(dict(found, wheel=wheel["filename"]))
            if found["channel"]:
                builds.setdefault(found["channel"], wheel["label"])
        catalog["torch"][version] = builds
        channel = sorted(builds)[-1] if builds else ""
        catalog["companions"][version] = dict(
            (name, _companion(name, version, channel, builds.get(channel, ""), listed[name], fetch, python_tag,
                              arch, cache, catalog["notes"]) if name in listed else None)
            for name in COMPANIONS)
    return catalog


def read_catalog(index_url="", python_tag="cp311", platform="x86_64", version="", companions=COMPANIONS, fetch=None,
                 timeout=30, offline_fallback=False, proxy="", ca_path="", client_cert="", trusted_hosts=()):
    """The catalog to plan from: what the index at `index_url` (a URL, a mirror, or a wheelhouse path) holds for
    CPython `python_tag` on Linux `platform` and the requested `version`; the version table when index_url is
    empty, or, with offline_fallback, when the index cannot be read (a warning says so).

    Raises PlanError (an input that is not valid, or an unreadable index: the message names the URL, the error
    and the variables to set); returns {"catalog", "warnings", "index"}: index is
    {"url", "requests", "seconds", "read"} (the URL without its password) when the index was read, else None.
    with_index() puts the warnings and the index into the plan made from the catalog.
    proxy: an http(s) proxy URL for every request (else the proxy environment variables); ca_path, client_cert,
    trusted_hosts: how pip reaches the index (wheel_index.access.settings: --cert, --client-cert, --trusted-host)."""
    try:
        wanted = inputs.as_list(companions, "pytorch_companions")
        requested = inputs.as_version(version, "pytorch_version")
        requested = "" if requested.lower() == "latest" else requested
        timeout = inputs.as_int(timeout, "timeout", 1)
        if str(index_url or "").strip() and "://" not in str(index_url):
            index_url = inputs.as_path(index_url, "pytorch_wheelhouse")
    except ValueError as exc:
        raise PlanError(str(exc)) from exc
    table = {"catalog": table_catalog(), "warnings": [], "index": None}
    if not str(index_url or "").strip():
        return table
    fetch = fetch or Fetcher(index_url, timeout, proxy=proxy, ca_path=ca_path, client_cert=client_cert,
                             trusted_hosts=trusted_hosts)
    started = time.time()
    try:
        catalog = index_catalog(index_url, python_tag, platform, fetch, requested,
                                [n for n in wanted if n in COMPANIONS])
    except (IndexUnreachable, ValueError) as exc:
        if not offline_fallback or isinstance(exc, ValueError):
            raise PlanError(str(exc)) from exc
        return dict(table, warnings=["%s; planned from the version table instead" % exc])
    except Exception as exc:  # a page or wheel this reader cannot parse
        raise PlanError(redact("package index %s could not be read: %s: %s" % (
            index_url, type(exc).__name__, exc))) from exc
    return {"catalog": catalog, "warnings": [],
            "index": {"url": redact(index_url), "requests": fetch.requests,
                      "seconds": round(time.time() - started, 3), "read": catalog["read"]}}


def with_index(plan, read):
    """The plan resolve.resolve_stack made from read_catalog's catalog, with its warnings (the offline fallback's)
    last and plan["index"] when the index was read. Returns plan."""
    if read["warnings"]:
        plan.setdefault("warnings", []).extend(read["warnings"])
    if read["index"]:
        plan["index"] = read["index"]
    return plan
