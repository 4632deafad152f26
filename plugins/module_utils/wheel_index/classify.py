# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A wheel's CUDA build and its requirements, read as cheaply as the index allows.

1. the local label (torch-2.9.1+cu128-...): nothing to read;
2. the PEP 658 metadata file (<wheel url>.metadata) where the index announces one;
3. else the METADATA inside the wheel through HTTP range requests on the zip's end (zip_range);
4. a wheelhouse file: the wheel itself, opened locally.

Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import re
import zipfile
from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import metadata, zip_range
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher, IndexUnreachable, RangeRefused

CHANNEL = re.compile(r"^(cu\d+|cpu|rocm[\d.]+|xpu)$")


def read_metadata(entry: Mapping[str, Any], fetch: Fetcher,
                  cache: dict[str, tuple[str, str]] | None = None) -> tuple[str, str]:
    """(METADATA text, how it was read) of a listed wheel; cached by URL in `cache` (a dict)."""
    cache = {} if cache is None else cache
    if entry["url"] in cache:
        return cache[entry["url"]]
    if entry.get("local_path"):
        with zipfile.ZipFile(entry["local_path"]) as whl:
            name = zip_range.metadata_member([{"name": n} for n in whl.namelist()])
            if not name:
                raise zip_range.ZipError("%s has no .dist-info/METADATA" % entry["local_path"])
            found = whl.read(name["name"]).decode("utf-8", "replace"), "the wheel file"
    elif entry.get("metadata_url"):
        found = fetch.get(entry["metadata_url"])[1].decode("utf-8", "replace"), "PEP 658 metadata file"
    else:
        def get_range(start, end):
            return fetch.get_range(entry["url"], start, end)
        try:
            members, _total = zip_range.list_members(get_range, entry["url"])
        except RangeRefused as exc:
            raise IndexUnreachable(fetch.index_url, entry["url"], exc)
        member = zip_range.metadata_member(members)
        if not member:
            raise zip_range.ZipError("%s has no .dist-info/METADATA" % entry["url"])
        found = zip_range.read_member(get_range, member, entry["url"]).decode("utf-8", "replace"), "range requests"
    cache[entry["url"]] = found
    return found


def classify(entry: Mapping[str, Any], fetch: Fetcher, python_tag: str, arch: str,
             cache: dict[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """{"channel": "cu130" | "cpu" | None, "cuda": "13.0" | None, "how", "evidence"} of one torch wheel."""
    label = entry.get("label") or ""
    if CHANNEL.match(label):
        cuda = re.match(r"^cu(\d+)(\d)$", label)
        return {"channel": label, "cuda": "%s.%s" % cuda.groups() if cuda else None, "how": "local label",
                "evidence": "+" + label}
    text, how = read_metadata(entry, fetch, cache)
    build = metadata.cuda_build(metadata.requires_dist(text), python_tag, arch)
    return dict(build, how=how)


def torch_requirement(entry: Mapping[str, Any], fetch: Fetcher, python_tag: str, arch: str,
                      cache: dict[str, tuple[str, str]] | None = None) -> dict[str, str]:
    """A companion wheel's declared torch requirement ({"exact"} / {"lower"} / {})."""
    text, _how = read_metadata(entry, fetch, cache)
    return metadata.torch_requirement(metadata.requires_dist(text), python_tag, arch)
