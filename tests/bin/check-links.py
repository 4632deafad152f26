# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""check-links.py TARBALL -- every relative link in every .md file the collection tarball ships
resolves to a file (or folder) in that tarball.

Links read: inline links and images `[text](target)`, reference definitions `[label]: target`
and HTML `href` / `src` attributes. Links with a scheme (https:, mailto:) and anchors alone
(`#section`) are not checked; a target's own `#anchor` and `?query` are dropped. Code blocks and
code spans are not read. Exit 1 and one line per dead link (`file:line: target`).
"""
from __future__ import annotations

import posixpath
import re
import sys
import tarfile
from urllib.parse import unquote

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,}).*?(?:^ {0,3}\1[`~]*[ \t]*$|\Z)", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_TARGET = r"(<[^<>\n]*>|[^\s()<>]*(?:\([^\s()]*\)[^\s()<>]*)*)"
_INLINE = re.compile(r"\]\(\s*" + _TARGET + r"(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
_REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*\n?[ \t]*" + _TARGET, re.MULTILINE)
_HTML = re.compile(r"<[A-Za-z][^>]*?\s(?:href|src)\s*=\s*(\"[^\"]*\"|'[^']*')", re.IGNORECASE)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def _blank(match):
    """The matched text with everything but line breaks turned into spaces (offsets kept)."""
    return re.sub(r"[^\n]", " ", match.group(0))


def links(text):
    """(line, target) of every link in Markdown `text`, code and comments left out."""
    for pattern in (_FENCE, _COMMENT, _CODE_SPAN):
        text = pattern.sub(_blank, text)
    found = []
    for pattern in (_INLINE, _REFERENCE, _HTML):
        for match in pattern.finditer(text):
            target = match.group(1)
            if target[:1] in "<\"'" and len(target) >= 2:
                target = target[1:-1]
            found.append((text.count("\n", 0, match.start(1)) + 1, target.strip()))
    return sorted(found)


def resolve(document, target):
    """The tarball path a relative `target` in `document` points at; None when not checked
    (a URL, an anchor alone); '' when it leaves the tarball."""
    if not target or target.startswith(("#", "//")) or _SCHEME.match(target):
        return None
    path = unquote(re.split(r"[#?]", target, maxsplit=1)[0])
    if not path:
        return None
    base = "" if path.startswith("/") else posixpath.dirname(document)
    resolved = posixpath.normpath(posixpath.join(base, path.lstrip("/")))
    return "" if resolved == ".." or resolved.startswith("../") else resolved


def dead_links(members):
    """`members`: {path: bytes or None for a folder}; returns 'file:line: target' per dead link."""
    present = set(members)
    for name in members:
        parts = name.split("/")
        present.update("/".join(parts[:end]) for end in range(1, len(parts)))
    dead = []
    for name in sorted(members):
        if not name.endswith(".md") or members[name] is None:
            continue
        for line, target in links(members[name].decode("utf-8")):
            resolved = resolve(name, target)
            if resolved is not None and resolved not in present:
                dead.append("%s:%d: %s" % (name, line, target))
    return dead


def read_tarball(path):
    members = {}
    with tarfile.open(path) as archive:
        for member in archive.getmembers():
            name = posixpath.normpath(member.name)
            if member.isfile():
                members[name] = archive.extractfile(member).read()
            elif member.isdir():
                members[name] = None
    return members


def main(argv):
    if len(argv) != 2:
        print(__doc__.split("\n\n", 1)[0], file=sys.stderr)
        return 2
    members = read_tarball(argv[1])
    dead = dead_links(members)
    documents = sum(1 for name, data in members.items() if name.endswith(".md") and data is not None)
    for line in dead:
        print("dead link: %s" % line)
    if dead:
        print("%d dead link(s) in the %d .md files of %s" % (len(dead), documents, argv[1]))
        return 1
    print("links: every relative link in the %d .md files resolves in the tarball" % documents)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
