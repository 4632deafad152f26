# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia_driver_state module: arguments, one read of a host under tmp_path, refusals, no secret returned."""
from __future__ import annotations

import json
import sys

from ansible_collections.blackwell.pytorch.plugins.modules import nvidia_driver_state

PREFLIGHT = {"os": {"family": "Debian", "distribution": "Debian", "version": "12"},
             "kernel": {"release": "6.1.0-28-amd64", "headers_installed": True,
                        "headers_package": "linux-headers-6.1.0-28-amd64", "headers_installable": True},
             "user": {"uid": 0, "name": "root"}, "connection": {"type": "ssh", "local": False},
             "secure_boot": {"state": "disabled"}, "nouveau_loaded": False}
PACKAGES = "nvidia-open\t580.95.05-1\thi \nnvidia-driver-pinning-580\t580.95.05-1\thi \n"


def printer(text):
    """A real command printing the package lines (the role's probe is dpkg-query)."""
    return [sys.executable, "-c", "import sys; sys.stdout.write(%r)" % text]


def args(tmp_path, **changes):
    base = {"host": "ws-5090-02", "preflight": PREFLIGHT, "probe_argv": printer(PACKAGES),
            "repo": {"configure": False}, "uu_exclude": False, "kernel_headers": False,
            "dkms_package": "blackwell-no-such-package", "blacklist_nouveau": False, "persistenced": False}
    base.update(changes)
    return base


def test_arguments_and_defaults():
    spec = nvidia_driver_state.argument_spec()
    assert spec["host"]["required"] and spec["preflight"]["required"] and spec["probe_argv"]["default"] == []
    assert spec["branch"]["default"] == "580" and spec["manage"]["default"] == "auto"
    assert spec["repo"]["default"] == {"configure": False}
    want = nvidia_driver_state.want_of({"repo": {"configure": "True", "url": "u", "unknown": 1}})
    assert want["repo"] == {"configure": True, "url": "u"}


def test_proxy_password_is_found_only_in_user_info():
    assert nvidia_driver_state.proxy_password("http://lab:Sup3rS3cret@proxy.lab:3128") == "Sup3rS3cret"
    assert nvidia_driver_state.proxy_password("http://proxy.lab:3128") == ""
    assert nvidia_driver_state.proxy_password("") == ""


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
