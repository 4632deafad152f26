# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The wheels an index holds for one project, through the simple repository API.

- PEP 691 JSON when the server speaks it (asked for with Accept: application/vnd.pypi.simple.v1+json;
  PyPI, devpi, recent Artifactory / Nexus), PEP 503 HTML otherwise (download.pytorch.org, plain
  mirrors, a directory tree served as files);
- a wheelhouse: a local directory (a path or file:// URL) of .whl files, read directly;
- PEP 658 / 714 metadata files where announced (`core-metadata` / `data-dist-info-metadata`).

Every entry: the parsed wheel name (filenames.parse_wheel) plus url, metadata_url (None when not
served), local_path (wheelhouse files) and yanked. Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urldefrag, urljoin, urlparse
from urllib.request import url2pathname

from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher, IndexUnreachable
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import normalized
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.filenames import parse_wheel

ACCEPT = "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html;q=0.2, text/html;q=0.1"


def local_dir(index_url: str) -> str | None:
    """The directory an index URL names when it is a local wheelhouse (a path or file://), else None."""
    text = str(index_url or "")
    if text.startswith("file://"):
        text = url2pathname(text[len("file://"):])
    elif "://" in text:
        return None
    return text if os.path.isdir(text) else None


def project_url(index_url: str, name: str) -> str:
    """<index>/<normalized name>/ (PEP 503)."""
    return "%s/%s/" % (str(index_url).rstrip("/"), normalized(name))


class _Anchors(HTMLParser):
    def __init__(self):
        HTMLParser.__init__(self)
        self.anchors, self._open = [], None

    def handle_starttag(self, tag, attrs):
        if tag == "a":
            self._open = dict(attrs)
            self._open["_text"] = ""

    def handle_data(self, data):
        if self._open is not None:
            self._open["_text"] += data

    def handle_endtag(self, tag):
        if tag == "a" and self._open is not None:
            self.anchors.append(self._open)
            self._open = None


def _metadata_flag(value):
    """A PEP 658/714 announcement: True, "sha256=..." or {"sha256": ...} -> served; False/None/"" -> not."""
    if isinstance(value, str):
        return value.strip().lower() not in ("", "false")
    return bool(value)


def _entry(filename, url, metadata, yanked):
    wheel = parse_wheel(filename)
    if not wheel:
        return None
    clean = urldefrag(url)[0]
    local = url2pathname(urlparse(clean).path) if clean.startswith("file:") else None
    wheel.update(url=clean, metadata_url=clean + ".metadata" if metadata else None, local_path=local,
                 yanked=bool(yanked))
    return wheel


def parse_json_page(text: str, page_url: str) -> list[dict[str, Any]]:
    """Wheel entries of a PEP 691 project page."""
    data = json.loads(text)
    out = []
    for item in data.get("files") or ():
        meta = item.get("core-metadata", item.get("data-dist-info-metadata"))
        entry = _entry(item.get("filename", ""), urljoin(page_url, item.get("url", "")), _metadata_flag(meta),
                       item.get("yanked"))
        if entry:
            out.append(entry)
    return out


def parse_html_page(text: str, page_url: str) -> list[dict[str, Any]]:
    """Wheel entries of a PEP 503 project page (a <base href> is honoured)."""
    parser = _Anchors()
    parser.feed(text)
    found = _base_tags(text)
    base = urljoin(page_url, found[0]) if found else page_url
    out = []
    for anchor in parser.anchors:
        href = anchor.get("href") or ""
        url = urljoin(base, href)
        name = urldefrag(href)[0].rsplit("/", 1)[-1] or anchor["_text"].strip()
        meta = anchor.get("data-core-metadata", anchor.get("data-dist-info-metadata"))
        entry = _entry(name, url, _metadata_flag(meta if meta is not None else False), "data-yanked" in anchor)
        if entry:
            out.append(entry)
    return out


class _Base(HTMLParser):
    def __init__(self):
        HTMLParser.__init__(self)
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag == "base" and dict(attrs).get("href"):
            self.found.append(dict(attrs)["href"])


def _base_tags(text):
    parser = _Base()
    parser.feed(text)
    return parser.found


def wheelhouse_files(directory: str, name: str) -> list[dict[str, Any]]:
    """Wheel entries of project `name` in a flat directory of wheels."""
    out = []
    for filename in sorted(os.listdir(directory)):
        wheel = parse_wheel(filename)
        if wheel and wheel["name"] == normalized(name):
            path = os.path.join(directory, filename)
            wheel.update(url="file://" + path, metadata_url=None, local_path=path, yanked=False)
            out.append(wheel)
    return out


def list_project(index_url: str, name: str, fetch: Fetcher) -> list[dict[str, Any]]:
    """Every wheel of project `name` on the index (or in the wheelhouse directory).

    A local directory with <name>/index.html inside is read as a PEP 503 tree, else as a flat
    wheelhouse. `fetch` is a fetch.Fetcher. A project the index does not have: []."""
    directory = local_dir(index_url)
    if directory is not None and not os.path.isfile(os.path.join(directory, normalized(name), "index.html")):
        return wheelhouse_files(directory, name)
    if directory is not None:
        page = "file://" + os.path.join(os.path.abspath(directory), normalized(name), "index.html")
    else:
        page = project_url(index_url, name)
    try:
        content_type, body = fetch.get(page, {"Accept": ACCEPT})
    except IndexUnreachable as exc:  # a 404 for a project the index lacks is an empty list, anything else fails
        if exc.error.startswith("HTTP 404"):
            return []
        raise
    text = body.decode("utf-8", "replace")
    if "json" in content_type.lower():
        return parse_json_page(text, page)
    return parse_html_page(text, page)
