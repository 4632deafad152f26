# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Fingerprints of the keys in an ASCII-armored OpenPGP public key file, and the pinned-key check.

A vendor key is trusted only when every primary key in the file has a fingerprint from a
pinned list. This reads the file the way gpg does for `--show-keys --with-colons` (RFC 4880
/ RFC 9580 packets: v4 fingerprint = SHA-1 over 0x99, a two-octet length and the public-key
packet body; v5 / v6 = SHA-256 with a four-octet length), so the check needs no gpg on the
target and runs on the controller. Subkeys are reported but never decide trust: apt's gpgv
accepts a subkey only with a valid binding signature of its primary key.

No Ansible import: the filter plugin and the unit tests use these functions.
"""
from __future__ import annotations

import base64
import binascii
import hashlib
import re

ARMOR_BEGIN = "-----BEGIN PGP PUBLIC KEY BLOCK-----"
_BLOCK = re.compile(r"-----BEGIN PGP PUBLIC KEY BLOCK-----(.*?)-----END PGP PUBLIC KEY BLOCK-----", re.S)

TAG_PUBLIC_KEY = 6
TAG_PUBLIC_SUBKEY = 14
TAG_USER_ID = 13
TAG_SECRET_KEY = 5
TAG_SECRET_SUBKEY = 7

ALGORITHMS = {1: "rsa", 2: "rsa", 3: "rsa", 16: "elgamal", 17: "dsa", 18: "ecdh", 19: "ecdsa",
              22: "eddsa", 25: "x25519", 26: "x448", 27: "ed25519", 28: "ed448"}


class OpenPGPError(ValueError):
    """The text is not a usable ASCII-armored OpenPGP public key."""


def _crc24(data):
    crc = 0xB704CE
    for byte in bytearray(data):
        crc ^= byte << 16
        for _bit in range(8):
            crc <<= 1
            if crc & 0x1000000:
                crc ^= 0x1864CFB
    return crc & 0xFFFFFF


def dearmor(text):
    """Binary packets of every public-key block in `text` (concatenated).

    Raises OpenPGPError when there is no block, the base64 is broken or a checksum differs.
    """
    blocks = _BLOCK.findall(text or "")
    if not blocks:
        raise OpenPGPError("no '%s' block found (the key must be ASCII-armored)" % ARMOR_BEGIN)
    data = b""
    for block in blocks:
        lines = [line.strip() for line in block.strip().splitlines()]
        # Armor headers ("Version: ...", "Comment: ...") end at the first empty line.
        if any(":" in line for line in lines[:1]) and "" in lines:
            lines = lines[lines.index("") + 1:]
        body = [line for line in lines if line and not line.startswith("=")]
        checksum = [line[1:] for line in lines if line.startswith("=") and len(line) == 5]
        try:
            raw = base64.b64decode("".join(body).encode("ascii"), validate=True)
        except (binascii.Error, ValueError, UnicodeEncodeError) as err:
            raise OpenPGPError("broken base64 in the key block: %s" % err)
        if checksum:
            try:
                expected = int.from_bytes(base64.b64decode(checksum[0]), "big")
            except (binascii.Error, ValueError) as err:
                raise OpenPGPError("broken armor checksum: %s" % err)
            if _crc24(raw) != expected:
                raise OpenPGPError("armor checksum mismatch (the key block is damaged)")
        data += raw
    return data


def packets(data):
    """Yield (tag, body) for each OpenPGP packet in `data` (old and new header formats)."""
    data = bytearray(data)
    pos, end = 0, len(data)
    while pos < end:
        first = data[pos]
        pos += 1
        if not first & 0x80:
            raise OpenPGPError("not an OpenPGP packet at offset %d" % (pos - 1))
        if first & 0x40:  # new format
            tag = first & 0x3F
            body = b""
            while True:
                if pos >= end:
                    raise OpenPGPError("truncated packet header")
                octet = data[pos]
                if octet < 192:
                    length, pos = octet, pos + 1
                elif octet < 224:
                    if pos + 1 >= end:
                        raise OpenPGPError("truncated packet header")
                    length, pos = ((octet - 192) << 8) + data[pos + 1] + 192, pos + 2
                elif octet == 255:
                    if pos + 4 >= end:
                        raise OpenPGPError("truncated packet header")
                    length, pos = int.from_bytes(bytes(data[pos + 1:pos + 5]), "big"), pos + 5
                else:  # partial body length: a chunk, more follows
                    chunk = 1 << (octet & 0x1F)
                    body += bytes(data[pos + 1:pos + 1 + chunk])
                    pos += 1 + chunk
                    continue
                body += bytes(data[pos:pos + length])
                pos += length
                break
        else:  # old format
            tag = (first >> 2) & 0x0F
            kind = first & 0x03
            if kind == 3:
                length = end - pos
            else:
                size = (1, 2, 4)[kind]
                if pos + size > end:
                    raise OpenPGPError("truncated packet header")
                length = int.from_bytes(bytes(data[pos:pos + size]), "big")
                pos += size
            body = bytes(data[pos:pos + length])
            pos += length
        if pos > end:
            raise OpenPGPError("truncated packet (tag %d)" % tag)
        yield tag, body


def key_fingerprint(body):
    """Fingerprint (upper-case hex) of a public-key or public-subkey packet body; None for v3."""
    version = bytearray(body[:1])[0] if body else 0
    if version == 4:
        return hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest().upper()
    if version in (5, 6):
        prefix = b"\x9a" if version == 5 else b"\x9b"
        return hashlib.sha256(prefix + len(body).to_bytes(4, "big") + body).hexdigest().upper()
    return None


def _algorithm(body):
    return ALGORITHMS.get(bytearray(body[5:6])[0] if len(body) > 5 else -1, "unknown")


def key_info(text):
    """The keys of an armored public key file.

    Returns a list, one dict per primary key: {"fingerprint", "version", "algorithm",
    "user_ids": [...], "subkeys": [fingerprint, ...]}. Raises OpenPGPError for text that is
    not an armored public key, or that carries a secret key.
    """
    keys = []
    for tag, body in packets(dearmor(text)):
        if tag in (TAG_SECRET_KEY, TAG_SECRET_SUBKEY):
            raise OpenPGPError("the file holds a secret key; give the public key only")
        if tag == TAG_PUBLIC_KEY:
            keys.append({"fingerprint": key_fingerprint(body), "version": bytearray(body[:1])[0] if body else 0,
                         "algorithm": _algorithm(body), "user_ids": [], "subkeys": []})
        elif not keys:
            raise OpenPGPError("the first packet is not a public key (tag %d)" % tag)
        elif tag == TAG_USER_ID:
            keys[-1]["user_ids"].append(body.decode("utf-8", "replace"))
        elif tag == TAG_PUBLIC_SUBKEY:
            keys[-1]["subkeys"].append(key_fingerprint(body))
    if not keys:
        raise OpenPGPError("no public key in the block")
    return keys


def normalize_fingerprint(value):
    """"EB69 3B30 ... 63CC" or "0xeb69..." -> "EB693B30...63CC".

    Raises ValueError unless the result is 40 (v4) or 64 (v5/v6) hex digits: a short key id
    is not a fingerprint and must not be pinned.
    """
    text = re.sub(r"\s+", "", str(value or "")).upper()
    if text.startswith("0X"):
        text = text[2:]
    if len(text) not in (40, 64) or not re.match(r"^[0-9A-F]+$", text):
        raise ValueError("not an OpenPGP fingerprint (40 or 64 hex digits): %r" % (value,))
    return text


def check_key(text, pinned):
    """Whether the armored key `text` may be trusted: every primary key's fingerprint pinned.

    Returns {"ok", "keys", "fingerprints", "unexpected", "msg"}. A bad pinned entry, a text
    that is not a key, or an empty pinned list make ok false with the reason in msg.
    """
    result = {"ok": False, "keys": [], "fingerprints": [], "unexpected": [], "msg": ""}
    try:
        wanted = [normalize_fingerprint(item) for item in (pinned or [])]
    except ValueError as err:
        result["msg"] = "bad pinned fingerprint: %s" % err
        return result
    if not wanted:
        result["msg"] = "no pinned fingerprint given: refusing to trust any key"
        return result
    try:
        keys = key_info(text)
    except OpenPGPError as err:
        result["msg"] = "not a usable OpenPGP public key: %s" % err
        return result
    result["keys"] = keys
    result["fingerprints"] = [key["fingerprint"] for key in keys]
    result["unexpected"] = [key["fingerprint"] or "v%d key" % key["version"] for key in keys
                            if key["fingerprint"] not in wanted]
    if result["unexpected"]:
        names = "; ".join("%s (%s)" % (key["fingerprint"] or "v%d key" % key["version"],
                                       ", ".join(key["user_ids"]) or "no user id")
                          for key in keys if key["fingerprint"] not in wanted)
        result["msg"] = "key(s) not in the pinned list %s: %s" % (", ".join(wanted), names)
        return result
    result["ok"] = True
    result["msg"] = "pinned key(s): %s" % ", ".join(
        "%s (%s)" % (key["fingerprint"], ", ".join(key["user_ids"]) or "no user id") for key in keys)
    return result
