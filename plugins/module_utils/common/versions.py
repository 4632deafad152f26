# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The target-side version parser (PEP 440), for code that runs where `packaging` may be missing.

A stack's Python and a target's Python need not have `packaging`; modules and their module_utils
parse versions here. The controller parses the same versions with `packaging.version.Version`
(plugins/plugin_utils/versions.py); both return the same fields, and the unit tests check that
`key` orders versions exactly as `packaging` does (epochs, pre / post / dev releases, local labels).

parse("2!2.11.0rc1.post2.dev3+cu128") -> {"epoch": 2, "release": (2, 11, 0), "pre": ("rc", 1),
"post": 2, "dev": 3, "local": "cu128", "key": ...}; None for text that is not a version.
Spellings are normalised as PEP 440 says: "2.11.0-RC1" is ("rc", 1), "1.0-1" a post release.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_PATTERN = re.compile(r"""
    ^\s*v?
    (?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|a|beta|b|preview|pre|c|rc)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""", re.VERBOSE | re.IGNORECASE)
_PRE = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc", "preview": "rc", "rc": "rc"}

# Stand-ins for packaging's Infinity / NegativeInfinity inside sort keys: (0,) sorts before and
# (2,) after every real value, which is wrapped as (1, value).
_LOW, _HIGH = (0,), (2,)


def parse(text: object) -> dict[str, Any] | None:
    """PEP 440 fields of `text` (see the module docstring), or None when it is not a version."""
    match = _PATTERN.match(str(text if text is not None else ""))
    if not match:
        return None
    release = tuple(int(part) for part in match.group("release").split("."))
    pre = None
    if match.group("pre_l"):
        pre = (_PRE[match.group("pre_l").lower()], int(match.group("pre_n") or 0))
    post = None
    if match.group("post_n1") is not None:
        post = int(match.group("post_n1"))
    elif match.group("post_l"):
        post = int(match.group("post_n2") or 0)
    dev = int(match.group("dev_n") or 0) if match.group("dev_l") else None
    local = match.group("local")
    local = re.sub(r"[-_]", ".", local.lower()) if local else None
    fields = {"epoch": int(match.group("epoch") or 0), "release": release, "pre": pre, "post": post,
              "dev": dev, "local": local}
    fields["key"] = _key(fields)
    return fields


def _key(fields):
    """The sort key of parsed fields, ordered as packaging.version.Version orders versions."""
    release = list(fields["release"])
    while release and release[-1] == 0:
        release.pop()
    pre, post, dev = fields["pre"], fields["post"], fields["dev"]
    if pre is None and post is None and dev is not None:
        pre_key = _LOW  # 1.0.dev0 sorts before 1.0a0
    elif pre is None:
        pre_key = _HIGH  # a final release sorts after its pre releases
    else:
        pre_key = (1, pre)
    post_key = _LOW if post is None else (1, post)
    dev_key = _HIGH if dev is None else (1, dev)
    if fields["local"] is None:
        local_key = _LOW
    else:
        # Numeric segments sort after alphanumeric ones, and by value.
        local_key = (1, tuple((1, int(part), "") if part.isdigit() else (0, 0, part)
                              for part in fields["local"].split(".")))
    return fields["epoch"], tuple(release), pre_key, post_key, dev_key, local_key


def version_key(text: object) -> tuple[Any, ...]:
    """Sort key of a version string; raises ValueError for text that is not a version."""
    fields = parse(text)
    if fields is None:
        raise ValueError("not a version: %r" % (text,))
    return fields["key"]


def public(fields: Mapping[str, Any], width: int = 1) -> str:
    """The public version text of parsed fields, the release padded to `width` parts.

    {"epoch": 2, "release": (2, 11), "pre": ("rc", 1), ...} with width 3 -> "2!2.11.0rc1".
    """
    release = tuple(fields["release"]) + (0,) * max(0, width - len(fields["release"]))
    text = ".".join(str(part) for part in release)
    if fields["epoch"]:
        text = "%d!%s" % (fields["epoch"], text)
    if fields["pre"]:
        text += "%s%d" % fields["pre"]
    if fields["post"] is not None:
        text += ".post%d" % fields["post"]
    if fields["dev"] is not None:
        text += ".dev%d" % fields["dev"]
    return text
