# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A private mirror over https with its own CA, Basic authorization and optionally client certificates, on
127.0.0.1 (https_index_fixture): read_catalog reads it as pip does, and a real pip, given the arguments
the pytorch role gives it (--index-url with user:password@, --cert, --client-cert, --trusted-host), downloads
from it exactly when the plan could read it."""
from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

import https_index_fixture
from index_plan import plan_from_index

PASSWORD = "Mirr0r-S3cret"
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
BUILD = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "fixtures", "pypi_index", "build.py")


@pytest.fixture(autouse=True)
def no_proxy_nor_netrc_from_outside(monkeypatch, tmp_path):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("NETRC", str(tmp_path / "no-netrc"))


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    return https_index_fixture.make_pki(tmp_path_factory.mktemp("pki"))


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    spec = importlib.util.spec_from_file_location("pypi_index_build", BUILD)
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    out = str(tmp_path_factory.mktemp("mirror") / "index")
    build.main(out)
    return out


@pytest.fixture(scope="module")
def mirror(tree, pki):
    server, base = https_index_fixture.serve_https(tree, pki, "lab", PASSWORD)
    yield server, base
    server.shutdown()


@pytest.fixture(scope="module")
def mtls_mirror(tree, pki):
    server, base = https_index_fixture.serve_https(tree, pki, "lab", PASSWORD, client_certs=True)
    yield server, base
    server.shutdown()


def _secret(base, password=PASSWORD):
    return base.replace("https://", "https://lab:%s@" % password)


def _plan(index, **kwargs):
    args = dict(python_tag="cp311", platform="x86_64", gpus=[RTX5090], driver_cuda="13.0", version="2.9.1",
                timeout=10)
    args.update(kwargs)
    return plan_from_index(index, **args)


def _pip(tmp_path, index, *options):
    """A real `pip download --no-deps` of the stand-in torch through `options`; (rc, output). pip's configuration
    is ignored, and so are REQUESTS_CA_BUNDLE / CURL_CA_BUNDLE, which requests would take over --cert
    (docs/roles/pytorch.md, "Private mirror")."""
    argv = [sys.executable, "-m", "pip", "download", "--isolated", "--disable-pip-version-check", "--no-deps",
            "--retries", "0", "--timeout", "10", "-d", str(tmp_path / "downloaded"), "--index-url", index,
            "--only-binary", "torch,torchvision,torchaudio"] + list(options) + ["torch==2.9.1+cu128"]
    env = dict((key, value) for key, value in os.environ.items()
               if not key.startswith("PIP_") and key not in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"))
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False,
                          env=dict(env, PIP_CONFIG_FILE=os.devnull))
    return done.returncode, done.stdout + done.stderr


def test_https_mirror_with_its_ca_and_credentials_is_planned_and_pip_installs_from_it(mirror, pki, tmp_path):
    server, base = mirror
    plan = _plan(_secret(base) + "/whl/cu128", ca_path=pki["ca"])
    assert (plan["error"], plan["stack"]) == (None, "torch-2.9.1-cu128")
    assert plan["index"]["url"] == "https://lab:****@%s/whl/cu128" % base[len("https://"):]
    assert PASSWORD not in str(plan)
    rc, output = _pip(tmp_path, _secret(base) + "/whl/cu128", "--cert", pki["ca"])
    assert rc == 0, output
    assert os.listdir(str(tmp_path / "downloaded")) == ["torch-2.9.1+cu128-py3-none-any.whl"]


def test_unlabelled_wheels_are_read_with_range_requests_over_https(mirror, pki):
    server, base = mirror
    del server.seen[:]
    plan = _plan(_secret(base) + "/pypi", version="2.8.0", ca_path=pki["ca"], local_label=False)
    assert (plan["error"], plan["stack"], plan["pins"][0]) == (None, "torch-2.8.0-cu128", "torch==2.8.0")
    ranges = [path for path, wanted in server.seen if wanted and path.endswith(".whl")]
    assert ranges and all("torch-2.8.0-" in path or "torch" in path for path in ranges)


def test_without_the_ca_the_plan_refuses_naming_pytorch_index_ca_path_and_pip_fails_too(mirror, tmp_path):
    server, base = mirror
    error = _plan(_secret(base) + "/whl/cu128")["error"]
    assert "could not be read: its TLS certificate is not trusted (" in error
    assert "set pytorch_index_ca_path to the CA bundle (PEM, a file on the target)" in error
    assert PASSWORD not in error
    rc, output = _pip(tmp_path, _secret(base) + "/whl/cu128")
    assert rc != 0 and "CERTIFICATE_VERIFY_FAILED" in output


def test_a_wrong_password_is_a_401_refusal_that_never_shows_it(mirror, pki, tmp_path):
    server, base = mirror
    error = _plan(_secret(base, "Wr0ng-Pass") + "/whl/cu128", ca_path=pki["ca"])["error"]
    assert error.startswith("package index https://lab:****@%s/whl/cu128/torch/ (of index "
                            "https://lab:****@%s/whl/cu128) could not be read: HTTP 401 Unauthorized: the "
                            "credentials given were refused." % ((base[len("https://"):],) * 2))
    assert "Wr0ng-Pass" not in error and "netrc" in error
    rc, output = _pip(tmp_path, _secret(base, "Wr0ng-Pass") + "/whl/cu128", "--cert", pki["ca"])
    assert rc != 0 and "401" in output


def test_credentials_from_netrc_are_used_by_the_plan_and_by_pip(mirror, pki, tmp_path, monkeypatch):
    server, base = mirror
    error = _plan(base + "/whl/cu128", ca_path=pki["ca"])["error"]
    assert "HTTP 401 Unauthorized: it wants credentials and got none." in error
    netrc = tmp_path / "netrc"
    netrc.write_text("machine 127.0.0.1 login lab password %s\n" % PASSWORD)
    netrc.chmod(0o600)
    monkeypatch.setenv("NETRC", str(netrc))
    plan = _plan(base + "/whl/cu128", ca_path=pki["ca"])
    assert (plan["error"], plan["stack"]) == (None, "torch-2.9.1-cu128")
    rc, output = _pip(tmp_path, base + "/whl/cu128", "--cert", pki["ca"])
    assert rc == 0, output


def test_a_server_that_wants_a_client_certificate(mtls_mirror, pki, tmp_path):
    server, base = mtls_mirror
    index = _secret(base) + "/whl/cu128"
    plan = _plan(index, ca_path=pki["ca"], client_cert=pki["client"])
    assert (plan["error"], plan["stack"]) == (None, "torch-2.9.1-cu128")
    assert _pip(tmp_path, index, "--cert", pki["ca"], "--client-cert", pki["client"])[0] == 0
    error = _plan(index, ca_path=pki["ca"])["error"]
    assert ("could not be read: the server asks for a TLS client certificate (" in error
            or "could not be read: the server closed the TLS connection (eof), as one that asks for a client "
               "certificate it did not get does." in error), error
    assert "set pytorch_index_client_cert to a PEM file on the target that holds the client certificate and its " \
           "private key (pip gets it as --client-cert)" in error
    rc, output = _pip(tmp_path / "without", index, "--cert", pki["ca"])
    assert rc != 0 and ("CERTIFICATE_REQUIRED" in output.upper() or "EOF occurred" in output), output


def test_a_trusted_host_is_read_without_checking_its_certificate_as_pip_does(mirror, tmp_path):
    server, base = mirror
    port = base.rsplit(":", 1)[1]
    for trusted in ("127.0.0.1", "127.0.0.1:%s" % port):
        plan = _plan(_secret(base) + "/whl/cu128", trusted_hosts=[trusted])
        assert (plan["error"], plan["stack"]) == (None, "torch-2.9.1-cu128"), trusted
        assert _pip(tmp_path / trusted, _secret(base) + "/whl/cu128", "--trusted-host", trusted)[0] == 0
    other_port = _plan(_secret(base) + "/whl/cu128", trusted_hosts=["127.0.0.1:1"])["error"]
    assert "its TLS certificate is not trusted" in other_port
