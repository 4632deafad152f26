# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver_state module: arguments, the inputs refused before the host is read, one read of a host
under tmp_path, refusals, no secret returned."""
from __future__ import annotations

import json
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import state_call
from ansible_collections.blackwell.pytorch.plugins.modules import nvidia_driver_state
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.driver import OPTIONS as DRIVER_OPTIONS
from driver_fixture import PACKAGES, PREFLIGHT, RTX5090

LOCAL = dict(PREFLIGHT, connection={"type": "local", "local": True})
URL = "https://mirror.lab/cuda/debian12/x86_64/"
REPO = {"configure": True, "url": URL, "key_url": URL + "3bf863cc.pub", "key_content": "",
        "fingerprints": ["EB693B3035CD5710E231E123A4B469963BF863CC"], "proxy": ""}
# Today's words of each refusal of the inputs alone (the role's messages, docs/reliability.md).
BRANCH_470 = ("ws-5090-02: nvidia_driver_branch 470 cannot drive the GPUs here: NVIDIA GeForce RTX 5090 (sm_120) "
              "needs branch 570 or newer. Set nvidia_driver_branch: 580 (long-term branch).")
SHORT_ID = ("ws-5090-02: nvidia_driver_repo_key_fingerprints: '3BF863CC' is not a full fingerprint (40 or 64 hex "
            "digits; a short key id such as 3BF863CC can be forged).")
LOCAL_REBOOT = ("nvidia_driver_reboot_ok is true but the play runs on ws-5090-02 itself (local connection): this role "
                "never reboots the machine that runs the play. Set nvidia_driver_reboot_ok: false (a needed reboot "
                "is then reported in nvidia_driver_reboot_required) or run the play from another controller.")


def printer(text):
    """A real command printing the package lines (the role's probe is dpkg-query)."""
    return [sys.executable, "-c", "import sys; sys.stdout.write(%r)" % text]


def marking(path, text):
    """A real probe that prints the package lines and leaves a file behind: the host was read."""
    return [sys.executable, "-c", "import sys; open(%r, 'w').close(); sys.stdout.write(%r)" % (str(path), text)]


def args(tmp_path, **changes):
    base = {"host": "ws-5090-02", "preflight": PREFLIGHT, "probe_argv": printer(PACKAGES),
            "repo": {"configure": False}, "uu_exclude": False, "kernel_headers": False,
            "dkms_package": "blackwell-no-such-package", "blacklist_nouveau": False, "persistenced": False}
    base.update(changes)
    return base


def test_arguments_and_defaults():
    spec = DRIVER_OPTIONS
    assert spec["host"]["required"] and spec["preflight"]["required"] and spec["probe_argv"]["default"] == []
    assert spec["branch"]["default"] == "580" and spec["manage"]["default"] == "auto"
    assert spec["repo"]["default"] == {"configure": False}
    want = state_call.want_of({"repo": {"configure": "True", "url": "u", "unknown": 1}, "preflight": PREFLIGHT}, "aarch64")
    # the keys it knows; those left empty: the layout of the OS the preflight read (Debian 12), on this architecture
    assert want["repo"] == {"configure": True, "url": "u", "key_url": "u3bf863cc.pub",
                            "keyring": "/etc/apt/keyrings/nvidia-cuda.asc",
                            "source_path": "/etc/apt/sources.list.d/nvidia-cuda.list",
                            "proxy_path": "/etc/apt/apt.conf.d/90nvidia-cuda-proxy"}
    assert state_call.want_of({"repo": {}, "preflight": PREFLIGHT}, "aarch64")["repo"]["url"] == \
        "https://developer.download.nvidia.com/compute/cuda/repos/debian12/sbsa/"


def want(**changes):
    """The module's parameters as AnsibleModule gives them (every option, its default when not set)."""
    params = dict((name, spec.get("default")) for name, spec in DRIVER_OPTIONS.items())
    params.update({"host": "ws-5090-02", "preflight": PREFLIGHT}, **changes)
    return state_call.want_of(params, "x86_64")


@pytest.mark.parametrize("changes, refusals", [
    ({}, []),
    ({"branch": "abc"}, ["ws-5090-02: nvidia_driver_branch must be a driver branch of three digits such as 580, "
                         "not 'abc'."]),
    ({"branch": "580-open"}, ["ws-5090-02: nvidia_driver_branch must be a driver branch of three digits such as 580, "
                              "not '580-open' (a branch is the first number of a driver version: 580; the flavor is "
                              "nvidia_driver_flavor)."]),
    ({"branch": "470", "gpus": [RTX5090]}, [BRANCH_470]),
    ({"branch": "470"}, []),  # no GPU: any branch of three digits
    ({"repo": dict(REPO, fingerprints=["3BF863CC"])}, [SHORT_ID]),
    ({"repo": dict(REPO, fingerprints=["3BF863CC"], configure=False)}, []),  # the repository left out: not checked
    ({"repo": dict(REPO, proxy="lab:Sup3rS3cret@proxy.lab:3128")},
     ["ws-5090-02: nvidia_driver_repo_proxy must be a URL of scheme http, https, socks5h (for example "
      "https://mirror.lab/cuda/), not 'lab:***@proxy.lab:3128'."]),
    ({"reboot_ok": True, "preflight": LOCAL}, [LOCAL_REBOOT]),
    ({"reboot_ok": True}, []),  # over SSH
    ({"reboot_ok": False, "preflight": LOCAL}, []),
    ({"branch": "470", "gpus": [RTX5090], "repo": dict(REPO, fingerprints=["3BF863CC"]), "reboot_ok": True,
      "preflight": LOCAL}, [BRANCH_470, SHORT_ID, LOCAL_REBOOT]),
], ids=["fine", "branch-abc", "branch-580-open", "branch-470-blackwell", "branch-470-no-gpu", "fingerprint-short-id",
        "repo-not-configured", "proxy-no-scheme", "local-reboot", "reboot-over-ssh", "local-no-reboot", "all-at-once"])
def test_the_inputs_alone_are_refused_in_todays_words_all_at_once(changes, refusals):
    assert state_call.input_refusals(want(**changes)) == refusals


def test_refused_inputs_return_before_the_host_is_read(run_module, tmp_path):
    marker = tmp_path / "probed"
    kind, result = run_module(nvidia_driver_state, args(
        tmp_path, probe_argv=marking(marker, PACKAGES), branch="470", gpus=[RTX5090], reboot_ok=True, preflight=LOCAL,
        repo=dict(REPO, fingerprints=["3BF863CC"], keyring=str(tmp_path / "key.asc"),
                  source_path=str(tmp_path / "nvidia-cuda.list"), proxy_path=str(tmp_path / "proxy"))))
    assert kind == "exit" and result["changed"] is False and not result["ok"] and not result["converged"], result
    assert result["refusals"] == [BRANCH_470, SHORT_ID, LOCAL_REBOOT] and result["changes"] == []
    # several refusals: numbered, one a line, under a line that counts them (common/preflight.py numbered())
    assert result["msg"].split("\n") == ["ws-5090-02: 3 refusals, each with its fix; nothing was changed."] + [
        "%d. %s" % (index, text) for index, text in enumerate(result["refusals"], 1)]
    assert not marker.exists()  # the probe never ran
    assert "plan" not in result and "status" not in result  # nothing decided
    kind, result = run_module(nvidia_driver_state, args(tmp_path, probe_argv=marking(marker, PACKAGES)))
    assert kind == "exit" and result["ok"] and marker.exists(), result  # good inputs: the host is read


def test_a_gpu_whose_capability_is_no_capability_fails_with_the_host_named(run_module, tmp_path):
    marker = tmp_path / "probed"
    kind, result = run_module(nvidia_driver_state, args(
        tmp_path, probe_argv=marking(marker, PACKAGES), gpus=[{"name": "NVIDIA GeForce RTX 5090", "compute_capability": "12"}]))
    assert kind == "fail" and result["msg"] == "ws-5090-02: not a compute capability: '12'", result
    assert not marker.exists()


def test_proxy_password_is_found_only_in_user_info():
    assert state_call.proxy_password("http://lab:Sup3rS3cret@proxy.lab:3128") == "Sup3rS3cret"
    assert state_call.proxy_password("http://proxy.lab:3128") == ""
    assert state_call.proxy_password("") == ""


def test_a_host_missing_its_support_package_is_not_converged_and_nothing_changed(run_module, tmp_path):
    kind, result = run_module(nvidia_driver_state, args(tmp_path))
    assert kind == "exit" and result["changed"] is False and result["ok"], result
    assert result["plan"]["action"] == "manage" and result["installed"]["names"] == [
        "nvidia-driver-pinning-580", "nvidia-open"]
    assert result["changes"] == ["kernel headers and DKMS"] and not result["converged"]
    assert result["commands"]["probe_argv"] == printer(PACKAGES)  # the change path lists the packages again with it
    assert result["support_packages"] == ["blackwell-no-such-package"]


def test_a_refusal_is_returned_not_failed(run_module, tmp_path):
    kind, result = run_module(nvidia_driver_state, args(tmp_path, mok_key=str(tmp_path / "mok.key"),
                                                        mok_cert=str(tmp_path / "mok.der")))
    assert kind == "exit" and not result["ok"] and not result["converged"]
    assert result["msg"] == ("nvidia_driver_mok_key and nvidia_driver_mok_cert go together and must be files on "
                             "ws-5090-02; missing: %s, %s." % (tmp_path / "mok.key", tmp_path / "mok.der"))


def test_the_proxy_password_never_comes_back(run_module, no_log_values, tmp_path):
    proxy = "http://lab:Sup3rS3cret@proxy.lab:3128"
    repo = {"configure": True, "url": "http://mirror.lab/cuda/debian12/x86_64/", "key_url": "http://mirror.lab/cuda/debian12/x86_64/3bf863cc.pub",
            "key_content": "",
            "fingerprints": ["E03B268307B96903B1FEDEBE1352127A12AAF7AB"], "proxy": proxy,
            "keyring": str(tmp_path / "key.asc"), "source_path": str(tmp_path / "nvidia-cuda.list"),
            "proxy_path": str(tmp_path / "proxy")}
    kind, result = run_module(nvidia_driver_state, args(tmp_path, repo=repo))
    assert kind == "exit" and result["ok"], result["msg"]
    assert result["changes"][:3] == ["repository key", "repository source", "repository proxy"]
    assert "Sup3rS3cret" in no_log_values
    assert "Sup3rS3cret" not in json.dumps(result["files"]) + json.dumps(result["status"])


def test_a_failing_probe_fails_the_module_with_the_host_named(run_module, tmp_path):
    probe = [sys.executable, "-c", "import sys; sys.stderr.write('dpkg: broken'); sys.exit(2)"]
    kind, result = run_module(nvidia_driver_state, args(tmp_path, probe_argv=probe))
    assert kind == "fail" and result["msg"].startswith("could not read the driver state on ws-5090-02: ")
    assert "dpkg: broken" in result["msg"]


def test_a_branch_the_catalogue_does_not_list_is_let_through_with_a_warning(run_module, tmp_path):
    kind, result = run_module(nvidia_driver_state, args(tmp_path, branch="600", upgrade=True))
    assert kind == "exit" and result["ok"], result["msg"]
    assert result["branch_warnings"] == result["warnings"] == [
        "nvidia_driver_branch 600 is not in the collection's branch catalogue (580, 595, 610, 620): its kind, support "
        "window and CUDA version are unknown here, and it installs only if NVIDIA's repository has it; the long-term "
        "choice is 580 (long-term support branch, supported to June 2028, CUDA 13.0)"]
    kind, result = run_module(nvidia_driver_state, args(tmp_path))
    assert result["branch_warnings"] == result["warnings"] == []
