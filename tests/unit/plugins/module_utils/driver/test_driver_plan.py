from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import versions as target_versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.plan import driver_plan
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import (
    apt_choose_packages, apt_packages, load_state, parse_apt_policy, same_version)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.driver_version import driver_branch
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions

PARSERS = pytest.mark.parametrize("parse", [target_versions.parse, controller_versions.parse], ids=["target", "packaging"])
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
GTX1080 = {"name": "NVIDIA GeForce GTX 1080", "compute_capability": "6.1", "sm": "sm_61"}
LOADED_580_OPEN = {"loaded": True, "version": "580.159.04", "branch": "580", "kernel_module_flavor": "open"}
DPKG_580_OPEN = "nvidia-open\t580.95.05-1\tii \nnvidia-driver-pinning-580\t580.95.05-1\thi \n" \
                "nvidia-dkms-550\t550.54.14-0ubuntu1\trc \n"
DPKG_550_PROP = "nvidia-driver-550\t550.54.14-0ubuntu1\thi \nlibnvidia-compute-550\t550.54.14-0ubuntu1\thi \n"


@PARSERS
def test_manage_a_fresh_host(parse):
    plan = driver_plan([RTX5090], "auto", "580", "auto", {"loaded": False}, "", False, "6.8.0-50-generic", "Debian",
                       parse)
    assert plan == {
        "ok": True, "flavor": "open", "open_required": True, "action": "manage",
        "flavor_msg": "flavor open (auto: required by NVIDIA GeForce RTX 5090 (sm_120))",
        "action_msg": "packages of branch 580 open managed",
        "msg": "flavor open (auto: required by NVIDIA GeForce RTX 5090 (sm_120)); packages of branch 580 open managed",
        "installed": {"version": None, "branch": None, "flavor": None, "names": [], "held": [], "unheld": []},
        "apt_query": ["nvidia-driver-pinning-580", "nvidia-open", "nvidia-driver-580-open", "cuda-drivers-580"],
        "headers_meta": "linux-headers-generic", "in_place": False, "headers_running": "", "refused": []}


@PARSERS
def test_installed_packages_come_from_the_text(parse):
    plan = driver_plan([RTX5090], packages_text=DPKG_580_OPEN, parse=parse)
    assert plan["ok"] and plan["installed"]["version"] == "580.95.05" and plan["installed"]["branch"] == "580"
    assert plan["installed"]["names"] == ["nvidia-driver-pinning-580", "nvidia-open"]
    assert plan["action_msg"] == "packages of branch 580 open managed (installed: 580.95.05)"


def test_flavor_refusal_keeps_what_is_installed():
    plan = driver_plan([RTX5090], flavor="proprietary", packages_text=DPKG_550_PROP, kernel="6.1.0-28-amd64")
    assert not plan["ok"] and plan["action"] is None and plan["apt_query"] == []
    assert plan["msg"] == plan["flavor_msg"] and plan["msg"].startswith("nvidia_driver_flavor proprietary refused")
    assert plan["installed"]["branch"] == "550" and plan["headers_meta"] == "linux-headers-amd64"


def test_action_refusal_has_only_its_message():
    plan = driver_plan([RTX5090], packages_text=DPKG_550_PROP)
    assert not plan["ok"] and plan["action"] == "manage" and plan["msg"] == plan["action_msg"]
    assert plan["msg"].startswith("installed driver packages are branch 550 proprietary")
    assert driver_plan([RTX5090], packages_text=DPKG_550_PROP, upgrade=True)["ok"]


def test_adopt_a_loaded_driver_no_package_owns():
    plan = driver_plan([RTX5090], loaded=LOADED_580_OPEN)
    assert plan["ok"] and plan["action"] == "adopt"
    assert driver_plan([RTX5090], loaded=LOADED_580_OPEN, manage="true")["action"] == "manage"
    assert driver_plan([RTX5090], loaded=LOADED_580_OPEN, branch="590")["ok"] is False


def test_branch_and_os_family_reach_the_plan():
    plan = driver_plan([GTX1080], branch="570", os_family="RedHat", kernel="5.14.0-427.13.1.el9_4.x86_64")
    assert plan["flavor"] == "proprietary" and plan["apt_query"][0] == "nvidia-driver-pinning-570"
    assert plan["headers_meta"] == "kernel-devel"


def test_bad_capability_raises_value_error():
    with pytest.raises(ValueError, match="not a compute capability"):
        driver_plan([{"compute_capability": "twelve"}])


@PARSERS
@pytest.mark.parametrize("version,branch", [("580.159.04", "580"), ("570.26", "570"), ("580", "580"),
                                            (None, None), ("", None), ("unknown", None)])
def test_driver_branch(parse, version, branch):
    assert driver_branch(version, parse) == branch


@PARSERS
def test_same_version(parse):
    assert same_version("580.95.05", "580.95.5", parse)
    assert same_version("580.95.05-1", "1:580.95.05", parse)
    assert not same_version("580.82.07", "580.95.05", parse)
    assert same_version("weird", "weird", parse) and not same_version("weird", "580", parse)


@PARSERS
def test_load_state_compares_versions_not_spellings(parse):
    loaded = dict(LOADED_580_OPEN, version="580.95.5")
    assert load_state(1, False, loaded, "580.95.05", parse)["reboot_required"] is False
    assert load_state(1, False, loaded, "580.95.06", parse)["reboot_required"] is True


def test_apt_packages_reads_the_policy_text():
    text = "nvidia-driver-pinning-580:\n  Installed: (none)\n  Candidate: 580.95.05-1\n" \
           "nvidia-open:\n  Installed: (none)\n  Candidate: 580.95.05-1\n"
    assert apt_packages(text, "580", "open") == apt_choose_packages(parse_apt_policy(text), "580", "open")
    assert apt_packages(text, "580", "open")["method"] == "pinning"
    assert apt_packages(text, "570", "open")["ok"] is False


HEADERS_GONE = {"release": "6.1.0-99-amd64", "headers_installed": False,
                "headers_package": "linux-headers-6.1.0-99-amd64", "headers_installable": False}
HEADERS_OFFERED = dict(HEADERS_GONE, headers_installable=True)
ALICE = {"uid": 1000, "name": "alice"}


def test_fresh_host_with_missing_uninstallable_headers_refused_with_what_to_do():
    plan = driver_plan([RTX5090], kernel="6.1.0-99-amd64", headers=HEADERS_GONE)
    assert plan["ok"] is False and plan["action"] == "manage" and plan["headers_running"] == ""
    assert plan["msg"].startswith("the driver stage builds the NVIDIA kernel module with DKMS for the running "
                                  "kernel 6.1.0-99-amd64, whose headers are not installed and not in the package "
                                  "lists (no linux-headers-6.1.0-99-amd64). Install that kernel's headers")
    assert plan["msg"].endswith("or install the driver yourself and leave the nvidia_driver role out on this host; in "
                                'site.yml: make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify"')
    assert [entry["cause"] for entry in plan["refused"]] == ["headers"] and plan["refused"][0]["msg"] == plan["msg"]


def test_headers_the_lists_offer_are_installed_not_refused():
    plan = driver_plan([RTX5090], kernel="6.1.0-99-amd64", headers=HEADERS_OFFERED)
    assert plan["ok"] and plan["headers_running"] == "linux-headers-6.1.0-99-amd64"


def test_driver_in_place_or_loaded_is_not_refused_for_headers():
    in_place = driver_plan([RTX5090], packages_text=DPKG_580_OPEN, loaded=LOADED_580_OPEN, headers=HEADERS_GONE)
    assert in_place["ok"] and in_place["in_place"] and in_place["headers_running"] == ""
    adopted = driver_plan([RTX5090], loaded=LOADED_580_OPEN, headers=HEADERS_GONE)
    assert adopted["ok"] and adopted["action"] == "adopt"
    # an upgrade installs (and builds) again: refused
    moved = driver_plan([RTX5090], packages_text=DPKG_580_OPEN, upgrade=True, headers=HEADERS_GONE)
    assert not moved["ok"] and not moved["in_place"] and "(no linux-headers-6.1.0-99-amd64)" in moved["msg"]


def test_driver_role_without_root_refused_naming_become():
    plan = driver_plan([RTX5090], user=ALICE, headers=HEADERS_GONE)
    assert plan["ok"] is False
    assert plan["msg"].startswith("the nvidia_driver role changes the host and needs root; this play runs as uid "
                                  "1000 (alice). Set become: true on the play (or -b / --become")
    assert "; the driver stage builds the NVIDIA kernel module" in plan["msg"]
    # adopting a loaded driver changes nothing: any user may
    assert driver_plan([RTX5090], loaded=LOADED_580_OPEN, user=ALICE)["ok"]
    assert driver_plan([RTX5090], user={"uid": 0, "name": "root"})["ok"]


def test_a_refused_flavor_is_said_as_before_whoever_runs_the_play():
    plan = driver_plan([RTX5090, GTX1080], user=ALICE, headers=HEADERS_GONE)
    assert plan["ok"] is False and plan["action"] is None
    assert plan["msg"] == plan["flavor_msg"] and "no driver flavor drives both" in plan["msg"]


def test_a_checked_branch_is_not_checked_again():
    # the filter checks the branch; nvidia_driver_state refused it before reading the host, so its plan does not
    assert driver_plan([RTX5090], branch="550")["msg"].startswith("nvidia_driver_branch 550 cannot drive the GPUs")
    plan = driver_plan([RTX5090], branch="550", branch_checked=True)
    assert plan["ok"] and plan["action_msg"] == "packages of branch 550 open managed"
