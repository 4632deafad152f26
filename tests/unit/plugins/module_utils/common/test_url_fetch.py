# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""url_fetch's reader (common/url_fetch.py): the proxy set in this process only while the request is opened,
answers worded as ansible.builtin.uri words them, a URL's password masked."""
from __future__ import annotations

import io
import os
from urllib.error import HTTPError, URLError

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import url_fetch

PROXY = "http://lab:s3cret@proxy.lab:3128"


class Response(object):
    def __init__(self, body):
        self.body = body

    def getcode(self):
        return 200

    def read(self):
        return self.body


def test_the_proxy_is_this_processs_only_while_the_request_is_opened(monkeypatch):
    monkeypatch.setenv("https_proxy", "http://other:3128")
    monkeypatch.delenv("http_proxy", raising=False)
    seen = {}

    def opener(url, timeout):
        seen.update((name, os.environ.get(name)) for name in url_fetch.PROXY_VARIABLES)
        return Response(b"-----BEGIN PGP PUBLIC KEY BLOCK-----\n")
    assert url_fetch.fetch("https://keys.lab/k.pub", PROXY, 30, opener) == {
        "status": 200, "msg": "OK (37 bytes)", "content": "-----BEGIN PGP PUBLIC KEY BLOCK-----\n"}
    assert seen == dict.fromkeys(url_fetch.PROXY_VARIABLES, PROXY)
    assert os.environ["https_proxy"] == "http://other:3128" and "http_proxy" not in os.environ


def test_failures_are_answers_worded_as_uri_words_them():
    def refused(url, timeout):
        raise URLError(ConnectionRefusedError(111, "Connection refused"))

    def not_found(url, timeout):
        raise HTTPError(url, 404, "Not Found", {}, io.BytesIO(b"no such key"))
    assert url_fetch.fetch("http://lab:pw@keys.lab/k.pub", PROXY, 5, refused) == {
        "status": -1, "msg": "Status code was -1 and not [200]: Request failed: [Errno 111] Connection refused"}
    assert url_fetch.fetch("http://keys.lab/k.pub", "", 5, not_found) == {
        "status": 404, "msg": "Status code was 404 and not [200]: HTTP Error 404: Not Found", "content": "no such key"}
    assert url_fetch.answer(407, b"", "proxy http://lab:s3cret@proxy.lab:3128 wants credentials")["msg"] == (
        "Status code was 407 and not [200]: proxy http://lab:****@proxy.lab:3128 wants credentials")
