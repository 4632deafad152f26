# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""wheel_index.access: the plan reaches the index with pip's settings, by pip's rules."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import access


def test_pip_extra_args_win_over_the_role_options_as_they_come_last_in_pips_command_line():
    found = access.settings("/etc/lab/ca.pem", "", ["mirror.lab"], "http://proxy.lab:3128",
                            ["--cert=/etc/other/ca.pem", "--client-cert", "/etc/lab/client.pem",
                             "--trusted-host", "files.lab:8443", "--retries", "0"])
    assert found == {"ca_path": "/etc/other/ca.pem", "client_cert": "/etc/lab/client.pem",
                     "proxy": "http://proxy.lab:3128", "trusted_hosts": ["mirror.lab", "files.lab:8443"],
                     "from": {"ca_path": "pytorch_pip_extra_args --cert",
                              "client_cert": "pytorch_pip_extra_args --client-cert", "proxy": "pytorch_proxy"}}


@pytest.mark.parametrize("url, trusted, checked", [
    ("https://mirror.lab/simple/torch/", ["mirror.lab"], False),
    ("https://mirror.lab:8443/simple/torch/", ["mirror.lab"], False),  # a host alone: every port
    ("https://mirror.lab:8443/simple/torch/", ["mirror.lab:8443"], False),
    ("https://mirror.lab/simple/torch/", ["mirror.lab:8443"], True),  # host:port: that port only
    ("https://mirror.lab/simple/torch/", ["mirror.lab:443"], False),
    ("https://files.lab/torch.whl", ["mirror.lab"], True),
    ("https://MIRROR.lab/simple/", ["mirror.LAB"], False),
    ("https://lab:pw@mirror.lab/simple/", ["mirror.lab"], False),
    ("https://mirror.lab/simple/", [], True),
])
def test_trusted_hosts_skip_the_certificate_check_as_pips_trusted_host_does(url, trusted, checked):
    assert access.verifies(url, trusted) is checked


def test_the_index_credentials_go_to_other_urls_of_its_host_only():
    index = "https://lab:pw@mirror.lab/simple"
    assert access.credentials_for("https://mirror.lab/packages/torch.whl", index) == (
        "https://lab:pw@mirror.lab/packages/torch.whl")
    assert access.credentials_for("https://files.lab/torch.whl", index) == "https://files.lab/torch.whl"
    assert access.credentials_for("https://mirror.lab:8443/x.whl", index) == "https://mirror.lab:8443/x.whl"
    assert access.credentials_for("https://ci:tok@mirror.lab/x.whl", index) == "https://ci:tok@mirror.lab/x.whl"


@pytest.mark.parametrize("reason, part, hint", [
    ("CERTIFICATE_VERIFY_FAILED", "its TLS certificate is not trusted (unable to get local issuer certificate)",
     "pytorch_index_ca_path"),
    ("TLSV13_ALERT_CERTIFICATE_REQUIRED", "the server asks for a TLS client certificate", "pytorch_index_client_cert"),
    ("TLSV1_ALERT_UNKNOWN_CA", "the server refused the TLS client certificate", "pytorch_index_client_cert"),
])
def test_tls_failures_name_the_option_to_set(reason, part, hint):
    error, said = access.tls_problem(reason, "unable to get local issuer certificate")
    assert error.startswith(part) and hint in said
    assert access.tls_problem("WRONG_VERSION_NUMBER") is None


def test_http_401_says_whether_credentials_were_sent():
    assert access.http_problem(401, "Unauthorized", True)[0] == (
        "HTTP 401 Unauthorized: the credentials given were refused")
    assert access.http_problem(401, "Unauthorized", False)[0] == (
        "HTTP 401 Unauthorized: it wants credentials and got none")
    assert "pytorch_proxy" in access.http_problem(407, "Proxy Authentication Required", False)[1]
    assert access.http_problem(404, "Not Found", True) is None
