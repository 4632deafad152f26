from __future__ import annotations

import random

import pytest
from packaging.version import Version

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.versions import parse, public, version_key
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions

# Oldest first, as PEP 440 (and pip) order them; each entry a distinct version.
ORDERED = [
    "0.9", "1.0.dev0", "1.0.dev1", "1.0a1.dev1", "1.0a1", "1.0a1.post1.dev1", "1.0a1.post1", "1.0a2",
    "1.0b1", "1.0rc1", "1.0", "1.0+abc", "1.0+abc.5", "1.0+5", "1.0+5.abc", "1.0+6", "1.0.post1.dev0",
    "1.0.post1", "1.0.post1+cu128", "1.0.1", "2.9.1", "2.9.1+cpu", "2.9.1+cu126", "2.9.1+cu128",
    "2.11.0.dev20250101", "2.11.0rc1", "2.11.0", "2.11.0+cu130", "2.11.0.post1", "2.11.1", "10.0",
    "1!0.1", "1!1.0", "2!2.11.0",
]
# Different spellings of one version.
EQUAL = [("1.0", "1.0.0"), ("1.0", "1.0.0.0"), ("2.11.0rc1", "2.11.0-RC1"), ("2.11.0rc1", "2.11.0c1"),
         ("1.0a0", "1.0alpha"), ("1.0b2", "1.0-beta.2"), ("1.0.post1", "1.0-1"), ("1.0.post0", "1.0.post"),
         ("1.0.post2", "1.0-r2"), ("1.0.post3", "1.0.rev3"), ("1.0.dev0", "1.0-dev"), ("1.0", "v1.0"),
         ("1.0+ab.cd", "1.0+AB-cd"), ("0!1.0", "1.0"), (" 2.9.1 ", "2.9.1")]
NOT_VERSIONS = ["", None, "nightly", "2.11.0abc", "2.11.x", "cu128", "1.0+", "1.0+a..b", "2.11.0 rc1"]


def test_orders_as_packaging_does():
    shuffled = list(ORDERED)
    random.Random(440).shuffle(shuffled)
    assert sorted(shuffled, key=version_key) == ORDERED
    assert sorted(shuffled, key=Version) == ORDERED


@pytest.mark.parametrize("index", range(len(ORDERED) - 1))
def test_each_neighbour_pair_compares_like_packaging(index):
    low, high = ORDERED[index], ORDERED[index + 1]
    assert version_key(low) < version_key(high) and Version(low) < Version(high)


@pytest.mark.parametrize("one,other", EQUAL)
def test_spellings_of_one_version_are_equal(one, other):
    assert version_key(one) == version_key(other)
    assert Version(one) == Version(other)


@pytest.mark.parametrize("text", ORDERED + [other for _one, other in EQUAL])
def test_fields_match_packaging(text):
    mine, theirs = parse(text), controller_versions.parse(text)
    assert {k: v for k, v in mine.items() if k != "key"} == {k: v for k, v in theirs.items() if k != "key"}
    assert theirs["key"] == Version(text)
    assert public(mine) == Version(text).public


@pytest.mark.parametrize("text", NOT_VERSIONS)
def test_not_a_version(text):
    assert parse(text) is None and controller_versions.parse(text) is None
    with pytest.raises(ValueError, match="not a version"):
        version_key(text)


@pytest.mark.parametrize("text,fields", [
    ("2!2.11.0", {"epoch": 2, "release": (2, 11, 0), "pre": None, "post": None, "dev": None, "local": None}),
    ("2.11.0rc1", {"epoch": 0, "release": (2, 11, 0), "pre": ("rc", 1), "post": None, "dev": None, "local": None}),
    ("2.12.0.dev20250101+cu130", {"epoch": 0, "release": (2, 12, 0), "pre": None, "post": None, "dev": 20250101,
                                  "local": "cu130"}),
    ("0.24.0.post1", {"epoch": 0, "release": (0, 24, 0), "pre": None, "post": 1, "dev": None, "local": None}),
    ("2.10.0a0+git1234abc", {"epoch": 0, "release": (2, 10, 0), "pre": ("a", 0), "post": None, "dev": None,
                             "local": "git1234abc"}),
    ("2.4.1+rocm6.1", {"epoch": 0, "release": (2, 4, 1), "pre": None, "post": None, "dev": None, "local": "rocm6.1"}),
])
def test_fields(text, fields):
    parsed = parse(text)
    assert {k: v for k, v in parsed.items() if k != "key"} == fields


def test_epoch_pre_dev_post_and_local_order():
    assert version_key("2!2.11.0") > version_key("2.99.0")
    assert version_key("2.11.0rc1") < version_key("2.11.0") < version_key("2.11.0.post1")
    assert version_key("2.11.0.dev0") < version_key("2.11.0a0") < version_key("2.11.0rc1")
    assert version_key("2.11.0") < version_key("2.11.0+cu128") < version_key("2.11.0.post1")


def test_public_pads_the_release():
    assert public(parse("2!2.11rc1.post2.dev3+cu128"), width=3) == "2!2.11.0rc1.post2.dev3"
    assert public(parse("2.6"), width=3) == "2.6.0" and public(parse("2.6")) == "2.6"
    assert public(parse("1.2.3.4"), width=3) == "1.2.3.4"
