# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import base64

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import url_secrets as us


def test_the_password_in_every_form_pip_or_a_header_could_show():
    found = us.url_secrets("https://lab:p%40ss@mirror.lab/simple")
    assert found == sorted(["p%40ss", "p@ss", base64.b64encode(b"lab:p@ss").decode()])


def test_pip_arguments_lists_and_a_token():
    args = ["--index-url", "https://ci:Tok3n@idx.lab/simple", "--extra-index-url=https://tok@other.lab/x",
            "--proxy", "http://u:pw@proxy.lab:3128", "torch==2.9.1+cu128"]
    found = us.url_secrets([args, "", None])
    assert {"Tok3n", "tok", "pw"} <= set(found)
    assert "ci" not in found and "u" not in found and "torch==2.9.1+cu128" not in found


@pytest.mark.parametrize("text", ["https://download.pytorch.org/whl/cu128", "/srv/wheels", "", "mail@host.lab",
                                  "file:///srv/pypi_index/whl"])
def test_no_secret_without_userinfo(text):
    assert us.url_secrets(text) == []


def test_split_credentials():
    assert us.split_credentials("https://lab:p%40ss@mirror.lab:8443/simple/torch/") == (
        "https://mirror.lab:8443/simple/torch/", "lab", "p@ss")
    assert us.split_credentials("https://tok@mirror.lab/simple") == ("https://mirror.lab/simple", "tok", "")
    assert us.split_credentials("https://mirror.lab/simple") == ("https://mirror.lab/simple", None, None)


def test_redact_keeps_the_user_and_hides_the_secret():
    text = "package index https://lab:S3cret@mirror.lab/simple/torch/ (of index https://tok@mirror.lab/simple)"
    assert us.redact(text) == ("package index https://lab:****@mirror.lab/simple/torch/ "
                               "(of index https://****@mirror.lab/simple)")
    assert us.redact("https://pypi.org/simple") == "https://pypi.org/simple"


def test_basic_auth():
    assert us.basic_auth("lab", "p@ss") == "Basic " + base64.b64encode(b"lab:p@ss").decode()
