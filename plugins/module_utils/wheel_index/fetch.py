# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP(S) and file reads of a package index with urllib: a timeout, proxies from the environment
(http_proxy / https_proxy / no_proxy, as urllib's default opener reads them) or pytorch_proxy, byte
ranges, credentials in the URL (user:password@, sent as Basic authorization, never shown), and one
error, IndexUnreachable, that says which index failed, why, and what to set instead.

A Fetcher is what the other wheel_index functions take as `fetch`; tests pass one pointed at a
loopback server or a directory. Python 3.9, stdlib only, no Ansible import.
"""
from __future__ import annotations

import re
import socket
from urllib.error import HTTPError, URLError
from urllib.request import ProxyHandler, Request, build_opener

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import (
    basic_auth, redact, split_credentials)

HINT = ("set pytorch_index_url to a reachable index or mirror (devpi, Artifactory, Nexus), pytorch_wheelhouse "
        "to a directory of wheels, or pytorch_proxy / https_proxy for a proxy")


class IndexUnreachable(Exception):
    """The index could not be read; the message names the index URL, the error and what to set."""

    def __init__(self, index_url, url, error):
        where = url if url == index_url else "%s (of index %s)" % (url, index_url)
        super().__init__(redact("package index %s could not be read: %s. Nothing was installed; %s"
                                % (where, error, HINT)))
        self.index_url, self.url, self.error = index_url, url, str(error)


class RangeRefused(Exception):
    """The server answered a byte-range request with the whole file (no 206)."""


class Fetcher(object):
    """get(url, headers) -> (content type, body); get_range(url, start, end) -> (bytes, total size).

    end None with start < 0: the last -start bytes. Every failure raises IndexUnreachable for
    `index_url`. `opener` defaults to urllib's (which honours the proxy environment variables), or one
    through `proxy` (http://user:password@proxy:3128) when given."""

    def __init__(self, index_url, timeout=30, opener=None, user_agent="blackwell.pytorch wheel_index", proxy=""):
        self.index_url = index_url
        self.timeout = float(timeout)
        if opener is None and proxy:
            opener = build_opener(ProxyHandler({"http": proxy, "https": proxy}))
        self.opener = opener or build_opener()
        self.user_agent = user_agent
        self.requests = 0

    def _open(self, url, headers):
        headers = dict(headers or {}, **{"User-Agent": self.user_agent})
        bare, user, password = split_credentials(url)
        if user is not None and not url.startswith("file:"):
            headers["Authorization"] = basic_auth(user, password)
        request = Request(bare if user is not None else url, headers=headers)
        self.requests += 1
        try:
            return self.opener.open(request, timeout=self.timeout)
        except HTTPError as exc:
            raise IndexUnreachable(self.index_url, url, "HTTP %d %s" % (exc.code, exc.reason))
        except URLError as exc:
            raise IndexUnreachable(self.index_url, url, exc.reason)
        except (socket.timeout, OSError, ValueError) as exc:
            raise IndexUnreachable(self.index_url, url, "%s: %s" % (type(exc).__name__, exc))

    def get(self, url, headers=None):
        response = self._open(url, headers)
        try:
            body = response.read()
        except (socket.timeout, OSError) as exc:
            raise IndexUnreachable(self.index_url, url, "%s: %s" % (type(exc).__name__, exc))
        finally:
            response.close()
        return (response.headers.get("Content-Type") or ""), body

    def get_range(self, url, start, end=None):
        spec = "bytes=%d" % start if end is None and start < 0 else "bytes=%d-%s" % (start, "" if end is None else end)
        response = self._open(url, {"Range": spec})
        try:
            status = getattr(response, "status", None) or response.getcode()
            if url.startswith("file:"):
                return _file_range(response.read(), start, end)
            if status != 206:
                raise RangeRefused("%s answered a range request with HTTP %s (the whole file); not downloading it"
                                   % (url, status))
            total = re.search(r"/(\d+)\s*$", response.headers.get("Content-Range") or "")
            body = response.read()
        except (socket.timeout, OSError) as exc:
            raise IndexUnreachable(self.index_url, url, "%s: %s" % (type(exc).__name__, exc))
        finally:
            response.close()
        return body, int(total.group(1)) if total else None


def _file_range(data, start, end):
    if end is None and start < 0:
        return data[start:], len(data)
    return data[start:None if end is None else end + 1], len(data)
