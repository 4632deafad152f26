# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The secret parts of URLs that carry credentials (https://user:password@host/..., a token as
https://token@host/...), for AnsibleModule.no_log_values, and the same URLs without them.

pip accepts credentials in --index-url, --extra-index-url and --proxy; urllib does not (it needs
them as an Authorization header). Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import base64
import re
from collections.abc import Iterable
from urllib.parse import quote, unquote, urlsplit, urlunsplit

_USERINFO = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#@\s]+)@")
MASK = "****"


def _userinfo_secrets(userinfo):
    user, sep, password = userinfo.partition(":")
    secret = password if sep else user  # https://token@host: the token is the secret
    if not secret:
        return []
    plain = unquote(secret)
    found = [secret, plain, quote(plain, safe="")]
    if sep:
        pair = "%s:%s" % (unquote(user), plain)
        found.append(base64.b64encode(pair.encode("utf-8")).decode("ascii"))  # a Basic header's value
    return found


def url_secrets(texts: str | Iterable[object] | None) -> list[str]:
    """The secrets in every URL found in `texts` (strings, or lists of strings such as pip arguments
    "--extra-index-url=https://u:p@host/simple"), as written, unquoted, quoted and as a Basic
    credential; sorted, without duplicates."""
    if isinstance(texts, str):
        texts = [texts]
    found = set()
    for text in texts or ():
        if isinstance(text, (list, tuple)):
            found.update(url_secrets(text))
            continue
        for userinfo in _USERINFO.findall(str(text or "")):
            found.update(_userinfo_secrets(userinfo))
    return sorted(value for value in found if value)


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """(url without its user:password@, user, password); user and password are None when it has none.
    A token alone (https://token@host) comes back as the user, with password ""."""
    parts = urlsplit(str(url or ""))
    if "@" not in parts.netloc:
        return str(url or ""), None, None
    userinfo, _sep, host = parts.netloc.rpartition("@")
    user, _sep, password = userinfo.partition(":")
    return urlunsplit(parts._replace(netloc=host)), unquote(user), unquote(password)


def redact(text: str) -> str:
    """`text` with the secret of each URL in it replaced by ****: https://lab:****@host/simple."""
    def mask(match):
        user, sep, _password = match.group(1).partition(":")
        userinfo = "%s:%s" % (user, MASK) if sep else MASK
        return match.group(0).replace(match.group(1), userinfo)
    return _USERINFO.sub(mask, str(text or ""))


def basic_auth(user: str, password: str) -> str:
    """The Authorization header's value for user and password."""
    pair = "%s:%s" % (user, password or "")
    return "Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")
