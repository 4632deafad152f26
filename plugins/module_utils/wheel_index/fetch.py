# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""HTTP(S) and file reads of a package index through Ansible's URL reader (ansible.module_utils.urls), the way
pip reads it: a CA bundle (ca_path, pip --cert), a client certificate with its key in one PEM file
(client_cert, pip --client-cert), no certificate check on a trusted host (pip --trusted-host), credentials
in the URL (user:password@, sent as Basic authorization to the index's host only, never shown) or else
from netrc (NETRC, ~/.netrc), proxies from the environment (http_proxy / https_proxy / no_proxy) or
pytorch_proxy, a timeout, byte ranges; and one error, IndexUnreachable, that says which index failed, why,
and what to set (access.tls_problem / http_problem).

A Fetcher is what the other wheel_index functions take as `fetch`; tests pass one pointed at a loopback
server or a directory. The decisions are in wheel_index.access (pure); this file does the I/O. Python 3.9.
"""
from __future__ import annotations

import contextlib
import netrc
import os
import re
import socket
import ssl
from collections.abc import Mapping
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import proxy_bypass_environment

from ansible.module_utils.urls import Request, make_context

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import redact, split_credentials
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import access

HINT = ("set pytorch_index_url to a reachable index or mirror (devpi, Artifactory, Nexus), pytorch_wheelhouse "
        "to a directory of wheels, or pytorch_proxy / https_proxy for a proxy")
_PROXY_VARIABLES = ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY")
PROXY_HINT = ("the request went through the proxy %s names: check that proxy, set pytorch_proxy to one that works, or "
              "%s where the index is reachable without a proxy")


def proxy_used(url: str, proxy: str = "") -> tuple[str, str] | None:
    """(proxy URL, where it was set) of the proxy a request to `url` goes through, or None: `proxy` (pytorch_proxy),
    else the environment's variable for the URL's scheme as urllib reads it (the lower-case name first, no_proxy
    honoured); a file: URL goes through none."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return None
    if proxy:
        return proxy, "pytorch_proxy"
    for name in ("%s_proxy" % parts.scheme, "%s_PROXY" % parts.scheme.upper()):
        value = os.environ.get(name)
        if value:
            return (None if proxy_bypass_environment(parts.hostname or "")
                    else (value, "%s in the target's environment" % name))
    return None


class IndexUnreachable(Exception):
    """The index could not be read; the message names the index URL, the error, the proxy the request went
    through (`through`: proxy_used()'s answer) and what to set."""

    def __init__(self, index_url, url, error, hint=HINT, through=None):
        where = url if url == index_url else "%s (of index %s)" % (url, index_url)
        how = ""
        if through:
            how = " through the proxy %s (%s)" % through
            hint = PROXY_HINT % (through[1], "empty it" if through[1] == "pytorch_proxy"
                                 else "unset %s" % through[1].split(" ")[0])
        super().__init__(redact("package index %s could not be read%s: %s. Nothing was installed; %s"
                                % (where, how, error, hint)))
        self.index_url, self.url, self.error = index_url, url, str(error)


class RangeRefused(Exception):
    """The server answered a byte-range request with the whole file (no 206)."""


@contextlib.contextmanager
def _proxy_environment(proxy):
    """The proxy variables of this process set to `proxy` while a request is opened (Ansible's reader takes
    its proxy from the environment, as urllib does); nothing changes without one."""
    saved = dict((name, os.environ.get(name)) for name in _PROXY_VARIABLES)
    if proxy:
        os.environ.update((name, proxy) for name in _PROXY_VARIABLES)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _netrc_login(host):
    """Whether the netrc file (NETRC, else ~/.netrc) has credentials for host."""
    try:
        return bool(netrc.netrc(os.environ.get("NETRC")).authenticators(host or ""))
    except (OSError, netrc.NetrcParseError):
        return False


class Fetcher(object):
    """get(url, headers) -> (content type, body); get_range(url, start, end) -> (bytes, total size).

    end None with start < 0: the last -start bytes. Every failure raises IndexUnreachable for `index_url`.
    ca_path, client_cert, trusted_hosts: wheel_index.access.settings(); proxy: an http(s) proxy URL
    (http://user:password@proxy:3128), else the proxy environment variables."""

    def __init__(self, index_url, timeout=30, user_agent="blackwell.pytorch wheel_index", proxy="", ca_path="",
                 client_cert="", trusted_hosts=()):
        self.index_url = index_url
        self.timeout = float(timeout)
        self.user_agent = user_agent
        self.proxy, self.ca_path, self.client_cert = proxy or "", ca_path or "", client_cert or ""
        self.trusted_hosts = list(trusted_hosts or ())
        self.requests = 0
        self._contexts = {}

    def _context(self, url, verify):
        """The TLS context (made once per kind: checking certificates or not)."""
        if verify not in self._contexts:
            try:
                self._contexts[verify] = make_context(cafile=self.ca_path or None, validate_certs=verify,
                                                      client_cert=self.client_cert or None)
            except ssl.SSLError as exc:
                raise self._failure(url, exc)
            except OSError as exc:
                raise IndexUnreachable(self.index_url, url, "%s: %s" % (type(exc).__name__, exc.strerror or exc),
                                       "%s; %s" % (access.CA_HINT, access.CLIENT_HINT))
        return self._contexts[verify]

    def _failure(self, url, reason):
        if isinstance(reason, ssl.SSLError):
            code = "EOF" if isinstance(reason, ssl.SSLEOFError) else getattr(reason, "reason", "")
            problem = access.tls_problem(code, getattr(reason, "verify_message", ""))
            if problem:
                return IndexUnreachable(self.index_url, url, *problem)
        if isinstance(reason, netrc.NetrcParseError):  # its message may quote a token of the file: not shown
            return IndexUnreachable(self.index_url, url, "the netrc file %s could not be parsed (line %s)"
                                    % (reason.filename, reason.lineno), access.AUTH_HINT)
        if isinstance(reason, BaseException):
            reason = "%s: %s" % (type(reason).__name__, reason)
        # a connection that failed through a proxy: named, with where it was set (a wrong https_proxy in the
        # environment read as the index's own failure)
        return IndexUnreachable(self.index_url, url, reason, through=proxy_used(url, self.proxy))

    def _open(self, url, headers):
        url = access.credentials_for(url, self.index_url)
        bare, user, password = split_credentials(url)
        local = url.startswith("file:")
        verify = local or access.verifies(url, self.trusted_hosts)
        sent = user is not None or (not local and _netrc_login(urlsplit(bare).hostname))
        self.requests += 1
        try:
            context = self._context(url, verify)
            with _proxy_environment(self.proxy):
                return Request().open(
                    "GET", bare, headers=dict(headers or {}), timeout=self.timeout, http_agent=self.user_agent,
                    url_username=user, url_password=password, force_basic_auth=user is not None,
                    use_netrc=not local, context=context, unredirected_headers=["Authorization"])
        except HTTPError as exc:
            problem = access.http_problem(exc.code, exc.reason, sent)
            raise IndexUnreachable(self.index_url, url, *(problem or ("HTTP %d %s" % (exc.code, exc.reason),)))
        except URLError as exc:
            raise self._failure(url, exc.reason)
        except (socket.timeout, OSError, ValueError, netrc.NetrcParseError) as exc:
            raise self._failure(url, exc)

    def get(self, url: str, headers: Mapping[str, str] | None = None) -> tuple[str, bytes]:
        response = self._open(url, headers)
        try:
            body = response.read()
        except (socket.timeout, OSError) as exc:
            raise self._failure(url, exc)
        finally:
            response.close()
        return (response.headers.get("Content-Type") or ""), body

    def get_range(self, url: str, start: int, end: int | None = None) -> tuple[bytes, int | None]:
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
            raise self._failure(url, exc)
        finally:
            response.close()
        return body, int(total.group(1)) if total else None


def _file_range(data, start, end):
    if end is None and start < 0:
        return data[start:], len(data)
    return data[start:None if end is None else end + 1], len(data)
