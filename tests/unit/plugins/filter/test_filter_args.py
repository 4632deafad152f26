from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import (
    as_bool, as_dict, as_dicts, as_list, call, text)


def test_text():
    assert text(None) == "" and text("580") == "580" and text(580) == "580"


def test_as_list():
    assert as_list(None, "gpus", "f") == [] and as_list(("a", "b"), "gpus", "f") == ["a", "b"]
    for bad, kind in (("sm_120", "str"), ({"a": 1}, "dict"), (5, "int"), (b"x", "bytes")):
        with pytest.raises(AnsibleFilterError, match="^f: gpus must be a list, got %s$" % kind):
            as_list(bad, "gpus", "f")


def test_as_dicts():
    assert as_dicts([{"sm": "sm_120"}], "gpus", "f") == [{"sm": "sm_120"}]
    with pytest.raises(AnsibleFilterError, match=r"^f: gpus\[1\] must be a mapping, got str$"):
        as_dicts([{}, "sm_120"], "gpus", "f")


def test_as_dict():
    assert as_dict(None, "loaded", "f") == {} and as_dict({"a": 1}, "loaded", "f") == {"a": 1}
    with pytest.raises(AnsibleFilterError, match="^f: loaded must be a mapping, got list$"):
        as_dict([], "loaded", "f")
    with pytest.raises(AnsibleFilterError, match="^f: gpu must be a mapping, got NoneType$"):
        as_dict(None, "gpu", "f", allow_none=False)


@pytest.mark.parametrize("value,expected", [
    (True, True), (False, False), ("false", False), ("yes", True), ("off", False), (" On ", True), (0, False),
    (1, True), ("1", True), ("n", False)])
def test_as_bool(value, expected):
    assert as_bool(value, "upgrade", "f") is expected


@pytest.mark.parametrize("value,message", [
    ("maybe", "f: upgrade must be true or false, got 'maybe'"), (2, "f: upgrade must be true or false, got 2"),
    ("", "f: upgrade must be true or false, got ''"), (None, "f: upgrade must be true or false, not empty"),
    ([1], "f: upgrade must be true or false, got [1]")])
def test_as_bool_refuses_with_the_filter_and_the_argument(value, message):
    with pytest.raises(AnsibleFilterError) as caught:
        as_bool(value, "upgrade", "f")
    assert str(caught.value) == message
    assert isinstance(caught.value.__cause__, ValueError)


def test_call_maps_value_error_only():
    assert call("f", int, "5") == 5
    with pytest.raises(AnsibleFilterError, match="^f: invalid literal") as caught:
        call("f", int, "five")
    assert isinstance(caught.value.__cause__, ValueError)
    with pytest.raises(KeyError):
        call("f", {}.__getitem__, "x")


def test_controller_parser_says_when_packaging_is_missing(monkeypatch):
    from ansible.errors import AnsibleError

    from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions

    assert versions.PACKAGING_IMPORT_ERROR is None and versions.parse("2.9.1")["release"] == (2, 9, 1)
    monkeypatch.setattr(versions, "PACKAGING_IMPORT_ERROR", ImportError("No module named 'packaging'"))
    with pytest.raises(AnsibleError, match="packaging is needed on the controller .*No module named 'packaging'"):
        versions.parse("2.9.1")
