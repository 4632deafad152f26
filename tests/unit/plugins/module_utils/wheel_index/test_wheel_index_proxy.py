# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""An index that cannot be read through a proxy: the refusal names the proxy that was used and where it was set
(docs/reliability.md). The proxies are loopback ports nothing listens on; the index's host is never resolved."""
from __future__ import annotations

import pytest

from index_plan import plan_from_index
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import proxy_used

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0"}
DEAD_PROXY = "http://127.0.0.1:9"  # the discard port: connection refused


@pytest.fixture(autouse=True)
def no_proxy_from_outside(monkeypatch):
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy",
                 "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)


def _plan(index, **kwargs):
    return plan_from_index(index, python_tag="cp311", platform="x86_64", gpus=[RTX5090], driver_cuda="13.0",
                           version="2.9", timeout=2, **kwargs)


def test_a_wrong_https_proxy_in_the_environment_is_named_in_the_refusal(monkeypatch):
    # was: "... could not be read: URLError: ... Name or service not known. ... or pytorch_proxy / https_proxy for a proxy"
    monkeypatch.setenv("https_proxy", "http://squid:Pr0xy@127.0.0.1:9")
    error = _plan("https://pypi.org/simple")["error"]
    assert error.startswith("package index https://pypi.org/simple/torch/ (of index https://pypi.org/simple) could not "
                            "be read through the proxy http://squid:****@127.0.0.1:9 (https_proxy in the target's "
                            "environment): "), error
    assert "Connection refused" in error and "Pr0xy" not in error, error
    assert error.endswith("Nothing was installed; the request went through the proxy https_proxy in the target's "
                          "environment names: check that proxy, set pytorch_proxy to one that works, or unset "
                          "https_proxy where the index is reachable without a proxy"), error


def test_a_wrong_pytorch_proxy_is_named_in_the_refusal():
    error = _plan("http://pypi.mirror.invalid/simple", proxy=DEAD_PROXY)["error"]
    assert error.startswith("package index http://pypi.mirror.invalid/simple/torch/ (of index "
                            "http://pypi.mirror.invalid/simple) could not be read through the proxy %s "
                            "(pytorch_proxy): " % DEAD_PROXY), error
    assert error.endswith("Nothing was installed; the request went through the proxy pytorch_proxy names: check that "
                          "proxy, set pytorch_proxy to one that works, or empty it where the index is reachable without "
                          "a proxy"), error


@pytest.mark.parametrize("variables, url, expected", [
    ({}, "https://pypi.org/simple", None),
    ({"https_proxy": DEAD_PROXY}, "https://pypi.org/simple", (DEAD_PROXY, "https_proxy in the target's environment")),
    ({"HTTPS_PROXY": DEAD_PROXY}, "https://pypi.org/simple", (DEAD_PROXY, "HTTPS_PROXY in the target's environment")),
    ({"https_proxy": DEAD_PROXY}, "http://mirror.lab/simple", None),  # an http index takes http_proxy
    ({"http_proxy": DEAD_PROXY}, "http://mirror.lab/simple", (DEAD_PROXY, "http_proxy in the target's environment")),
    ({"https_proxy": DEAD_PROXY, "no_proxy": "pypi.org"}, "https://pypi.org/simple", None),
    ({"https_proxy": DEAD_PROXY}, "file:///srv/wheels", None),
], ids=["none", "https_proxy", "HTTPS_PROXY", "other-scheme", "http_proxy", "no_proxy", "file"])
def test_the_proxy_a_request_goes_through_is_the_one_urllib_takes(monkeypatch, variables, url, expected):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    assert proxy_used(url) == expected
    assert proxy_used(url, "http://squid:3128") == (None if url.startswith("file:") else ("http://squid:3128", "pytorch_proxy"))


def test_without_a_proxy_the_refusal_is_as_before():
    error = _plan("http://127.0.0.1:9/simple")["error"]
    assert "through the proxy" not in error and error.endswith("or pytorch_proxy / https_proxy for a proxy"), error
