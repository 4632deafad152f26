# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The repository key the container_toolkit role trusts, and its refusal.

The key is the one given inline (container_toolkit_repo_key_content), else the one fetched in preflight (the
url_fetch task's result), else the copy already on the host (the slurp task's result, kept when it is still
pinned); it is checked against the pinned fingerprints with driver/openpgp.py. No Ansible import.
"""
from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping, Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.openpgp import check_key


def key_text(content: str, fetched: Mapping[str, Any], on_host: Mapping[str, Any]) -> str:
    """The armored key: `content` when given, else the fetched one (a result with content), else the host's copy
    (slurp's base64 content; "" when there is none or it is not base64)."""
    if content:
        return content
    if "content" in fetched:
        return str(fetched["content"] or "")
    try:
        return base64.b64decode(str(on_host.get("content") or "").encode("ascii")).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return ""


def repo_key(content: str, key_url: str, fetched: Mapping[str, Any], on_host: Mapping[str, Any],
             fingerprints: Sequence[str]) -> dict[str, Any]:
    """{ok, text, msg}: the key (key_text) and whether it may be trusted; msg the refusal (a fetch that did not
    answer 200, or a key not pinned) or the check's message."""
    text = key_text(content, fetched, on_host)
    status = fetched.get("status", 200)
    if status != 200:
        return {"ok": False, "text": text, "msg": (
            "the repository key %s cannot be fetched (HTTP %s): point container_toolkit_repo_base_url at a reachable "
            "mirror, set container_toolkit_repo_proxy, or give the key in container_toolkit_repo_key_content"
            % (key_url, status))}
    check = check_key(text, fingerprints)
    if not check["ok"]:
        return {"ok": False, "text": text, "msg": (
            "the repository key from %s is not trusted: %s. If NVIDIA rotated its key, add the new fingerprint to "
            "container_toolkit_repo_key_fingerprints after checking it out of band"
            % ("container_toolkit_repo_key_content" if content else key_url, check["msg"]))}
    return {"ok": True, "text": text, "msg": check["msg"]}
