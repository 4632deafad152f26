# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""vendor_repo over a host tree under tmp_path (the role's paths there, files owned by the test's user): the three
steps, the refusals before anything is written, check mode, the modes of the files, the published status, the proxy
never shown."""
from __future__ import annotations

import json
import os
import platform
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import repo_steps
from ansible_collections.blackwell.pytorch.plugins.modules import vendor_repo
from test_openpgp import ED_FPR, ED_KEY, RSA_FPR, RSA_KEY

URL = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
KEY_URL = URL + "3bf863cc.pub"
SECRET = "Sup3rS3cret"


@pytest.fixture
def tree(tmp_path, monkeypatch):
    monkeypatch.setattr(vendor_repo, "OWNER", (os.getuid(), os.getgid()))
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / "apt.conf.d").mkdir()
    return tmp_path


def _args(tree, **changes):
    args = {"host": "ws-5090-02", "family": "Debian", "url": URL, "key_url": KEY_URL, "fingerprints": [RSA_FPR],
            "keyring": str(tree / "keyrings" / "nvidia-cuda.asc"),
            "source_path": str(tree / "sources.list.d" / "nvidia-cuda.list"),
            "apt_conf_path": str(tree / "apt.conf.d" / "90nvidia-cuda-proxy")}
    args.update(changes)
    return args


def _files(tree):
    return sorted(os.path.relpath(os.path.join(top, name), str(tree)) for top, _dirs, names in os.walk(str(tree))
                  for name in names)


def _mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


class _Answer(object):
    def __init__(self, body):
        self.body = body

    def getcode(self):
        return 200

    def read(self):
        return self.body.encode("ascii")


@pytest.fixture
def server(monkeypatch):
    """The key URL as open_url reads it: {url: body}; a URL not there is a refused connection. The proxy variables
    seen while each URL was opened are kept in `asked`."""
    served, asked = {}, []

    def open_url(url, timeout=None, use_proxy=True):
        asked.append((url, os.environ.get("https_proxy")))
        if url not in served:
            raise OSError("[Errno 111] Connection refused")
        return _Answer(served[url])

    monkeypatch.setattr(vendor_repo, "open_url", open_url)
    return {"served": served, "asked": asked}


def test_inputs_are_refused_first(tree, server, run_module):
    status, result = run_module(vendor_repo, _args(tree, fingerprints=["3BF863CC"], proxy="proxy.lab:3128"))
    assert status == "fail"
    assert result["msg"] == (
        "ws-5090-02: nvidia_driver_repo_key_fingerprints: '3BF863CC' is not a full fingerprint (40 or 64 hex "
        "digits; a short key id such as 3BF863CC can be forged); nvidia_driver_repo_proxy must be a URL of scheme "
        "http, https, socks5h (for example https://mirror.lab/cuda/), not 'proxy.lab:3128'.")
    assert _files(tree) == [] and server["asked"] == []


def test_present_fetches_and_writes_the_key_and_the_source_then_nothing(tree, server, run_module):
    server["served"][KEY_URL] = RSA_KEY
    status, result = run_module(vendor_repo, _args(tree))
    assert status == "exit" and result["changed"] is True, result
    assert result["fetched"] is True and server["asked"] == [(KEY_URL, None)]
    assert result["changes"] == ["key directory", "key", "source"]
    assert (result["usable"], result["update_lists"]) == (True, True)
    assert result["fingerprints"] == [RSA_FPR] and result["trusted"] is True
    assert result["status"] == {
        "url": URL, "keyring": str(tree / "keyrings" / "nvidia-cuda.asc"), "fingerprints": [RSA_FPR], "usable": True}
    assert "ansible_facts" not in result  # the role publishes it (set_fact)
    assert _files(tree) == ["keyrings/nvidia-cuda.asc", "sources.list.d/nvidia-cuda.list"]
    assert (tree / "keyrings" / "nvidia-cuda.asc").read_text() == RSA_KEY
    assert (tree / "sources.list.d" / "nvidia-cuda.list").read_text().endswith(
        "deb [signed-by=%s] %s /\n" % (tree / "keyrings" / "nvidia-cuda.asc", URL))
    assert [_mode(tree / name) for name in ("keyrings", "keyrings/nvidia-cuda.asc", "sources.list.d/nvidia-cuda.list")] \
        == [0o755, 0o644, 0o644]
    assert "diff" not in result  # not asked for
    # the key on the host is used as it is; nothing changes, the lists are refreshed only when asked
    del server["served"][KEY_URL]  # a host with the key in place needs no network for it
    status, again = run_module(vendor_repo, _args(tree, refresh=False))
    assert status == "exit" and again["changed"] is False and again["changes"] == [] and again["fetched"] is False
    assert (again["usable"], again["update_lists"]) == (True, False)


def test_check_mode_reports_and_writes_nothing(tree, server, run_module):
    status, result = run_module(vendor_repo, _args(tree, key_content=RSA_KEY, proxy="http://lab:%s@proxy.lab:3128" % SECRET,
                                                   _ansible_check_mode=True, _ansible_diff=True))
    assert status == "exit" and result["changed"] is True
    assert result["changes"] == ["key directory", "key", "proxy", "source"]
    assert (result["usable"], result["update_lists"]) == (False, False)
    assert result["status"]["usable"] is False
    assert [entry["after_header"] for entry in result["diff"]] == [
        str(tree / "keyrings" / "nvidia-cuda.asc"), str(tree / "apt.conf.d" / "90nvidia-cuda-proxy"),
        str(tree / "sources.list.d" / "nvidia-cuda.list")]
    assert SECRET not in json.dumps(result)
    assert _files(tree) == []


def test_check_run_that_cannot_fetch_the_key_publishes_usable_false(tree, server, run_module):
    proxy = "http://lab:%s@proxy.lab:3128" % SECRET
    status, result = run_module(vendor_repo, _args(tree, proxy=proxy, _ansible_check_mode=True))
    assert server["asked"] == [(KEY_URL, proxy)] and os.environ.get("https_proxy") != proxy  # set while fetching only
    assert status == "exit" and result["changed"] is False
    assert result["msg"].startswith("check mode: a real run fetches %s first and would stop here. The repository key %s "
                                    "cannot be fetched from ws-5090-02 (Status code was -1 and not [200]: Request "
                                    "failed: [Errno 111] Connection refused). Point" % (KEY_URL, KEY_URL))
    assert result["warnings"] == [result["msg"]]
    assert result["status"] == {"url": URL, "keyring": str(tree / "keyrings" / "nvidia-cuda.asc"), "fingerprints": [],
                                "usable": False}
    assert (result["trusted"], result["update_lists"]) == (False, False)
    status, real = run_module(vendor_repo, _args(tree, proxy=proxy))
    assert status == "fail" and real["msg"].endswith("nvidia_driver_repo_key_content. Nothing was written.")
    assert _files(tree) == []


def test_a_key_that_is_not_pinned_is_refused_and_nothing_is_written(tree, server, run_module):
    status, result = run_module(vendor_repo, _args(tree, key_content=ED_KEY))
    assert status == "fail"
    assert result["msg"] == (
        "The repository key from nvidia_driver_repo_key_content is not trusted on ws-5090-02: key(s) not in the "
        "pinned list %s: %s (Test Other Ed25519 <ed@example.invalid>). Nothing was written. If the vendor rotated its "
        "key, add the new fingerprint to nvidia_driver_repo_key_fingerprints after checking it out of band."
        % (RSA_FPR, ED_FPR))
    assert _files(tree) == []


def test_another_source_of_the_repository_is_refused_before_anything_is_written(tree, server, run_module):
    other = tree / "sources.list.d" / "cuda-debian12-x86_64.list"
    other.write_text("deb [signed-by=/usr/share/keyrings/cuda-archive-keyring.gpg] %s /\n" % URL)
    status, result = run_module(vendor_repo, _args(tree, key_content=RSA_KEY))
    assert status == "fail"
    assert result["msg"] == (
        "%s already configure(s) %s on ws-5090-02 (cuda-keyring installs one): remove it (apt-get purge cuda-keyring), "
        "or set nvidia_driver_repo_configure: false to use it as it is." % (other, URL))
    assert _files(tree) == ["sources.list.d/cuda-debian12-x86_64.list"]


def test_the_proxy_setting_is_root_only_and_removed_when_no_longer_asked(tree, server, run_module):
    proxy = "http://lab:%s@proxy.lab:3128" % SECRET
    status, result = run_module(vendor_repo, _args(tree, key_content=RSA_KEY, proxy=proxy, _ansible_diff=True))
    assert status == "exit" and "proxy" in result["changes"] and SECRET not in json.dumps(result)
    conf = tree / "apt.conf.d" / "90nvidia-cuda-proxy"
    assert _mode(conf) == 0o600
    assert 'Acquire::https::Proxy::developer.download.nvidia.com "%s";' % proxy in conf.read_text()
    conf.chmod(0o644)  # a mode changed by hand is set back
    status, result = run_module(vendor_repo, _args(tree, key_content=RSA_KEY, proxy=proxy))
    assert result["changes"] == ["proxy"] and _mode(conf) == 0o600
    status, result = run_module(vendor_repo, _args(tree, key_content=RSA_KEY))
    assert result["changes"] == ["proxy"] and not conf.exists()


@pytest.fixture
def rpm(tmp_path, monkeypatch):
    """A stand-in rpm on PATH: `-q` answers from its database file (the names imported), `--import` adds the key."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    database = tmp_path / "rpmdb"
    database.write_text("")
    program = bin_dir / "rpm"
    program.write_text('#!/bin/sh\necho "$*" >> %s.calls\n'
                       'case "$1" in\n  -q) grep -qx "$3" %s ;;\n  --import) echo gpg-pubkey-12aaf7ab >> %s ;;\nesac\n'
                       % (database, database, database))
    program.chmod(0o755)
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ["PATH"]))
    return database


def test_redhat_imports_the_key_before_the_repo_file(tree, rpm, server, run_module):
    args = _args(tree, family="RedHat", key_content=RSA_KEY, source_path=str(tree / "nvidia-cuda.repo"),
                 apt_conf_path=None, proxy="http://proxy.lab:3128")
    status, result = run_module(vendor_repo, dict(args, _ansible_check_mode=True))
    assert status == "exit" and result["changes"] == ["key directory", "key", "source"]  # no key to import yet
    assert rpm.read_text() == "" and _files(tree) == ["bin/rpm", "rpmdb"]
    status, result = run_module(vendor_repo, args)
    assert status == "exit" and result["changes"] == ["key directory", "key", "rpm key", "source"], result
    assert result["update_lists"] is False
    assert (tree / "rpmdb.calls").read_text() == "-q --quiet gpg-pubkey-12aaf7ab\n--import %s\n" % (
        tree / "keyrings" / "nvidia-cuda.asc")
    assert _mode(tree / "nvidia-cuda.repo") == 0o600
    assert "gpgcheck = 1\n" in (tree / "nvidia-cuda.repo").read_text()
    status, again = run_module(vendor_repo, args)
    assert status == "exit" and again["changed"] is False and again["changes"] == []


def test_refused_removes_the_source_and_says_why(tree, run_module):
    (tree / "keyrings").mkdir()
    (tree / "keyrings" / "nvidia-cuda.asc").write_text(RSA_KEY)
    source = tree / "sources.list.d" / "nvidia-cuda.list"
    source.write_text("deb ...\n")
    output = "\nE: Could not get lock /x/lists/lock. It is held by process 4242 (python3)\n"
    status, result = run_module(vendor_repo, _args(tree, state="refused", apt_output=output, lock_timeout=4))
    assert status == "fail" and result["changed"] is True and not source.exists()
    assert result["msg"] == (
        "apt refused %s on ws-5090-02: E: Could not get lock /x/lists/lock. It is held by process 4242 (python3). "
        "Another package manager run holds apt's lock (the process named above) and did not release it within 4 s "
        "(nvidia_driver_apt_lock_timeout): let it finish (unattended-upgrades runs after boot) and run the play "
        "again. The source %s was removed." % (URL, source))
    status, signed = run_module(vendor_repo, _args(tree, state="refused", apt_output="E: The repository is not signed."))
    assert "Its index is not signed by the pinned key %s (a mirror" % RSA_FPR in signed["msg"]


def test_the_url_and_paths_left_empty_are_the_layout_of_the_os_the_preflight_read(tree, run_module):
    ubuntu = {"distribution": "Ubuntu", "family": "Debian", "version": "24.04"}
    args = dict(_args(tree, state="refused", apt_output="E: The repository is not signed."),
                url="", keyring="", family="", os=ubuntu, base_url="https://mirror.lab/cuda/")
    status, result = run_module(vendor_repo, args)
    assert status == "fail"
    arch = "sbsa" if platform.machine() == "aarch64" else platform.machine()
    assert result["paths"] == {"url": "https://mirror.lab/cuda/ubuntu2404/%s/" % arch,
                               "keyring": "/etc/apt/keyrings/nvidia-cuda.asc",
                               "source_path": str(tree / "sources.list.d" / "nvidia-cuda.list")}
    filled = repo_steps.with_layout({"family": "", "os": {"family": "RedHat", "version": "9.4"}, "name": "lab",
                                     "apt_conf_path": ""}, "x86_64")
    assert (filled["family"], filled["url"], filled["key_url"], filled["keyring"], filled["source_path"],
            filled["apt_conf_path"]) == (
        "RedHat", "https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/",
        "https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/D42D0685.pub",
        "/etc/pki/rpm-gpg/RPM-GPG-KEY-lab", "/etc/yum.repos.d/lab.repo", "/etc/apt/apt.conf.d/90lab-proxy")
