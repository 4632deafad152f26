# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the plan reaches a private index the way pip does: the same CA bundle, client certificate, trusted
hosts and proxy, from the role's options and from pytorch_pip_extra_args (docs/planning.md).

- settings(): the effective settings, pip's rules: an option in the extra arguments comes after the
  role's in pip's command line, so it wins (--cert, --client-cert, --proxy); --trusted-host adds up.
- extra_args_refusal(): extra arguments that would make pip read another index than the plan.
- verifies(): whether a URL's certificate is checked (pip: not on a --trusted-host).
- credentials_for(): the index URL's user:password@ for a URL of the same host that has none (pip's rule).
- pem_refusal(): a client certificate file that is not what pip's --client-cert takes.
- tls_problem(), http_problem(): what went wrong and which option to set, for IndexUnreachable.
Python 3.9, stdlib only, no Ansible import; nothing here reads a file or the network.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit, urlunsplit

# pip option -> (setting, role variable that sets it)
_SINGLE = {"--cert": ("ca_path", "pytorch_index_ca_path"), "--client-cert": ("client_cert", "pytorch_index_client_cert"),
           "--proxy": ("proxy", "pytorch_proxy")}
_WHERE = ("--index-url", "-i", "--extra-index-url", "--no-index", "--find-links", "-f")
CA_HINT = ("set pytorch_index_ca_path to the CA bundle (PEM, a file on the target) that signed the index's "
           "certificate (pip gets it as --cert)")
CLIENT_HINT = ("set pytorch_index_client_cert to a PEM file on the target that holds the client certificate and its "
               "private key (pip gets it as --client-cert)")
AUTH_HINT = ("give the index's credentials as https://user:password@host/... in pytorch_index_url (or "
             "pytorch_channel_base_url), or in a netrc entry of the target's user (~/.netrc, or the file NETRC "
             "names): machine HOST login USER password PASSWORD")


def _options(args):
    """(option, value) pairs of pip arguments: --opt=value, --opt value, or a flag alone (value None)."""
    args, out, at = [str(arg) for arg in args or ()], [], 0
    while at < len(args):
        arg = args[at]
        if arg.startswith("-") and "=" in arg:
            out.append(tuple(arg.split("=", 1)))
        elif arg in _SINGLE or arg in ("--trusted-host", "--index-url", "-i", "--extra-index-url", "--find-links",
                                       "-f"):
            out.append((arg, args[at + 1] if at + 1 < len(args) else ""))
            at += 1
        else:
            out.append((arg, None))
        at += 1
    return out


def settings(ca_path: str = "", client_cert: str = "", trusted_hosts: Sequence[str] = (), proxy: str = "",
             extra_args: Sequence[str] = ()) -> dict[str, Any]:
    """{"ca_path", "client_cert", "proxy", "trusted_hosts", "from": {setting: where it came from}}."""
    found = {"ca_path": ca_path or "", "client_cert": client_cert or "", "proxy": proxy or "",
             "trusted_hosts": [str(host) for host in trusted_hosts or ()]}
    where = dict((key, var) for key, var in _SINGLE.values() if found[key])
    for option, value in _options(extra_args):
        if option in _SINGLE and value:
            key = _SINGLE[option][0]
            found[key], where[key] = value, "pytorch_pip_extra_args %s" % option
        elif option == "--trusted-host" and value:
            found["trusted_hosts"].append(value)
    found["from"] = where
    return found


def extra_args_refusal(extra_args: Sequence[str]) -> str | None:
    """The refusal of pytorch_pip_extra_args that send pip to another index than the one the plan reads."""
    where = sorted(set(option for option, _value in _options(extra_args) if option in _WHERE))
    if not where:
        return None
    return ("pytorch_pip_extra_args sets %s: pip would install from another place than the one the plan reads. Use "
            "pytorch_index_url, pytorch_extra_index_urls or pytorch_wheelhouse instead." % ", ".join(where))


def _host_port(netloc):
    netloc = netloc.rpartition("@")[2].lower()
    if netloc.startswith("["):
        host, _sep, rest = netloc[1:].partition("]")
        return host, rest[1:] or None
    host, sep, port = netloc.partition(":")
    return host, (port if sep else None)


def verifies(url: str, trusted_hosts: Iterable[str]) -> bool:
    """False for an https URL on a trusted host as pip reads --trusted-host: "host" matches every port,
    "host:port" that port only; True otherwise."""
    host, port = _host_port(urlsplit(str(url)).netloc)
    for trusted in trusted_hosts or ():
        trusted_host, trusted_port = _host_port(str(trusted).rsplit("://", 1)[-1].strip("/"))
        if trusted_host == host and (trusted_port is None or trusted_port == (port or "443")):
            return False
    return True


def credentials_for(url: str, index_url: str) -> str:
    """`url` with the index URL's user:password@ when it names the same host and port and carries none
    (pip sends an index's credentials to every URL of its host); `url` as it is otherwise."""
    parts, index = urlsplit(str(url)), urlsplit(str(index_url or ""))
    if "@" in parts.netloc or "@" not in index.netloc or parts.scheme not in ("http", "https"):
        return str(url)
    userinfo, _sep, index_host = index.netloc.rpartition("@")
    if index_host.lower() != parts.netloc.lower():
        return str(url)
    return urlunsplit(parts._replace(netloc="%s@%s" % (userinfo, parts.netloc)))


def pem_refusal(text: str, path: str, variable: str = "pytorch_index_client_cert") -> str:
    """The refusal of a client certificate file without a certificate or without a private key (pip's
    --client-cert takes both in one PEM file); None when it has both. Never quotes the file."""
    lacks = [what for what, pattern in (("certificate", r"-----BEGIN CERTIFICATE-----"),
                                        ("private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"))
             if not re.search(pattern, text or "")]
    if not lacks:
        return None
    return ("%s %s holds no %s: pip's --client-cert takes the certificate and its private key in one PEM file "
            "(cat client.crt client.key > client.pem; mode 0600)." % (variable, path, " and no ".join(lacks)))


def tls_problem(reason: str, verify_message: str = "") -> tuple[str, str] | None:
    """(error, hint) for a TLS failure, from the SSL error's reason ("CERTIFICATE_VERIFY_FAILED",
    "TLSV13_ALERT_CERTIFICATE_REQUIRED", ...) and verify message; None when it is not a TLS failure."""
    reason = str(reason or "").upper()
    if reason == "CERTIFICATE_VERIFY_FAILED":
        return "its TLS certificate is not trusted (%s)" % (verify_message or "certificate verify failed"), CA_HINT
    if reason in ("TLSV13_ALERT_CERTIFICATE_REQUIRED", "SSLV3_ALERT_HANDSHAKE_FAILURE"):
        return "the server asks for a TLS client certificate (%s)" % reason.lower(), CLIENT_HINT
    if reason in ("TLSV1_ALERT_UNKNOWN_CA", "SSLV3_ALERT_BAD_CERTIFICATE", "SSLV3_ALERT_CERTIFICATE_UNKNOWN",
                  "TLSV1_ALERT_ACCESS_DENIED"):
        return "the server refused the TLS client certificate (%s)" % reason.lower(), CLIENT_HINT
    if reason in ("UNEXPECTED_EOF_WHILE_READING", "EOF"):
        return ("the server closed the TLS connection (%s), as one that asks for a client certificate it did not "
                "get does" % reason.lower().replace("_", " ")), CLIENT_HINT
    if reason in ("KEY_VALUES_MISMATCH", "PEM_LIB", "NO_START_LINE", "X509_LIB"):
        return "the client certificate or the CA bundle could not be loaded (%s)" % reason.lower(), (
            CLIENT_HINT + "; " + CA_HINT)
    return None


def http_problem(code: int, reason: str, sent_credentials: bool) -> tuple[str, str] | None:
    """(error, hint) for an HTTP status that credentials decide (401, 403, 407); None for the others."""
    if code == 401:
        said = "the credentials given were refused" if sent_credentials else "it wants credentials and got none"
        return "HTTP 401 %s: %s" % (reason, said), AUTH_HINT
    if code == 403:
        return "HTTP 403 %s: these credentials may not read it" % reason, AUTH_HINT
    if code == 407:
        return "HTTP 407 %s: the proxy wants credentials" % reason, (
            "give them in the proxy URL (pytorch_proxy, or https_proxy on the target): http://user:password@proxy:3128")
    return None
