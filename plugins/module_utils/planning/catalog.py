# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What torch builds exist: the plan's one view of a package index or of the version table.

A catalog is plain data:

    {"source": "version table (planning/matrix.py)" or "index https://pypi.org/simple",
     "index": False or True,
     "torch": {"2.9.1": {"cu128": "cu128", "cu130": "cu130"}},    version -> channel -> pin label
     "companions": {"2.9.1": {"torchvision": "0.24.1", "torchaudio": "2.9.1"}},
     "notes": ["..."]}

A pin label is the wheel's local label ("cu128" on download.pytorch.org, "" for PyPI's unlabelled
builds). A companion is a version, None where unknown (the table's "read the index"), or "" where
the index has none for that torch line (install without it). resolve.resolve_stack plans from a
catalog: table_catalog() offline, index_catalog.index_catalog() from an index. No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
    COMPANION_LINES, companion_versions, known_versions)

TABLE = "version table (planning/matrix.py)"


def table_catalog(parse=versions.parse):
    """The version table as a catalog: every known release with its line's channels, labelled."""
    torch, companions = {}, {}
    for version in known_versions():
        line = tuple(int(part) for part in version.split(".")[:2])
        torch[version] = dict((channel, channel) for channel in COMPANION_LINES[line][2])
        companions[version] = companion_versions(version, parse)
    return {"source": TABLE, "index": False, "torch": torch, "companions": companions, "notes": []}


def catalog_versions(catalog, parse=versions.parse):
    """Its torch versions, oldest first (PEP 440 order)."""
    return sorted(catalog["torch"], key=lambda text: parse(text)["key"])


def line_of(version, parse=versions.parse):
    """"2.9.1" -> (2, 9); None for text that is not a version."""
    fields = parse(str(version or ""))
    return tuple(fields["release"][:2]) if fields and len(fields["release"]) >= 2 else None


def newest_of_line(catalog, line, parse=versions.parse):
    """The newest final release of a line the catalog holds, or None."""
    found = [v for v in catalog_versions(catalog, parse) if line_of(v, parse) == tuple(line)
             and not parse(v)["pre"] and parse(v)["dev"] is None]
    return found[-1] if found else None


def channels(catalog, version):
    """The channels of a torch version, as a tuple ((), when the catalog lacks it)."""
    return tuple(sorted((catalog["torch"].get(version) or {}).keys()))


def pin_label(catalog, version, channel):
    """The local label its wheels carry on this index ("" for unlabelled builds)."""
    return (catalog["torch"].get(version) or {}).get(channel, channel)


def companions_of(catalog, version):
    """{name: version | None (unknown) | "" (absent)} for a torch version."""
    return dict(catalog.get("companions", {}).get(version) or {"torchvision": None, "torchaudio": None})
