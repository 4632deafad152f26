# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A private package index over https on 127.0.0.1, built at test time (nothing is committed).

make_pki(directory) writes a throwaway CA (ca.pem), a server certificate for 127.0.0.1 signed by it, a client
certificate with its key in one PEM file (client.pem, what pip's --client-cert takes) and the same certificate
without its key (client-cert-only.pem). serve_https(root, pki, user, password, client_certs) serves `root`
(the tree of tests/fixtures/pypi_index/build.py) as wheel_index_fixture.serve does (byte ranges, every request
recorded), over TLS, answering 401 to a request without Basic authorization for user:password, and, with
client_certs, refusing a TLS client without a certificate signed by the CA.
"""
from __future__ import annotations

import base64
import datetime
import ipaddress
import os
import ssl
import threading
import http.server

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

import wheel_index_fixture


def _name(text):
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, text)])


def _certificate(subject, key, issuer, issuer_key, ca=False, server=False):
    now = datetime.datetime.now(datetime.timezone.utc)
    builder = (x509.CertificateBuilder().subject_name(_name(subject)).issuer_name(_name(issuer))
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if ca:
        builder = builder.add_extension(x509.KeyUsage(True, False, False, False, False, True, True, False, False),
                                        critical=True)
    elif server:
        builder = builder.add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
    else:
        builder = builder.add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.CLIENT_AUTH]), critical=False)
    return builder.sign(issuer_key, hashes.SHA256())


def _pem(certificate=None, key=None):
    out = b""
    if certificate is not None:
        out += certificate.public_bytes(serialization.Encoding.PEM)
    if key is not None:
        out += key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                 serialization.NoEncryption())
    return out


def make_pki(directory):
    """{"ca", "server", "server_key", "client", "client_cert_only"}: paths of PEM files under directory."""
    ca_key, server_key, client_key = (ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1()),
                                      ec.generate_private_key(ec.SECP256R1()))
    ca = _certificate("blackwell test index CA", ca_key, "blackwell test index CA", ca_key, ca=True)
    server = _certificate("127.0.0.1", server_key, "blackwell test index CA", ca_key, server=True)
    client = _certificate("lab workstation", client_key, "blackwell test index CA", ca_key)
    files = {"ca": _pem(ca), "server": _pem(server), "server_key": _pem(key=server_key),
             "client": _pem(client, client_key), "client_cert_only": _pem(client)}
    paths = {}
    for name, data in files.items():
        paths[name] = os.path.join(str(directory), name.replace("_", "-") + ".pem")
        with open(paths[name], "wb") as handle:
            handle.write(data)
        os.chmod(paths[name], 0o600)
    return paths


class _Handler(wheel_index_fixture._Handler):
    def do_GET(self):
        wanted = "Basic " + base64.b64encode(("%s:%s" % self.server.credentials).encode()).decode()
        if self.headers.get("Authorization") != wanted:
            self.server.refused.append((self.path, self.headers.get("Authorization")))
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="lab index"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        super().do_GET()


def serve_https(root, pki, user, password, client_certs=False):
    """(server, base URL "https://127.0.0.1:PORT") of root over TLS with Basic authorization; server.seen lists
    (path, Range) of the requests served, server.refused (path, Authorization) of those answered 401."""
    def handler(*args, **kwargs):
        return _Handler(*args, directory=root, **kwargs)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(pki["server"], pki["server_key"])
    if client_certs:
        context.verify_mode = ssl.CERT_REQUIRED
        context.load_verify_locations(pki["ca"])
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.seen, server.proxied, server.auth, server.refused = [], [], [], []
    server.json_pages, server.ranges, server.credentials = False, True, (user, password)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "https://127.0.0.1:%d" % server.server_address[1]
