# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Text options that YAML or -e can hand over as something else, checked before any change.

- text_problem: a version, branch or channel given as a number. YAML reads an unquoted 2.10 as the float 2.1
  and 12.10 as 12.1: the digits meant are lost before any code sees them, so a number is refused with how to
  quote it, never turned back into text;
- url_problem: a URL option (an index, a channel base, a repository, a proxy) whose value is no URL of the
  schemes the option takes, named as that option (a password in it shown as ***).

Each returns the refusal (variable, value, what to write instead) or None. Python 3.9, no Ansible import.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import redact

_URL = re.compile(r"^(?P<scheme>[a-zA-Z][a-zA-Z0-9+.-]*)://(?P<netloc>[^/?#]*)")
_HOST = re.compile(r"^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?)(:\d{1,5})?$")
_NOT_IN_URLS = re.compile(r"[\s\"'<>\\{}|^`]")


def text_problem(name: str, value: object, example: str, listed: bool = False) -> str | None:
    """The refusal of a number (int or float, not a bool) where text is due, None otherwise. example: the text
    form the option takes ("2.10"); listed: the value is an item of list option `name` (the forms quote a list)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if listed:
        forms = "%s: [\"%s\"] in YAML, -e '{\"%s\": [\"%s\"]}' on the command line" % (name, example, name, example)
    else:
        forms = "%s: \"%s\" in YAML, -e %s='\"%s\"' on the command line" % (name, example, name, example)
    return ("%s %s the number %r, not text: YAML reads an unquoted 2.10 as 2.1, so the digits meant may be lost. "
            "Quote it: %s (the digits you meant)." % (name, "lists" if listed else "is", value, forms))


def text_problems(entries: Iterable[Sequence[Any]]) -> list[str]:
    """text_problem for each (variable, value, example[, listed]), the refusals in order."""
    return [problem for problem in (text_problem(*entry) for entry in entries) if problem]


def url_problem(name: str, value: str | None, schemes: Sequence[str], example: str) -> str | None:
    """The refusal of a value of URL option `name` that is no URL of one of `schemes` (a file URL needs no
    host), None for a URL or an empty value. example: a URL the option takes."""
    text = "" if value is None else str(value)
    if not text.strip():
        return None
    hint = "e.g. -e %s=%s" % (name, example)
    match = _URL.match(text)
    if _NOT_IN_URLS.search(text) or not match or match.group("scheme").lower() not in schemes:
        why = " (spaces, quotes and braces are in no URL)" if _NOT_IN_URLS.search(text) else ""
        return "%s must be a URL of scheme %s, got %r%s: %s." % (name, ", ".join(schemes), redact(text), why, hint)
    host = match.group("netloc").rpartition("@")[2]
    if match.group("scheme").lower() != "file" and not _HOST.match(host):
        return "%s has no valid host name, got %r: %s." % (name, redact(text), hint)
    return None


def url_problems(entries: Iterable[Sequence[Any]]) -> list[str]:
    """url_problem for each (variable, value or list of values, schemes, example), the refusals in order."""
    found = []
    for name, value, schemes, example in entries:
        for item in value if isinstance(value, (list, tuple)) else [value]:
            problem = url_problem(name, item, schemes, example)
            if problem:
                found.append(problem)
    return found
