# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read one URL (a repository key) through a proxy given as a value, not through the task's environment.

A task's `environment:` is written in front of the module's command (`http_proxy=... python AnsiballZ_x.py`),
which Ansible shows at -vvv and every local user sees in ps: a proxy password there is shown. Here the proxy
reaches this process as a module option (no_log) and goes into this process's own environment only while the
request is opened (Ansible's URL reader, as urllib, takes its proxy from there). The answer is shaped as
ansible.builtin.uri's (status, msg, content), so the callers' checks read the same. No decision here needs
Ansible; `opener` is Ansible's open_url in the module and a stand-in in tests. Python 3.9.
"""
from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import redact

PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")


@contextlib.contextmanager
def proxy_environment(proxy: str, environ: MutableMapping[str, str] | None = None) -> Iterator[None]:
    """This process's proxy variables set to `proxy` (when given) for the duration; restored after."""
    environ = os.environ if environ is None else environ
    saved = dict((name, environ.get(name)) for name in PROXY_VARIABLES)
    if proxy:
        environ.update((name, proxy) for name in PROXY_VARIABLES)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                environ.pop(name, None)
            else:
                environ[name] = value


def answer(status: int, content: bytes = b"", why: str = "") -> dict[str, Any]:
    """The result fields of an answer, as ansible.builtin.uri words them: status (-1: no answer at all), msg,
    content (text; none without an answer). A URL's password in `why` is masked."""
    text = content.decode("utf-8", "replace") if isinstance(content, bytes) else str(content or "")
    if status == 200:
        return {"status": 200, "msg": "OK (%d bytes)" % len(content or b""), "content": text}
    out = {"status": status, "msg": redact("Status code was %s and not [200]: %s" % (status, why))}
    if status != -1:  # an HTTP error's body; no answer has none
        out["content"] = text
    return out


def fetch(url: str, proxy: str, timeout: float, opener: Callable[..., Any]) -> dict[str, Any]:
    """Read `url` (through `proxy` when given) with opener(url, timeout=...) -> a response; never raises on the
    URL's answer: a refused connection is status -1, an HTTP error its status, each with uri's message."""
    with proxy_environment(proxy):
        try:
            response = opener(url, timeout=timeout)
            return answer(response.getcode() or 200, response.read())
        except Exception as exc:  # urllib's HTTPError, URLError, socket errors, ssl errors
            code = getattr(exc, "code", None)
            if isinstance(code, int):
                body = exc.read() if hasattr(exc, "read") else b""
                return answer(code, body, "HTTP Error %s: %s" % (code, getattr(exc, "reason", exc)))
            return answer(-1, b"", "Request failed: %s" % (exc.reason if hasattr(exc, "reason") else exc))
