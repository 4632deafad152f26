# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.state.decide: converged, each kind of drift, each refusal (module_utils/driver/state.py)."""
from __future__ import annotations

import copy

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import managed_files, state
from test_openpgp import ED_KEY, RSA_FPR, RSA_KEY

RTX5090 = {"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
URL = "https://mirror.lab/cuda/debian12/x86_64/"
KEYRING = "/etc/apt/keyrings/nvidia-cuda.asc"
SOURCE = "/etc/apt/sources.list.d/nvidia-cuda.list"
PROXY = "/etc/apt/apt.conf.d/90nvidia-cuda-proxy"
UU = "/etc/apt/apt.conf.d/51blackwell-nvidia-driver"
MOK = ("/var/lib/dkms/mok.key", "/var/lib/dkms/mok.der")
PREFLIGHT = {"os": {"family": "Debian", "distribution": "Debian", "version": "12"},
             "kernel": {"release": "6.1.0-28-amd64", "headers_installed": True,
                        "headers_package": "linux-headers-6.1.0-28-amd64", "headers_installable": True},
             "user": {"uid": 0, "name": "root"}, "connection": {"type": "ssh", "local": False},
             "secure_boot": {"state": "disabled"}, "nouveau_loaded": False}
HELD = ("nvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\thi \n"
        "libnvidia-compute\t580.95.05-1\thi \n")
NAMES = ["libnvidia-compute", "nvidia-driver-pinning-580", "nvidia-open"]
SUPPORT = ("linux-headers-6.1.0-28-amd64\t6.1.123-1\tii \nlinux-headers-amd64\t6.1.123-1\tii \n"
           "dkms\t3.0.10-8\tii \n")
LOADED = {"loaded": True, "version": "580.95.05", "branch": "580", "kernel_module_flavor": "open"}


def want(**changes):
    base = {"host": "ws-5090-02", "branch": "580", "flavor": "auto", "manage": "auto", "upgrade": False,
            "gpus": [], "loaded": {"loaded": False}, "preflight": copy.deepcopy(PREFLIGHT),
            "repo": {"configure": True, "url": URL, "key_url": URL + "3bf863cc.pub", "key_content": "",
                     "fingerprints": [RSA_FPR], "proxy": "", "keyring": KEYRING, "source_path": SOURCE,
                     "proxy_path": PROXY},
            "hold": True, "uu_exclude": True, "uu_path": UU, "kernel_headers": True, "headers_track_kernel": True,
            "dkms_package": "dkms", "blacklist_nouveau": True, "mok_key": MOK[0], "mok_cert": MOK[1],
            "persistenced": True, "reboot_ok": False}
    base.update(changes)
    return base


def converged_host(**changes):
    """What a host the role converged has (no GPU: a container or an image build)."""
    found = {"packages_text": HELD, "support_text": SUPPORT, "locks_text": "", "missing_mok": [],
             "keyring_text": RSA_KEY, "other_sources": [],
             "files": {SOURCE: managed_files.apt_source(URL, KEYRING), PROXY: None,
                       UU: managed_files.uu_blacklist(NAMES),
                       managed_files.NOUVEAU_PATH: managed_files.nouveau_blacklist(),
                       managed_files.DKMS_MOK_PATH: managed_files.dkms_mok_conf(*MOK)},
             "persistenced": {"unit": True, "enabled": True, "active": False}}
    found.update(changes)
    return found


def with_file(path, text):
    found = converged_host()
    found["files"] = dict(found["files"], **{path: text})
    return found


def test_a_converged_host_changes_nothing_and_publishes_the_status():
    result = state.decide(want(), converged_host())
    assert result["ok"] and result["refusals"] == [] and result["changes"] == [] and result["converged"]
    assert result["status"] == {"action": "manage", "branch": "580", "flavor": "open", "version": "580.95.05",
                                "loaded": False, "packages": NAMES, "method": "in place", "reboot_required": False,
                                "msg": result["plan"]["msg"]}
    assert result["installed"]["method"] == "in place"
    assert not any(entry["differs"] for entry in result["files"].values())
    assert sorted(result["files"]) == ["dkms_mok", "nouveau", "repo_source", "uu_blacklist"]


def test_a_converged_gpu_host_has_the_wanted_driver_loaded_and_persistenced_running():
    found = converged_host(persistenced={"unit": True, "enabled": True, "active": True})
    result = state.decide(want(gpus=[RTX5090], loaded=LOADED), found)
    assert result["converged"] and result["status"]["loaded"] is True


def test_a_fresh_host_changes_everything():
    found = converged_host(packages_text="", support_text="", keyring_text=None,
                           files={}, persistenced={"unit": False, "enabled": False, "active": False})
    result = state.decide(want(gpus=[RTX5090]), found)
    assert result["changes"] == [state.REPO_KEY, state.REPO_SOURCE, state.SUPPORT, state.PACKAGES,
                                 state.NOUVEAU, state.DKMS_MOK, state.LOAD]
    assert not result["converged"] and result["installed"]["method"] == "none"
    assert result["files"]["nouveau"]["differs"] and "uu_blacklist" not in result["files"]


@pytest.mark.parametrize("found, change", [
    (converged_host(keyring_text=None), state.REPO_KEY),
    (converged_host(keyring_text=ED_KEY), state.REPO_KEY),
    (with_file(SOURCE, managed_files.apt_source("https://other.lab/cuda/", KEYRING)), state.REPO_SOURCE),
    (with_file(PROXY, "// left over\n"), state.REPO_PROXY),
    (converged_host(support_text="dkms\t3.0.10-8\tii \n"), state.SUPPORT),
    (converged_host(packages_text=HELD.replace("hi ", "ii ", 1)), state.HOLDS),
    (with_file(UU, managed_files.uu_blacklist(["nvidia-open"])), state.UU),
    (with_file(managed_files.NOUVEAU_PATH, None), state.NOUVEAU),
    (with_file(managed_files.DKMS_MOK_PATH, managed_files.dkms_mok_conf("/other.key", MOK[1])), state.DKMS_MOK),
    (converged_host(persistenced={"unit": True, "enabled": False, "active": False}), state.PERSISTENCED_ENABLED),
], ids=["key-missing", "key-not-pinned", "source", "proxy-not-asked", "headers-meta", "hold", "uu", "nouveau", "dkms",
        "persistenced"])
def test_each_kind_of_drift_is_named(found, change):
    result = state.decide(want(), found)
    assert result["ok"] and result["changes"] == [change] and not result["converged"]


def test_drift_of_a_file_marks_only_that_file():
    result = state.decide(want(), with_file(managed_files.NOUVEAU_PATH, "blacklist nouveau\n"))
    assert [name for name, entry in result["files"].items() if entry["differs"]] == ["nouveau"]


def test_the_proxy_file_must_say_what_is_asked_and_is_never_returned():
    proxy = "http://lab:Sup3rS3cret@proxy.lab:3128"
    text = managed_files.proxy_conf(URL, proxy)
    assert text.startswith("// Managed by blackwell.pytorch.nvidia_driver: the proxy for mirror.lab only.\n")
    repo = dict(want()["repo"], proxy=proxy)
    assert state.decide(want(repo=repo), with_file(PROXY, text))["converged"]
    result = state.decide(want(repo=repo), converged_host())
    assert result["changes"] == [state.REPO_PROXY] and "Sup3rS3cret" not in repr(result)


def test_key_content_must_be_the_key_on_the_host():
    repo = dict(want()["repo"], key_content=RSA_KEY)
    assert state.decide(want(repo=repo), converged_host())["converged"]
    assert state.decide(want(repo=repo), converged_host(keyring_text=RSA_KEY + "\n"))["changes"] == [state.REPO_KEY]


def test_the_repository_is_left_out_when_not_configured():
    repo = {"configure": False}
    result = state.decide(want(repo=repo), converged_host(keyring_text=None, files={
        UU: managed_files.uu_blacklist(NAMES), managed_files.NOUVEAU_PATH: managed_files.nouveau_blacklist(),
        managed_files.DKMS_MOK_PATH: managed_files.dkms_mok_conf(*MOK)}))
    assert result["converged"] and "repo_source" not in result["files"]


@pytest.mark.parametrize("loaded, preflight, changes", [
    ({"loaded": False}, {}, [state.LOAD]),
    ({"loaded": False}, {"nouveau_loaded": True}, [state.LOAD]),
    (dict(LOADED, version="575.57.08", branch="575"), {}, [state.LOAD, state.LOADED_MISMATCH]),
    (dict(LOADED, kernel_module_flavor="proprietary"), {}, [state.LOADED_MISMATCH]),
], ids=["not-loaded", "nouveau", "older-loaded", "proprietary-loaded"])
def test_a_gpu_without_the_wanted_driver_loaded_is_not_converged(loaded, preflight, changes):
    found = converged_host(persistenced={"unit": True, "enabled": True, "active": True})
    result = state.decide(want(gpus=[RTX5090], loaded=loaded, preflight=dict(PREFLIGHT, **preflight)), found)
    assert result["changes"] == changes and not result["converged"]


def test_persistenced_must_run_with_a_loaded_driver():
    result = state.decide(want(gpus=[RTX5090], loaded=LOADED), converged_host())
    assert result["changes"] == [state.PERSISTENCED_STARTED]


def test_an_adopted_driver_is_converged_whatever_the_files():
    result = state.decide(want(gpus=[RTX5090], loaded=LOADED),
                          converged_host(packages_text="", keyring_text=None, files={}))
    assert result["plan"]["action"] == "adopt" and result["converged"] and result["changes"] == []
    assert result["status"]["version"] == "580.95.05" and result["status"]["method"] == "none"


def test_the_check_only_action_is_converged():
    result = state.decide(want(manage="false", gpus=[RTX5090], loaded=LOADED), converged_host(files={}))
    assert result["plan"]["action"] == "check" and result["converged"]


@pytest.mark.parametrize("changes, found, message", [
    ({"flavor": "proprietary", "gpus": [RTX5090]}, {},
     "ws-5090-02: nvidia_driver_flavor proprietary refused: NVIDIA GeForce RTX 5090 (sm_120) is supported only"),
    ({"branch": "590"}, {}, "ws-5090-02: installed driver packages are branch 580 open (580.95.05), "
                            "nvidia_driver_branch/flavor ask for 590 open: set nvidia_driver_upgrade: true"),
    ({"mok_key": "", "mok_cert": "", "preflight": dict(PREFLIGHT, secure_boot={"state": "enabled"})},
     {"packages_text": ""}, "Secure Boot is enabled on ws-5090-02 and no MOK key is configured"),
    ({"mok_cert": ""}, {}, "nvidia_driver_mok_key and nvidia_driver_mok_cert go together and must be files on "
                           "ws-5090-02; missing: one of the two variables."),
    ({}, {"missing_mok": [MOK[1]]}, "nvidia_driver_mok_key and nvidia_driver_mok_cert go together and must be "
                                    "files on ws-5090-02; missing: /var/lib/dkms/mok.der."),
    ({}, {"other_sources": ["/etc/apt/sources.list.d/cuda-debian12-x86_64.list"]},
     "/etc/apt/sources.list.d/cuda-debian12-x86_64.list already configure(s) %s on ws-5090-02" % URL),
    ({"preflight": dict(PREFLIGHT, user={"uid": 1000, "name": "alice"})}, {},
     "ws-5090-02: the nvidia_driver role changes the host and needs root"),
], ids=["flavor", "branch-move", "secure-boot", "mok-variables", "mok-file", "other-source", "not-root"])
def test_each_refusal_keeps_its_message_and_is_never_converged(changes, found, message):
    result = state.decide(want(**changes), converged_host(**found))
    assert not result["ok"] and not result["converged"] and result["changes"] == []
    assert len(result["refusals"]) == 1 and result["refusals"][0].startswith(message), result["refusals"]
    assert result["msg"] == result["refusals"][0]


def test_every_refusal_is_returned_in_order():
    other = "/etc/apt/sources.list.d/cuda-debian12-x86_64.list"
    result = state.decide(want(mok_key="", mok_cert="", preflight=dict(PREFLIGHT, user={"uid": 1000, "name": "alice"},
                                                                       secure_boot={"state": "enabled"})),
                          converged_host(other_sources=[other]))
    assert [message.split(" ")[0] for message in result["refusals"]] == ["ws-5090-02:", "Secure", other]
    assert result["msg"] == "ws-5090-02: 3 refusals, each with its fix; nothing was changed.\n%s" % "\n".join(
        "%d. %s" % (index, message) for index, message in enumerate(result["refusals"], 1))


def test_the_inputs_own_refusals_are_left_to_the_module():
    # the branch, the repository inputs and a reboot over the local connection are refused by the
    # nvidia_driver_state module before it reads the host (tests/unit/plugins/modules/test_nvidia_driver_state.py)
    local = dict(PREFLIGHT, connection={"type": "local", "local": True})
    result = state.decide(want(repo=dict(want()["repo"], fingerprints=["3BF863CC"]), reboot_ok=True, preflight=local),
                          converged_host())
    assert result["ok"] and result["refusals"] == [], result["refusals"]
    assert result["changes"] == [state.REPO_KEY]  # the key on the host is not one of those fingerprints


def test_support_packages_follow_the_variables():
    assert state.support_packages(want()) == ["linux-headers-6.1.0-28-amd64", "linux-headers-amd64", "dkms"]
    assert state.support_packages(want(headers_track_kernel=False)) == ["linux-headers-6.1.0-28-amd64", "dkms"]
    assert state.support_packages(want(kernel_headers=False)) == ["dkms"]


def test_redhat_holds_come_from_the_versionlocks():
    pre = dict(PREFLIGHT, os={"family": "RedHat", "distribution": "Rocky", "version": "9.4"},
               kernel={"release": "5.14.0-427.el9.x86_64", "headers_installed": True})
    packages = "nvidia-open\t580.95.05-1.el9\tii\nkmod-nvidia-open-dkms\t580.95.05-1.el9\tii\n"
    found = converged_host(packages_text=packages, support_text="kernel-devel\t5.14.0\tii\ndkms\t3.1\tii\n",
                           locks_text="nvidia-open-0:580.95.05-1.el9.*\n",
                           files={SOURCE: "[nvidia-cuda]\n", managed_files.NOUVEAU_PATH: managed_files.nouveau_blacklist(),
                                  managed_files.DKMS_MOK_PATH: managed_files.dkms_mok_conf(*MOK)})
    result = state.decide(want(preflight=pre, uu_exclude=False), found)
    assert result["changes"] == [state.HOLDS]
    found["locks_text"] += "kmod-nvidia-open-dkms-0:580.95.05-1.el9.*\n"
    assert state.decide(want(preflight=pre, uu_exclude=False), found)["converged"]


def test_the_change_path_gets_its_packages_and_commands():
    result = state.decide(want(), converged_host())
    assert result["support_packages"] == ["linux-headers-6.1.0-28-amd64", "linux-headers-amd64", "dkms"]
    assert result["commands"]["probe_argv"][0] == "dpkg-query"
    assert result["commands"]["initramfs_argv"] == ["update-initramfs", "-u", "-k", "all"]
    assert result["commands"]["module_stream"] == "nvidia-driver:580-open"
    rhel = state.decide(want(branch="590", flavor="proprietary", kernel_headers=False,
                             preflight=dict(PREFLIGHT, os={"family": "RedHat", "distribution": "Rocky", "version": "9.4"})),
                        converged_host())
    assert rhel["support_packages"] == ["dkms"]
    assert rhel["commands"]["probe_argv"][0] == "rpm" and rhel["commands"]["initramfs_tool"] == "/usr/bin/dracut"
    assert rhel["commands"]["module_stream"] == "nvidia-driver:590-dkms"
    assert rhel["commands"]["rpm_package"] == "cuda-drivers"


def test_the_unattended_upgrades_blacklist_is_debians_only():
    pre = dict(PREFLIGHT, os={"family": "RedHat", "distribution": "Rocky", "version": "9.4"})
    result = state.decide(want(preflight=pre, uu_exclude=True), converged_host())
    assert "uu_blacklist" not in result["files"] and state.UU not in result["changes"]
