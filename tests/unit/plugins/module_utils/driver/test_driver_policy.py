from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import (
    apt_choose_packages, apt_query_names, choose_flavor, driver_action, headers_meta_package, installed_driver,
    load_state, parse_apt_policy, parse_package_lines, plain_version)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue

RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
PRO6000 = {"name": "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "compute_capability": "12.0", "sm": "sm_120"}
B200 = {"name": "NVIDIA B200", "compute_capability": "10.0", "sm": "sm_100"}
GH200 = {"name": "NVIDIA GH200 480GB", "compute_capability": "9.0", "sm": "sm_90"}
H100 = {"name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
RTX2080 = {"name": "NVIDIA GeForce RTX 2080", "compute_capability": "7.5", "sm": "sm_75"}
V100 = {"name": "Tesla V100-SXM2-32GB", "compute_capability": "7.0", "sm": "sm_70"}
GTX1080 = {"name": "NVIDIA GeForce GTX 1080", "compute_capability": "6.1", "sm": "sm_61"}

# As the H100 test machine shows it: driver from a read-only mount, no package.
LOADED_580_OPEN = {"loaded": True, "version": "580.159.04", "branch": "580", "kernel_module_flavor": "open"}
LOADED_550_PROP = {"loaded": True, "version": "550.54.14", "branch": "550", "kernel_module_flavor": "proprietary"}
NOT_LOADED = {"loaded": False, "version": None, "branch": None, "kernel_module_flavor": "unknown"}

# dpkg-query -W -f='${Package}\t${Version}\t${db:Status-Abbrev}\n' after the role installed 580 open
DPKG_580_OPEN = "\n".join("%s\t%s\t%s" % row for row in (
    ("libnvidia-compute-580", "580.95.05-1", "hi "),
    ("nvidia-compute-utils-580", "580.95.05-1", "hi "),
    ("nvidia-dkms-580-open", "580.95.05-1", "hi "),
    ("nvidia-driver-580-open", "580.95.05-1", "hi "),
    ("nvidia-driver-pinning-580", "580.95.05-1", "hi "),
    ("nvidia-open", "580.95.05-1", "ii "),
    ("nvidia-utils-580", "580.95.05-1", "hi "),
    ("nvidia-container-toolkit", "1.17.8-1", "ii "),
    ("nvidia-dkms-550", "550.54.14-0ubuntu1", "rc "),
)) + "\n"

POLICY_FULL = """nvidia-driver-pinning-580:
  Installed: (none)
  Candidate: 580.95.05-1
  Version table:
     580.95.05-1 500
        500 http://127.0.0.1:8580/nvidia/debian12/x86_64  Packages
nvidia-open:
  Installed: (none)
  Candidate: 590.44.01-1
  Version table:
     590.44.01-1 500
        500 http://127.0.0.1:8580/nvidia/debian12/x86_64  Packages
     580.95.05-1 500
        500 http://127.0.0.1:8580/nvidia/debian12/x86_64  Packages
nvidia-driver-580-open:
  Installed: (none)
  Candidate: 580.95.05-1
  Version table:
     580.95.05-1 500
        500 http://127.0.0.1:8580/nvidia/debian12/x86_64  Packages
cuda-drivers-580:
  Installed: (none)
  Candidate: 580.95.05-1
  Version table:
     580.95.05-1 500
        500 http://127.0.0.1:8580/nvidia/debian12/x86_64  Packages
"""


def _names(*gpus):
    return ", ".join("%s (%s)" % (g["name"], g["sm"]) for g in gpus)


class TestFlavor(object):
    @pytest.mark.parametrize("gpus", [[RTX5090], [PRO6000, H100], [B200], [GH200]])
    def test_proprietary_refused_where_open_is_required(self, gpus):
        result = choose_flavor("proprietary", gpus)
        need = [g for g in gpus if g is not H100]
        assert not result["ok"] and result["open_required"]
        assert result["msg"] == (
            "nvidia_driver_flavor proprietary refused: %s is supported only by NVIDIA's open kernel modules (with "
            "the proprietary module the kernel logs 'requires use of the NVIDIA open kernel modules' and "
            "RmInitAdapter fails). Set nvidia_driver_flavor: open (or auto)" % _names(*need))

    @pytest.mark.parametrize("gpus,why", [
        ([RTX5090], "required by NVIDIA GeForce RTX 5090 (sm_120)"),
        ([H100], "recommended for Turing and newer"),
        ([RTX2080], "recommended for Turing and newer"),
        ([], "no GPU known; open is NVIDIA's recommendation for Turing and newer"),
    ])
    def test_auto_picks_open(self, gpus, why):
        assert choose_flavor("auto", gpus) == {"ok": True, "flavor": "open", "open_required": bool(gpus and gpus[0] is RTX5090),
                                               "msg": "flavor open (auto: %s)" % why}

    def test_auto_picks_proprietary_for_pre_turing(self):
        result = choose_flavor("auto", [GTX1080])
        assert result["ok"] and result["flavor"] == "proprietary"
        assert result["msg"] == ("flavor proprietary (auto: NVIDIA GeForce GTX 1080 (sm_61) predate(s) Turing, which "
                                 "the open module does not support)")

    def test_open_refused_on_pre_turing(self):
        result = choose_flavor("open", [V100])
        assert not result["ok"] and "support Turing (compute capability 7.5) and newer, not Tesla V100" in result["msg"]

    def test_mixed_blackwell_and_pascal_refused(self):
        result = choose_flavor("auto", [RTX5090, GTX1080])
        assert not result["ok"] and result["msg"].endswith("no driver flavor drives both; put them in different hosts")

    def test_proprietary_allowed_on_hopper(self):
        assert choose_flavor("proprietary", [H100])["flavor"] == "proprietary"

    def test_the_catalogue_decides_which_gpus_need_or_lack_the_open_module(self, monkeypatch):
        # one row changed in the GPU catalogue changes the decision and the message's cut-off
        monkeypatch.setitem(catalogue.ARCHITECTURES, (7, 5), dict(catalogue.ARCHITECTURES[(7, 5)],
                                                                  open_module=catalogue.OPEN_UNSUPPORTED))
        monkeypatch.setitem(catalogue.ARCHITECTURES, (9, 0), dict(catalogue.ARCHITECTURES[(9, 0)],
                                                                  open_module=catalogue.OPEN_REQUIRED))
        assert choose_flavor("open", [RTX2080])["msg"].startswith(
            "nvidia_driver_flavor open refused: the open kernel modules support Ampere (compute capability 8.0) "
            "and newer, not NVIDIA GeForce RTX 2080 (sm_75).")
        assert choose_flavor("auto", [H100]) == {"ok": True, "flavor": "open", "open_required": True,
                                                 "msg": "flavor open (auto: required by NVIDIA H100 80GB HBM3 (sm_90))"}

    def test_bad_flavor(self):
        assert choose_flavor("nouveau")["msg"] == "nvidia_driver_flavor must be one of auto, open, proprietary, not 'nouveau'"


def test_parse_package_lines():
    packages = parse_package_lines(DPKG_580_OPEN)
    assert [p["name"] for p in packages][:2] == ["libnvidia-compute-580", "nvidia-compute-utils-580"]
    assert "nvidia-dkms-550" not in [p["name"] for p in packages]  # removed, config files left
    assert {"name": "nvidia-open", "version": "580.95.05-1", "held": False} in packages


def test_parse_rpm_lines():
    packages = parse_package_lines("nvidia-open\t580.95.05-1.el9\tii\nkmod-nvidia-open-dkms\t580.95.05-1.el9\tii\n")
    assert installed_driver(packages)["version"] == "580.95.05"


def test_installed_driver():
    info = installed_driver(parse_package_lines(DPKG_580_OPEN))
    assert info["version"] == "580.95.05" and info["branch"] == "580" and info["flavor"] == "open"
    assert "nvidia-container-toolkit" not in info["names"]
    assert info["unheld"] == ["nvidia-open"] and len(info["held"]) == 6
    assert installed_driver([]) == {"version": None, "branch": None, "flavor": None, "names": [], "held": [], "unheld": []}


def test_unrelated_packages_are_not_a_driver():
    # the GPU test machine: driver 580.159.04 from a read-only mount, and Ubuntu's libxnvctrl0
    packages = parse_package_lines("libxnvctrl0\t510.47.03-0ubuntu4\tii \nnvidia-libopencl1-dev\t\tun \n"
                                   "nvidia-container-toolkit\t1.17.8-1\tii \n")
    assert installed_driver(packages)["names"] == []
    assert driver_action("auto", "580", "open", LOADED_580_OPEN, packages)["action"] == "adopt"


def test_holds_cover_the_branch_only():
    text = DPKG_580_OPEN + "libxnvctrl0\t510.47.03-0ubuntu4\tii \nxserver-xorg-video-nvidia-580\t580.95.05-1\tii \n"
    names = installed_driver(parse_package_lines(text))["names"]
    assert "xserver-xorg-video-nvidia-580" in names and "libxnvctrl0" not in names


def test_installed_proprietary_driver():
    packages = parse_package_lines("nvidia-driver-550\t550.54.14-0ubuntu1\tii \nnvidia-dkms-550\t550.54.14-0ubuntu1\tii \n")
    info = installed_driver(packages)
    assert (info["version"], info["branch"], info["flavor"]) == ("550.54.14", "550", "proprietary")


@pytest.mark.parametrize("value,expected", [("580.95.05-1", "580.95.05"), ("3:580.95.05-1.el9", "580.95.05"),
                                            (None, None)])
def test_plain_version(value, expected):
    assert plain_version(value) == expected


class TestAction(object):
    def test_adopt_an_unmanaged_driver_of_the_wanted_branch(self):
        result = driver_action("auto", "580", "open", LOADED_580_OPEN, [])
        assert result["ok"] and result["action"] == "adopt"
        assert result["msg"] == ("loaded driver 580.159.04 (open kernel module) is not package-managed (runfile or "
                                 "image-provided) and fits branch 580 open: left untouched (nvidia_driver_manage: "
                                 "auto; set true to install packages anyway)")

    def test_refuse_packages_over_an_unmanaged_driver_of_another_branch(self):
        result = driver_action("auto", "580", "open", LOADED_550_PROP, [])
        assert not result["ok"] and "installing packages over it breaks both" in result["msg"]

    def test_manage_true_installs_over_an_unmanaged_driver(self):
        assert driver_action("true", "580", "open", LOADED_580_OPEN, [])["action"] == "manage"
        assert driver_action(True, "580", "open", LOADED_580_OPEN, [])["action"] == "manage"

    def test_packages_are_managed(self):
        result = driver_action("auto", "580", "open", NOT_LOADED, parse_package_lines(DPKG_580_OPEN))
        assert result["ok"] and result["action"] == "manage"
        assert result["msg"] == "packages of branch 580 open managed (installed: 580.95.05)"

    def test_fresh_host(self):
        result = driver_action("auto", "580", "open", NOT_LOADED, [])
        assert result == {"ok": True, "action": "manage", "installed": installed_driver([]),
                          "msg": "packages of branch 580 open managed"}

    def test_branch_move_needs_upgrade(self):
        packages = parse_package_lines(DPKG_580_OPEN)
        result = driver_action("auto", "590", "open", NOT_LOADED, packages)
        assert not result["ok"]
        assert result["msg"] == ("installed driver packages are branch 580 open (580.95.05), nvidia_driver_branch/"
                                 "flavor ask for 590 open: set nvidia_driver_upgrade: true to move the driver on "
                                 "purpose (a reboot follows)")
        assert driver_action("auto", "590", "open", NOT_LOADED, packages, upgrade=True)["ok"]

    def test_check_only(self):
        assert driver_action("false", "580", "open", LOADED_580_OPEN, [])["ok"]
        packages = parse_package_lines(DPKG_580_OPEN)
        result = driver_action("false", "580", "open", NOT_LOADED, packages)
        assert result["ok"] and result["action"] == "check" and "installed (580.95.05), not loaded" in result["msg"]
        result = driver_action("false", "580", "open", LOADED_550_PROP, [])
        assert not result["ok"] and result["msg"] == (
            "nvidia_driver_manage is false (check only) and the host has driver 550.54.14 (proprietary kernel "
            "module); wanted branch 580, open flavor")

    def test_bad_manage(self):
        assert driver_action("maybe", "580", "open")["msg"] == "nvidia_driver_manage must be auto, true or false, not 'maybe'"


def test_parse_apt_policy():
    policy = parse_apt_policy(POLICY_FULL + "libfoo:i386:\n  Installed: 1.0\n  Candidate: 1.0\n")
    assert policy["nvidia-open"] == {"installed": None, "candidate": "590.44.01-1"}
    assert policy["libfoo"] == {"installed": "1.0", "candidate": "1.0"}
    assert set(policy) == {"nvidia-driver-pinning-580", "nvidia-open", "nvidia-driver-580-open", "cuda-drivers-580", "libfoo"}


def test_query_names():
    assert apt_query_names("580", "open") == ["nvidia-driver-pinning-580", "nvidia-open", "nvidia-driver-580-open",
                                              "cuda-drivers-580"]
    assert apt_query_names("580", "proprietary") == ["nvidia-driver-pinning-580", "cuda-drivers", "nvidia-driver-580",
                                                     "cuda-drivers-580"]


def _without(*names):
    keep, skip = [], False
    for line in POLICY_FULL.splitlines():
        if line and not line.startswith(" "):
            skip = line[:-1] in names
        if not skip:
            keep.append(line)
    return parse_apt_policy("\n".join(keep))


class TestAptChoice(object):
    def test_pinning_first(self):
        assert apt_choose_packages(parse_apt_policy(POLICY_FULL), "580", "open") == {
            "ok": True, "method": "pinning", "first": ["nvidia-driver-pinning-580"], "then": ["nvidia-open"],
            "pin": False, "msg": "nvidia-driver-pinning-580 first (keeps apt on branch 580), then nvidia-open"}

    def test_fallback_to_branch_suffixed(self):
        result = apt_choose_packages(_without("nvidia-driver-pinning-580", "nvidia-open"), "580", "open")
        assert result["method"] == "branch-suffixed" and result["then"] == ["nvidia-driver-580-open"]
        assert not result["pin"]
        assert result["msg"] == ("the repository has no nvidia-driver-pinning-580: fell back to the branch-suffixed "
                                 "nvidia-driver-580-open")

    def test_fallback_to_cuda_drivers_with_a_pin(self):
        result = apt_choose_packages(_without("nvidia-driver-pinning-580", "nvidia-driver-580-open"), "580", "open")
        assert result["method"] == "cuda-drivers-branch" and result["then"] == ["cuda-drivers-580"] and result["pin"]

    def test_nothing_offered(self):
        result = apt_choose_packages({}, "580", "open")
        assert not result["ok"] and result["msg"].startswith("the repository offers none of nvidia-driver-pinning-580")


class TestLoadState(object):
    def test_no_gpu(self):
        assert not load_state(0, False, NOT_LOADED, "580.95.05")["reboot_required"]

    def test_nouveau(self):
        state = load_state(1, True, NOT_LOADED, "580.95.05")
        assert state["reboot_required"] and state["reason"].startswith("nouveau is loaded")

    def test_old_module_loaded(self):
        state = load_state(1, False, dict(LOADED_580_OPEN, version="580.82.07"), "580.95.05")
        assert state == {"reboot_required": True, "try_modprobe": False,
                         "reason": "the loaded module is 580.82.07, the installed packages 580.95.05"}

    def test_try_modprobe_first(self):
        assert load_state(1, False, NOT_LOADED, "580.95.05") == {
            "reboot_required": False, "try_modprobe": True, "reason": "driver installed, not loaded yet"}

    def test_loaded_and_current(self):
        assert not load_state(1, False, dict(LOADED_580_OPEN, version="580.95.05"), "580.95.05")["reboot_required"]


@pytest.mark.parametrize("release,family,expected", [
    ("6.8.0-50-generic", "Debian", "linux-headers-generic"),
    ("6.8.0-1015-aws", "Debian", "linux-headers-aws"),
    ("6.1.0-28-amd64", "Debian", "linux-headers-amd64"),
    ("6.1.0-28-cloud-amd64", "Debian", "linux-headers-cloud-amd64"),
    ("6.18.44-fc-v669", "Debian", ""),
    ("5.14.0-427.13.1.el9_4.x86_64", "RedHat", "kernel-devel"),
])
def test_headers_meta_package(release, family, expected):
    assert headers_meta_package(release, family) == expected
