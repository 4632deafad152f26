# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Bad input of the nvidia_driver and cuda_toolkit roles, through the filter calls their preflight
asserts on (docs/reliability.md). test_role_preflight.py shows one refusal of each kind through the
real preflight, before any change; these are the variants. A filter only computes: it changes nothing.
"""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.filter.cuda_toolkit import FilterModule as ToolkitFilters
from ansible_collections.blackwell.pytorch.plugins.filter.nvidia_driver import FilterModule as DriverFilters
from ansible_collections.blackwell.pytorch.plugins.filter.verify import FilterModule as VerifyFilters
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.inputs import minimum_branch

DRIVER = DriverFilters().filters()
TOOLKIT = ToolkitFilters().filters()
VERIFY = VerifyFilters().filters()
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
B200 = {"name": "NVIDIA B200", "compute_capability": "10.0", "sm": "sm_100"}
GB300 = {"name": "NVIDIA GB300", "compute_capability": "10.3", "sm": "sm_103"}
H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
KEY = "EB693B3035CD5710E231E123A4B469963BF863CC"
REPO = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"


def _driver_plan(gpus=(RTX5090,), **changes):
    args = dict(flavor="auto", branch="580", manage="auto", loaded={"loaded": False}, packages="", upgrade=False,
                kernel="6.1.0-28-amd64", os_family="Debian")
    args.update(changes)
    return DRIVER["nvidia_driver_plan"](list(gpus), **args)


def _repo(url=REPO, **changes):
    args = dict(key_url=REPO + "3bf863cc.pub", key_content="", fingerprints=[KEY], proxy="")
    args.update(changes)
    return DRIVER["nvidia_driver_repo_check"](url, **args)


@pytest.mark.parametrize("branch,parts", [
    ("580-open", ["not '580-open'", "the flavor is nvidia_driver_flavor"]),
    ("580.95.05", ["not '580.95.05'", "first number of a driver version: 580"]),
    ("", ["must be a driver branch of three digits such as 580, not ''"]),
    ("58", ["not '58'"]),
    ("0580", ["not '0580'"]),
], ids=['580-open', '580.95.05', 'empty', '58', '0580'])
def test_driver_branch_that_is_no_branch_is_refused(branch, parts):
    plan = _driver_plan(branch=branch)
    assert not plan["ok"] and plan["action"] is None and plan["apt_query"] == []
    for part in parts:
        assert part in plan["msg"]


@pytest.mark.parametrize("gpu,branch,need", [(B200, "565", 570), (GB300, "570", 575), (RTX5090, "560", 570)],
                         ids=["565-b200", "570-gb300", "560-rtx5090"])
def test_driver_branch_older_than_the_gpus_is_refused(gpu, branch, need):
    plan = _driver_plan([gpu], branch=branch)
    assert not plan["ok"] and plan["apt_query"] == []
    assert "nvidia_driver_branch %s cannot drive the GPUs here: %s needs branch %d or newer" % (
        branch, "%s (%s)" % (gpu["name"], gpu["sm"]), need) in plan["msg"]


@pytest.mark.parametrize("gpus,branch", [([RTX5090], "570"), ([GB300], "575"), ([H100], "535"), ([H100], "470"), ([], "470")],
                         ids=['570-sm120', '575-sm103', '535-h100', '470-h100', '470-no-gpu'])
def test_driver_branch_new_enough_for_the_gpus_passes(gpus, branch):
    plan = _driver_plan(gpus, branch=branch)
    assert plan["ok"], plan["msg"]


def test_minimum_branch_comes_from_the_toolkit_table():
    # the GA driver of the first toolkit that targets the arch; older archs: none known (any branch)
    assert [minimum_branch(cap) for cap in ("12.0", "10.0", "10.3", "11.0", "12.1", "9.0", "7.5")] == [
        570, 570, 575, 580, 575, None, None]


@pytest.mark.parametrize("changes,part", [
    ({"flavor": "opn"}, "nvidia_driver_flavor must be one of auto, open, proprietary, not 'opn'"),
    ({"manage": "maybe"}, "nvidia_driver_manage must be auto, true or false, not 'maybe'"),
], ids=['flavor-typo', 'manage-typo'])
def test_driver_flavor_and_manage_typos_are_refused(changes, part):
    plan = _driver_plan(**changes)
    assert not plan["ok"] and part in plan["msg"]


@pytest.mark.parametrize("url,changes,part", [
    ("developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/", {},
     "nvidia_driver_repo_url must be a URL of scheme http, https, file"),
    ('https://mirror.lab/cuda/" trusted=yes', {}, "nvidia_driver_repo_url contains characters no URL has"),
    ("https:///cuda/", {}, "nvidia_driver_repo_url has no valid host name"),
    (REPO, {"key_url": "ftp://mirror.lab/3bf863cc.pub"}, "nvidia_driver_repo_key_url must be a URL of scheme"),
    (REPO, {"fingerprints": ["Z" * 40]}, "is not a full fingerprint (40 or 64 hex digits"),
    (REPO, {"fingerprints": []}, "nvidia_driver_repo_key_fingerprints is empty: no key would be trusted"),
    (REPO, {"proxy": "gopher://proxy.lab:70"}, "nvidia_driver_repo_proxy must be a URL of scheme http, https, socks5h"),
    (REPO, {"proxy": "http://proxy lab:3128"}, "nvidia_driver_repo_proxy contains characters no URL has"),
], ids=['url-no-scheme', 'url-quote', 'url-no-host', 'key-url-ftp', 'fingerprint-not-hex',
        'fingerprints-empty', 'proxy-scheme', 'proxy-space'])
def test_repo_input_is_refused(url, changes, part):
    check = _repo(url, **changes)
    assert not check["ok"] and any(part in problem for problem in check["problems"]), check


@pytest.mark.parametrize("url,changes", [
    (REPO, {}),
    ("file:///srv/mirror/cuda/debian12/x86_64/", {"key_url": "", "key_content": "-----BEGIN PGP PUBLIC KEY BLOCK-----"}),
    (REPO, {"fingerprints": ["EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC"]}),
    (REPO, {"proxy": "http://lab:Sup3rS3cret@proxy.lab:3128"}),
    (REPO, {"proxy": "socks5h://[fd00::1]:1080"}),
], ids=['vendor', 'file-mirror-key-content', 'fingerprint-with-spaces', 'proxy-with-password',
        'socks5h-ipv6'])
def test_good_repo_input_passes(url, changes):
    assert _repo(url, **changes) == {"ok": True, "problems": []}


def test_a_password_never_reaches_a_message():
    check = _repo("https://lab:Sup3rS3cret@mirror.lab/cuda/", proxy="proxy.lab:Sup3rS3cret@x")
    assert not check["ok"] and "Sup3rS3cret" not in " ".join(check["problems"])


def _toolkit(versions, **changes):
    args = dict(default="", driver="580.95.05", driver_cuda="", gpus=[RTX5090], minor_compat=False, manage="auto",
                installed="", found="")
    args.update(changes)
    return TOOLKIT["cuda_toolkit_plan"](versions, **args)


@pytest.mark.parametrize("versions,changes,part", [
    (["12.7"], {}, "CUDA 12.7 is not in the toolkit table (known: 12.0, 12.1"),
    (["twelve"], {}, "cuda_toolkit_versions: not a CUDA version (X.Y): 'twelve'"),
    (["12.8"], {"manage": "sometimes"}, "cuda_toolkit_manage must be auto, true or false, not 'sometimes'"),
    (["12.8"], {"driver": "latest"}, "not a driver version: 'latest'"),
    (["12.8"], {"default": "twelve"}, "cuda_toolkit_default_version: not a CUDA version"),
    ("12.8,13.0", {}, "cuda_toolkit_versions must be a list of versions such as ['12.8'], not the text '12.8,13.0'"),
    (["13.0"], {"driver": "580.10.01"}, "set cuda_toolkit_minor_version_compat: true to accept that"),
    ([], {"driver": "", "gpus": [RTX5090]}, "cuda_toolkit_versions is empty and no driver version is known"),
], ids=['unknown-12.7', 'not-a-version', 'manage-typo', 'driver-not-a-version', 'default-not-a-version',
        'versions-as-text', 'minor-compat-needed', 'nothing-to-choose-from'])
def test_toolkit_input_is_refused(versions, changes, part):
    plan = _toolkit(versions, **changes)
    assert not plan["ok"] and plan["install"] == [] and any(part in problem for problem in plan["problems"]), plan


@pytest.mark.parametrize("document", ["garbage", {"schema": 1}, [], None], ids=["text", "no-verdict", "list", "none"])
def test_a_corrupted_host_result_is_listed_as_missing_in_the_fleet_report(document):
    report = VERIFY["fleet_report_data"]({"ws-01": document})
    assert report["failed"] == ["ws-01"] and report["hosts"][0]["status"] == "missing"
    assert report["hosts"][0]["message"] == "no verification result"
