from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.nvidia_driver import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import plan, policy
from shells import assert_each_argument_matters, changed

F = FilterModule().filters()
RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
GTX1080 = {"name": "NVIDIA GeForce GTX 1080", "compute_capability": "6.1", "sm": "sm_61"}
LOADED = {"loaded": True, "version": "580.159.04", "branch": "580", "kernel_module_flavor": "open"}
PACKAGES = "nvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\thi \n"
POLICY = ("nvidia-driver-pinning-580:\n  Installed: (none)\n  Candidate: 580.95.05-1\n"
          "nvidia-open:\n  Installed: (none)\n  Candidate: 580.95.05-1\n"
          "cuda-drivers-570:\n  Installed: (none)\n  Candidate: 570.195.03-1\n"
          "cuda-drivers:\n  Installed: (none)\n  Candidate: 580.95.05-1\n")

PLAN_BASE = {"gpus": [RTX5090], "flavor": "auto", "branch": "580", "manage": "auto", "loaded": {"loaded": False},
             "packages": "", "upgrade": False, "kernel": "6.8.0-50-generic", "os_family": "Debian"}


def test_driver_plan_passes_every_argument():
    changes = {"gpus": [GTX1080], "flavor": "proprietary", "branch": "570", "manage": "false", "loaded": LOADED,
               "packages": PACKAGES, "kernel": "6.1.0-28-amd64", "os_family": "RedHat"}
    result = assert_each_argument_matters(F["nvidia_driver_plan"], PLAN_BASE, changes)
    assert result == plan.driver_plan([RTX5090], "auto", "580", "auto", {"loaded": False}, "", False,
                                      "6.8.0-50-generic", "Debian")
    assert result["ok"] and result["action"] == "manage" and result["headers_meta"] == "linux-headers-generic"
    # upgrade only matters where installed packages are of another branch
    other = changed(PLAN_BASE, branch="590", packages=PACKAGES)
    assert not F["nvidia_driver_plan"](**other)["ok"] and F["nvidia_driver_plan"](**changed(other, upgrade=True))["ok"]


@pytest.mark.parametrize("value,expected", [("true", True), ("no", False), (1, True)])
def test_driver_plan_reads_booleans_as_ansible_does(value, expected):
    other = changed(PLAN_BASE, branch="590", packages=PACKAGES, upgrade=value)
    assert F["nvidia_driver_plan"](**other)["ok"] is expected


def test_driver_plan_defaults_and_none():
    result = F["nvidia_driver_plan"](None, loaded=None, packages=None)
    assert result["ok"] and result["flavor"] == "open" and result["installed"]["names"] == []


@pytest.mark.parametrize("kwargs,message", [
    ({"gpus": "sm_120"}, "nvidia_driver_plan: gpus must be a list, got str"),
    ({"gpus": ["sm_120"]}, r"nvidia_driver_plan: gpus\[0\] must be a mapping, got str"),
    ({"gpus": [RTX5090], "loaded": "yes"}, "nvidia_driver_plan: loaded must be a mapping, got str"),
    ({"gpus": [RTX5090], "upgrade": "sometimes"},
     "nvidia_driver_plan: upgrade must be true or false, got 'sometimes'$"),
    ({"gpus": [{"compute_capability": "twelve"}]}, "nvidia_driver_plan: not a compute capability"),
])
def test_driver_plan_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["nvidia_driver_plan"](**kwargs)


def test_apt_packages_passes_every_argument():
    base = {"policy_text": POLICY, "branch": "580", "flavor": "open"}
    result = assert_each_argument_matters(F["nvidia_driver_apt_packages"], base,
                                          {"policy_text": "", "branch": "570", "flavor": "proprietary"})
    assert result == policy.apt_packages(POLICY, "580", "open") and result["then"] == ["nvidia-open"]
    assert F["nvidia_driver_apt_packages"](None)["ok"] is False


def test_load_state_passes_every_argument():
    base = {"gpus": [RTX5090], "nouveau_loaded": False, "loaded": LOADED, "installed_version": "580.159.04"}
    result = assert_each_argument_matters(F["nvidia_driver_load_state"], base, {
        "gpus": [], "nouveau_loaded": True, "loaded": {"loaded": False}, "installed_version": "580.95.05"})
    assert result == policy.load_state(1, False, LOADED, "580.159.04")
    assert result == {"reboot_required": False, "try_modprobe": False, "reason": "driver 580.159.04 loaded"}


def test_load_state_compares_versions_with_packaging():
    # "580.159.4" is the same version as "580.159.04": no reboot for a spelling
    assert F["nvidia_driver_load_state"]([RTX5090], loaded=LOADED, installed_version="580.159.4")[
        "reboot_required"] is False


@pytest.mark.parametrize("kwargs,message", [
    ({"gpus": {"0": RTX5090}}, "nvidia_driver_load_state: gpus must be a list, got dict"),
    ({"gpus": [], "nouveau_loaded": None},
     "nvidia_driver_load_state: nouveau_loaded must be true or false, not empty$"),
    ({"gpus": [], "loaded": ["x"]}, "nvidia_driver_load_state: loaded must be a mapping, got list"),
])
def test_load_state_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match="^" + message):
        F["nvidia_driver_load_state"](**kwargs)


def test_repo_check_passes_every_argument():
    key = "EB693B3035CD5710E231E123A4B469963BF863CC"
    base = {"url": "https://mirror.lab/cuda/debian12/x86_64/", "key_url": "https://mirror.lab/3bf863cc.pub",
            "key_content": "", "fingerprints": [key], "proxy": ""}
    changes = {"url": "mirror.lab/cuda/", "key_url": "ftp://mirror.lab/k.pub", "key_content": "armored key",
               "fingerprints": ["3BF863CC"], "proxy": "proxy.lab:3128"}
    # key_content matters where the key URL is bad: the content replaces the URL
    reference = assert_each_argument_matters(F["nvidia_driver_repo_check"], changed(base, key_url="ftp://x/k.pub"), changes)
    assert reference == {"ok": False, "problems": [
        "nvidia_driver_repo_key_url must be a URL of scheme http, https, file (for example "
        "https://mirror.lab/cuda/), not 'ftp://x/k.pub'"]}
    assert F["nvidia_driver_repo_check"](**base) == {"ok": True, "problems": []}


@pytest.mark.parametrize("kwargs,message", [
    ({"fingerprints": {"key": "x"}}, "nvidia_driver_repo_check: fingerprints must be a list, got dict"),
])
def test_repo_check_errors(kwargs, message):
    with pytest.raises(AnsibleFilterError, match=message):
        F["nvidia_driver_repo_check"]("https://mirror.lab/cuda/", **kwargs)


DEBIAN12 = {"distribution": "Debian", "family": "Debian", "version": "12"}
