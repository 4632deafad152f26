from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions as target_versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
    companion_match, companion_versions, cuda_channels, parse_version)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions

PARSERS = pytest.mark.parametrize("parse", [target_versions.parse, controller_versions.parse], ids=["target", "packaging"])


@pytest.mark.parametrize("torch,vision,audio", [
    ("2.6.0", "0.21.0", "2.6.0"), ("2.7.0+cu128", "0.22.0", "2.7.0"), ("2.7.1+cu126", "0.22.1", "2.7.1"),
    ("2.8.0", "0.23.0", "2.8.0"), ("2.9.1+cu130", "0.24.1", "2.9.1"), ("2.10.0", "0.25.0", "2.10.0"),
    ("2.11.0+cu130", "0.26.0", "2.11.0"),
    # torchaudio ends with 2.11; no torchvision of the 2.15 line is published (docs/domain.md section 4)
    ("2.12.0+cu132", "0.27.0", ""), ("2.12.1", "0.27.1", ""), ("2.13.0+cu132", "0.28.0", ""),
    ("2.14.0", "0.29.0", ""), ("2.14.1+cu130", "0.29.1", ""), ("2.15.0+cu132", "", ""),
])
def test_companion_versions(torch, vision, audio):
    assert companion_versions(torch) == {"torchvision": vision, "torchaudio": audio}


@pytest.mark.parametrize("torch", ["2.5.1+cu121", "2.16.0+cpu", "2.16.0.dev20261101+cu134", "nightly", None])
def test_unknown_lines(torch):
    assert companion_versions(torch) is None
    assert cuda_channels(torch) == ()


def test_cuda_channels():
    assert cuda_channels("2.11.0+cu130") == ("cu126", "cu128", "cu129", "cu130")
    assert cuda_channels("2.7.1") == ("cu118", "cu126", "cu128")
    assert cuda_channels("2.12.1") == ("cu126", "cu130", "cu132")
    assert cuda_channels("2.13.0") == cuda_channels("2.14.1+cu132") == ("cu126", "cu130", "cu132")
    # 2.15 drops cu126; cu134 is a prerelease channel of no release line
    assert cuda_channels("2.15.0+cu132") == ("cu130", "cu132")


@pytest.mark.parametrize("text,release,public,channel", [
    ("2.11.0+cu130", (2, 11, 0), "2.11.0", "cu130"), ("0.26.0", (0, 26, 0), "0.26.0", None),
    ("2!2.11.0", (2, 11, 0), "2!2.11.0", None), ("2.11.0rc1", (2, 11, 0), "2.11.0rc1", None),
    ("2.11.0.dev20250101", (2, 11, 0), "2.11.0.dev20250101", None),
    ("2.11.0.post1", (2, 11, 0), "2.11.0.post1", None), ("2.9.1+cu128", (2, 9, 1), "2.9.1", "cu128"),
    ("2.10.0a0+git1234abc", (2, 10, 0), "2.10.0a0", None),
    ("2.12.0a0+git1234abc", (2, 12, 0), "2.12.0a0", None), ("2.13.0+cpu", (2, 13, 0), "2.13.0", "cpu"),
    ("2.4.1+rocm6.1", (2, 4, 1), "2.4.1", "rocm6.1"), ("2.6", (2, 6, 0), "2.6.0", None),
    ("v2.9.1+CU128", (2, 9, 1), "2.9.1", "cu128"), ("2.11.0-rc1", (2, 11, 0), "2.11.0rc1", None),
])
@PARSERS
def test_parse_version(parse, text, release, public, channel):
    assert parse_version(text, parse) == {"release": release, "public": public, "channel": channel}


@PARSERS
@pytest.mark.parametrize("text", ["", None, "nightly", "2", "2.11.0abc", "2.11.x"])
def test_parse_version_rejects(parse, text):
    assert parse_version(text, parse) is None


def test_parse_version_rejects_non_versions():
    assert parse_version("torch") is None and parse_version(None) is None


def test_match_same_line_and_channel():
    assert companion_match("2.11.0+cu130", "torchvision", "0.26.0+cu130") == {
        "expected": "0.26.0", "match": True, "reason": "torchvision 0.26.0+cu130 matches torch 2.11.0+cu130"}


def test_match_pypi_wheel_without_label():
    assert companion_match("2.11.0+cu130", "torchaudio", "2.11.0")["match"] is True


def test_downgraded_companion_is_refused():
    # pip install torchvision==0.23.0 into a 2.9.1 venv (docs/domain.md section 4): torch moved, torchaudio did not.
    assert companion_match("2.8.0", "torchaudio", "2.9.1") == {
        "expected": "2.8.0", "match": False,
        "reason": "torchaudio 2.9.1 does not belong to torch 2.8.0 (expected 2.8.0)"}


def test_patch_level_must_match():
    assert companion_match("2.7.1+cu128", "torchvision", "0.22.0+cu128")["match"] is False


def test_other_channel_is_refused():
    assert companion_match("2.11.0+cu130", "torchvision", "0.26.0+cu128") == {
        "expected": "0.26.0", "match": False,
        "reason": "torchvision 0.26.0+cu128 is from channel cu128, torch 2.11.0+cu130 from cu130"}


def test_not_installed_and_unknown_line_are_not_judged():
    assert companion_match("2.11.0", "torchvision", None) == {
        "expected": "0.26.0", "match": None, "reason": "torchvision is not installed"}
    assert companion_match("2.16.0+cu134", "torchaudio", "2.16.0") == {
        "expected": None, "match": None,
        "reason": "no torchaudio version known for torch 2.16.0+cu134: check the package index"}


def test_a_companion_none_of_whose_line_is_published_is_not_judged():
    # torchaudio 2.11.x next to torch 2.15: none of torch's line exists to compare it with
    assert companion_match("2.15.0+cu132", "torchaudio", "2.11.1") == {
        "expected": "", "match": None,
        "reason": "no torchaudio release of torch 2.15's line is published: torchaudio 2.11.1 not judged"}
    assert companion_match("2.15.0", "torchvision", None) == {
        "expected": "", "match": None, "reason": "torchvision is not installed"}
    assert companion_match("2.14.1+cu132", "torchvision", "0.29.1+cu132")["match"] is True


def test_known_versions_and_channels():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.matrix import (
        channel_cuda, channel_sass, known_versions)
    assert known_versions()[:3] == ["2.6.0", "2.7.0", "2.7.1"] and known_versions()[-7:] == [
        "2.11.0", "2.12.0", "2.12.1", "2.13.0", "2.14.0", "2.14.1", "2.15.0"]
    assert channel_cuda("cu128") == (12, 8) and channel_cuda("cu130") == (13, 0) and channel_cuda("cpu") is None
    assert "sm_120" in channel_sass("cu128") and "sm_120" not in channel_sass("cu126")
    assert channel_sass("rocm6.1") == ()
    blackwell_era = ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120")
    assert channel_cuda("cu134") == (13, 4) and channel_sass("cu132") == channel_sass("cu134") == blackwell_era
