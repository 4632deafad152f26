# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""common/value_inputs.py: a number where text is due is refused with how to quote it; a value of a URL option
that is no URL is refused naming that option (its password masked)."""
from __future__ import annotations

import pytest
import yaml

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.value_inputs import (
    text_problem, text_problems, url_problem, url_problems)

SCHEMES = ("http", "https", "file")


def test_a_version_yaml_read_as_a_number_is_refused_saying_to_quote_it():
    value = yaml.safe_load("pytorch_version: 2.10")["pytorch_version"]
    assert value == 2.1  # what YAML hands over: the 0 is gone
    assert text_problem("pytorch_version", value, "2.10") == (
        "pytorch_version is the number 2.1, not text: YAML reads an unquoted 2.10 as 2.1, so the digits meant may "
        "be lost. Quote it: pytorch_version: \"2.10\" in YAML, -e pytorch_version='\"2.10\"' on the command line "
        "(the digits you meant).")


@pytest.mark.parametrize("value", ["2.10", "", None, True, ["12.8"]])
def test_text_and_what_is_not_a_number_pass(value):
    assert text_problem("pytorch_version", value, "2.10") is None


def test_every_number_is_refused_in_order():
    found = text_problems([("cuda_toolkit_default_version", 12.1, "12.10"), ("pytorch_cuda_channel", "cu130", "cu130"),
                           ("container_toolkit_version", 1, "1.17.8-1")])
    assert [message.split(" ")[0:5] for message in found] == [
        ["cuda_toolkit_default_version", "is", "the", "number", "12.1,"],
        ["container_toolkit_version", "is", "the", "number", "1,"]]


@pytest.mark.parametrize("value,why", [
    ("not a url", " (spaces, quotes and braces are in no URL)"),
    ("pypi.org/simple", ""),
    ("ftp://mirror.lab/simple", ""),
    ("/srv/mirror/simple", ""),
])
def test_a_value_that_is_no_url_is_refused_naming_the_option(value, why):
    assert url_problem("pytorch_index_url", value, SCHEMES, "https://pypi.org/simple") == (
        "pytorch_index_url must be a URL of scheme http, https, file, got %r%s: "
        "e.g. -e pytorch_index_url=https://pypi.org/simple." % (value, why))


def test_a_url_without_a_host_is_refused_and_its_password_never_shown():
    assert url_problem("pytorch_proxy", "http://lab:Sup3rS3cret@", ("http", "https"), "http://proxy.lab:3128") == (
        "pytorch_proxy has no valid host name, got 'http://lab:****@': e.g. -e pytorch_proxy=http://proxy.lab:3128.")
    found = url_problems([("pytorch_index_url", "https://lab:Sup3rS3cret@mirror .lab/simple", SCHEMES, "x")])
    assert len(found) == 1 and "Sup3rS3cret" not in found[0] and "lab:****@" in found[0]


@pytest.mark.parametrize("value", [
    "", None, "https://pypi.org/simple", "http://lab:pw@mirror.lab:8080/simple/", "file:///srv/mirror/simple",
    "https://[fd00::1]:8443/whl", "http://mirror_1.lab/simple"])
def test_urls_pass(value):
    assert url_problem("pytorch_index_url", value, SCHEMES, "https://pypi.org/simple") is None


def test_a_list_option_is_checked_item_by_item():
    found = url_problems([("pytorch_extra_index_urls", ["https://ok.lab/simple", "mirror.lab"], SCHEMES, "x")])
    assert found == ["pytorch_extra_index_urls must be a URL of scheme http, https, file, got 'mirror.lab': "
                     "e.g. -e pytorch_extra_index_urls=x."]
