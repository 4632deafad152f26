# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""One member of a remote zip (a wheel's .dist-info/METADATA) through HTTP range requests.

A zip ends with its central directory: the last bytes hold the end-of-central-directory record
(ZIP64 too), which says where the directory is; the directory gives each member's local header
offset and compressed size. So: the tail (one request), the directory when it starts before the
tail (a second), the member (a third), inflated here. Three small requests instead of a 900 MB
wheel. Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import struct
import zlib
from collections.abc import Callable, Iterable, Mapping
from typing import Any

TAIL = 64 * 1024
_EOCD, _EOCD64, _LOC64 = b"PK\x05\x06", b"PK\x06\x06", b"PK\x06\x07"
_CENTRAL, _LOCAL = b"PK\x01\x02", b"PK\x03\x04"


class ZipError(Exception):
    """The bytes are not a zip this reader understands; the message says what was wrong."""


def _end_record(tail, tail_start, get_range, url):
    at = tail.rfind(_EOCD)
    if at < 0:
        raise ZipError("%s: no end of central directory in its last %d bytes (not a wheel?)" % (url, len(tail)))
    _sig, _d, _cd, _n, entries, size, offset, _c = struct.unpack("<4s4H2LH", tail[at:at + 22])
    if 0xFFFFFFFF in (size, offset) or entries == 0xFFFF:
        loc = tail.rfind(_LOC64, 0, at)
        if loc < 0:
            raise ZipError("%s: ZIP64 sizes without a ZIP64 locator" % url)
        record_at = struct.unpack("<4sLQL", tail[loc:loc + 20])[2]
        if record_at >= tail_start:
            record = tail[record_at - tail_start:record_at - tail_start + 56]
        else:
            record = get_range(record_at, record_at + 55)[0]
        if record[:4] != _EOCD64:
            raise ZipError("%s: bad ZIP64 end of central directory" % url)
        fields = struct.unpack("<4sQ2H2L4Q", record[:56])
        entries, size, offset = fields[7], fields[8], fields[9]
    return entries, size, offset


def _zip64_extra(extra, sizes):
    """Replace 0xFFFFFFFF fields (uncompressed, compressed, offset, in that order) from extra field 0x0001."""
    out, at = list(sizes), 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack("<2H", extra[at:at + 4])
        if kind == 1:
            data, pos = extra[at + 4:at + 4 + length], 0
            for index, value in enumerate(out):
                if value == 0xFFFFFFFF and pos + 8 <= len(data):
                    out[index] = struct.unpack("<Q", data[pos:pos + 8])[0]
                    pos += 8
            break
        at += 4 + length
    return out


def central_directory(data: bytes) -> list[dict[str, Any]]:
    """[{"name", "method", "compressed", "size", "offset"}] of a central directory's bytes."""
    out, at = [], 0
    while data[at:at + 4] == _CENTRAL:
        fields = struct.unpack("<4s6H3L5H2L", data[at:at + 46])
        method, compressed, size = fields[4], fields[8], fields[9]
        name_len, extra_len, comment_len, offset = fields[10], fields[11], fields[12], fields[16]
        name = data[at + 46:at + 46 + name_len].decode("utf-8", "replace")
        extra = data[at + 46 + name_len:at + 46 + name_len + extra_len]
        size, compressed, offset = _zip64_extra(extra, (size, compressed, offset))
        out.append({"name": name, "method": method, "compressed": compressed, "size": size, "offset": offset})
        at += 46 + name_len + extra_len + comment_len
    return out


def list_members(get_range: Callable[[int, int | None], tuple[bytes, int | None]],
                 url: str = "") -> tuple[list[dict[str, Any]], int | None]:
    """(members, total size) of the remote zip; get_range(start, end) -> (bytes, total size), start < 0
    with end None for the last -start bytes."""
    tail, total = get_range(-TAIL, None)
    tail_start = (total - len(tail)) if total is not None else 0
    _entries, size, offset = _end_record(tail, tail_start, get_range, url)
    if offset >= tail_start:
        data = tail[offset - tail_start:offset - tail_start + size]
    else:
        data = get_range(offset, offset + size - 1)[0]
    members = central_directory(data)
    if not members:
        raise ZipError("%s: empty or unreadable central directory" % url)
    return members, total


def read_member(get_range: Callable[[int, int | None], tuple[bytes, int | None]], member: Mapping[str, Any],
                url: str = "") -> bytes:
    """The uncompressed bytes of one member (from list_members) of the remote zip."""
    want = 30 + len(member["name"].encode("utf-8")) + 512 + member["compressed"]
    data = get_range(member["offset"], member["offset"] + want - 1)[0]
    if data[:4] != _LOCAL:
        raise ZipError("%s: no local header at %d for %s" % (url, member["offset"], member["name"]))
    name_len, extra_len = struct.unpack("<2H", data[26:30])
    start = 30 + name_len + extra_len
    body = data[start:start + member["compressed"]]
    if len(body) < member["compressed"]:
        body = get_range(member["offset"] + start, member["offset"] + start + member["compressed"] - 1)[0]
    if member["method"] == 0:
        return body
    if member["method"] == 8:
        return zlib.decompressobj(-15).decompress(body)
    raise ZipError("%s: %s is compressed with method %d (only stored and deflate are read)"
                   % (url, member["name"], member["method"]))


def metadata_member(members: Iterable[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The <name>-<version>.dist-info/METADATA entry, or None."""
    for member in members:
        parts = member["name"].split("/")
        if len(parts) == 2 and parts[0].endswith(".dist-info") and parts[1] == "METADATA":
            return member
    return None
