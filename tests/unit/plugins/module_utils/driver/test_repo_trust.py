# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.repo_trust: whether to fetch the key, the refusals word for word, the files' texts, apt's refusal (real
apt-get update output of a refused source), the published status and the steps after the files."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import repo_trust as repo
from test_openpgp import ED_FPR, ED_KEY, RSA_FPR, RSA_KEY

HOST = "ws-5090-02"
URL = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"
KEY_URL = URL + "3bf863cc.pub"
KEYRING = "/etc/apt/keyrings/nvidia-cuda.asc"
SOURCE = "/etc/apt/sources.list.d/nvidia-cuda.list"
PROXY_CONF = "/etc/apt/apt.conf.d/90nvidia-cuda-proxy"
WANT = {"url": URL, "keyring": KEYRING, "source_path": SOURCE, "apt_conf_path": PROXY_CONF, "name": "nvidia-cuda",
        "proxy": ""}
# apt-get update of a source whose InRelease another key signed (Debian 12's gpgv), and of a stopped mirror
WRONG_SIGNATURE = (
    "Get:1 http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease [1,488 B]\n"
    "Err:1 http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease\n"
    "  The following signatures couldn't be verified because the public key is not available: NO_PUBKEY 1352127A12AAF7AB\n"
    "Reading package lists...\n"
    "W: GPG error: http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease: The following signatures couldn't be "
    "verified because the public key is not available: NO_PUBKEY 1352127A12AAF7AB\n"
    "E: The repository 'http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease' is not signed.\n")
UNREACHABLE = (
    "Ign:1 http://127.0.0.1:45321/cuda/debian12/x86_64  InRelease\n"
    "Err:1 http://127.0.0.1:45321/cuda/debian12/x86_64  InRelease\n"
    "  Could not connect to 127.0.0.1:45321 (127.0.0.1). - connect (111: Connection refused)\n"
    "Reading package lists...\n"
    "W: Failed to fetch http://127.0.0.1:45321/cuda/debian12/x86_64/InRelease  Could not connect to 127.0.0.1:45321 "
    "(127.0.0.1). - connect (111: Connection refused)\n"
    "W: Some index files failed to download. They have been ignored, or old ones used instead.\n")
LOCKED = "\nE: Could not get lock /tmp/lists/lock. It is held by process 4242 (python3)\nE: Unable to lock directory /tmp/lists/\n"


@pytest.mark.parametrize("key_content, host_key, fetch", [
    ("", None, True),
    ("", RSA_KEY, False),
    ("", ED_KEY, True),
    ("", "<html>404</html>", True),
    (RSA_KEY, None, False),
    (ED_KEY, ED_KEY, False),
], ids=["no-key", "pinned-key-there", "other-key-there", "not-a-key-there", "content-given", "content-not-checked-here"])
def test_must_fetch(key_content, host_key, fetch):
    assert repo.must_fetch(key_content, host_key, [RSA_FPR]) is fetch


def test_fetch_failure_names_the_url_the_reason_and_the_variables():
    fetched = {"status": -1, "msg": "Status code was -1 and not [200]: Request failed: <urlopen error [Errno 111] "
                                    "Connection refused>"}
    assert repo.fetch_failure(HOST, KEY_URL, fetched) == (
        "The repository key %s cannot be fetched from ws-5090-02 (Status code was -1 and not [200]: Request failed: "
        "<urlopen error [Errno 111] Connection refused>). Point nvidia_driver_repo_base_url (or nvidia_driver_repo_url "
        "and nvidia_driver_repo_key_url) at a reachable mirror, set nvidia_driver_repo_proxy to the proxy this host "
        "must use, or give the armored key itself in nvidia_driver_repo_key_content." % KEY_URL)


@pytest.mark.parametrize("fetched, why", [
    ({"status": 404, "msg": "Status code was 404 and not [200]: HTTP Error 404: File not found."},
     "(Status code was 404 and not [200]: HTTP Error 404: File not found)"),
    ({"status": -1, "msg": "Request failed via http://lab:Sup3rS3cret@proxy.lab:3128"},
     "(Request failed via http://lab:***@proxy.lab:3128)"),
    ({"status": 503}, "(HTTP 503)"),
], ids=["final-period-dropped", "password-masked", "no-message"])
def test_fetch_failure_reason(fetched, why):
    assert why in repo.fetch_failure(HOST, KEY_URL, fetched)


@pytest.mark.parametrize("fetched", [None, {}, {"changed": False, "skipped": True}, {"status": 200, "content": RSA_KEY}],
                         ids=["none", "empty", "skipped", "fetched"])
def test_no_fetch_failure(fetched):
    assert repo.fetch_failure(HOST, KEY_URL, fetched) == ""


def test_check_run_and_real_run_words():
    failure = repo.fetch_failure(HOST, KEY_URL, {"status": -1, "msg": "Connection refused"})
    assert repo.check_mode_note(KEY_URL, failure) == "check mode: a real run fetches %s first and would stop here. %s" % (
        KEY_URL, failure)
    assert repo.stop_message(failure) == failure + " Nothing was written."


@pytest.mark.parametrize("key_content, fetched, host_key, text", [
    (RSA_KEY, {"status": 200, "content": ED_KEY}, ED_KEY, RSA_KEY),
    ("", {"status": 200, "content": ED_KEY}, RSA_KEY, ED_KEY),
    ("", {"skipped": True}, RSA_KEY, RSA_KEY),
    ("", None, None, ""),
], ids=["content-first", "fetched-next", "host-last", "none"])
def test_key_text(key_content, fetched, host_key, text):
    assert repo.key_text(key_content, fetched, host_key) == text


def test_untrusted_refusal_words():
    check = {"ok": False, "msg": "key(s) not in the pinned list %s: %s (Test Other Ed25519 <ed@example.invalid>)" % (
        RSA_FPR, ED_FPR)}
    assert repo.untrusted_refusal(HOST, repo.key_origin("", KEY_URL), check) == (
        "The repository key from %s is not trusted on ws-5090-02: key(s) not in the pinned list %s: %s (Test Other "
        "Ed25519 <ed@example.invalid>). Nothing was written. If the vendor rotated its key, add the new fingerprint to "
        "nvidia_driver_repo_key_fingerprints after checking it out of band." % (KEY_URL, RSA_FPR, ED_FPR))
    assert repo.key_origin(RSA_KEY, KEY_URL) == "nvidia_driver_repo_key_content"
    assert repo.untrusted_refusal(HOST, KEY_URL, {"ok": True, "msg": "pinned key(s): ..."}) == ""


def test_family_refusal():
    assert repo.family_refusal(HOST, "Debian") == "" and repo.family_refusal(HOST, "RedHat") == ""
    assert repo.family_refusal(HOST, "Suse") == (
        "ws-5090-02: the vendor repository is written for the OS families Debian and RedHat only, not 'Suse'.")


def test_debian_files_without_a_proxy():
    files = repo.wanted_files("Debian", RSA_KEY, WANT)
    assert [(entry["name"], entry["path"], entry["mode"], entry["secret"]) for entry in files] == [
        ("key", KEYRING, "0644", False), ("proxy", PROXY_CONF, "0600", True), ("source", SOURCE, "0644", False)]
    assert files[0]["content"] == RSA_KEY and files[1]["content"] is None
    assert files[2]["content"] == (
        "# Managed by blackwell.pytorch.nvidia_driver: NVIDIA's CUDA repository (or a mirror),\n"
        "# trusted only through the pinned key in %s.\ndeb [signed-by=%s] %s /\n" % (KEYRING, KEYRING, URL))


def test_debian_proxy_setting_for_the_repository_host_only():
    files = repo.wanted_files("Debian", RSA_KEY, dict(WANT, proxy="http://lab:Sup3rS3cret@proxy.lab:3128"))
    assert files[1]["content"] == (
        "// Managed by blackwell.pytorch.nvidia_driver: the proxy for developer.download.nvidia.com only.\n"
        'Acquire::http::Proxy::developer.download.nvidia.com "http://lab:Sup3rS3cret@proxy.lab:3128";\n'
        'Acquire::https::Proxy::developer.download.nvidia.com "http://lab:Sup3rS3cret@proxy.lab:3128";\n')


def test_redhat_repo_file_as_yum_repository_wrote_it():
    want = dict(WANT, url="https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/",
                keyring="/etc/pki/rpm-gpg/RPM-GPG-KEY-nvidia-cuda", source_path="/etc/yum.repos.d/nvidia-cuda.repo")
    files = repo.wanted_files("RedHat", RSA_KEY, want)
    assert [(entry["name"], entry["mode"], entry["secret"]) for entry in files] == [
        ("key", "0644", False), ("source", "0644", False)]
    assert files[1]["content"] == (
        "[nvidia-cuda]\nbaseurl = https://developer.download.nvidia.com/compute/cuda/repos/rhel9/x86_64/\n"
        "enabled = 1\ngpgcheck = 1\ngpgkey = file:///etc/pki/rpm-gpg/RPM-GPG-KEY-nvidia-cuda\n"
        "name = NVIDIA CUDA repository (managed by blackwell.pytorch.nvidia_driver)\n\n")
    proxied = repo.wanted_files("RedHat", RSA_KEY, dict(want, proxy="http://proxy.lab:3128"))[1]
    assert (proxied["mode"], proxied["secret"]) == ("0600", True)
    assert proxied["content"].endswith("name = NVIDIA CUDA repository (managed by blackwell.pytorch.nvidia_driver)\n"
                                       "proxy = http://proxy.lab:3128\n\n")


def test_file_diff_shows_the_source_and_never_the_proxy():
    source = {"name": "source", "path": SOURCE, "content": "deb ...\n", "secret": False}
    assert repo.file_diff(source, None) == {"before_header": SOURCE, "after_header": SOURCE, "before": "",
                                            "after": "deb ...\n"}
    proxy = {"name": "proxy", "path": PROXY_CONF, "content": 'Acquire "http://lab:Sup3rS3cret@p:3128";\n', "secret": True}
    assert repo.file_diff(proxy, None)["after"] == "(not shown: the proxy URL may carry a password)\n"
    changed = repo.file_diff(proxy, 'Acquire "http://p:3128";\n')
    assert (changed["before"], changed["after"]) == ("(the setting as it was)\n", "(the setting as asked)\n")
    removed = repo.file_diff(dict(proxy, content=None), 'Acquire "http://p:3128";\n')
    assert (removed["before"], removed["after"]) == ("(not shown: the proxy URL may carry a password)\n", "")


@pytest.mark.parametrize("family, changed, check_mode, refresh, steps", [
    ("Debian", [], False, False, {"usable": True, "update_lists": False}),
    ("Debian", [], False, True, {"usable": True, "update_lists": True}),
    ("Debian", ["source"], False, False, {"usable": True, "update_lists": True}),
    ("Debian", ["proxy"], False, False, {"usable": True, "update_lists": False}),
    ("Debian", ["key", "source"], True, True, {"usable": False, "update_lists": False}),
    ("Debian", ["proxy"], True, True, {"usable": True, "update_lists": False}),
    ("RedHat", ["key", "rpm key", "source"], False, True, {"usable": True, "update_lists": False}),
    ("RedHat", ["key"], True, True, {"usable": False, "update_lists": False}),
    ("RedHat", ["rpm key"], True, True, {"usable": True, "update_lists": False}),
], ids=["converged", "refresh-asked", "source-changed", "proxy-only", "check-run-new", "check-run-proxy",
        "redhat", "redhat-check-new-key", "redhat-check-import-only"])
def test_next_steps(family, changed, check_mode, refresh, steps):
    assert repo.next_steps(family, changed, check_mode, refresh) == steps


def test_rpm_commands_name_each_key_by_its_key_id():
    v6 = "AB" * 4 + "0123456789ABCDEF" + "CD" * 20
    assert repo.rpm_key_names(["610C7B14E068A878070DA4E99CD0A493D42D0685", v6]) == [
        "gpg-pubkey-d42d0685", "gpg-pubkey-01234567"]
    assert repo.rpm_commands("/usr/bin/rpm", "/etc/pki/rpm-gpg/RPM-GPG-KEY-nvidia-cuda", [RSA_FPR]) == {
        "queries": [["/usr/bin/rpm", "-q", "--quiet", "gpg-pubkey-12aaf7ab"]],
        "import": ["/usr/bin/rpm", "--import", "/etc/pki/rpm-gpg/RPM-GPG-KEY-nvidia-cuda"]}


def test_repo_status():
    assert repo.repo_status(URL, KEYRING, (RSA_FPR,), False) == {
        "url": URL, "keyring": KEYRING, "fingerprints": [RSA_FPR], "usable": False}


def test_apt_refusal_of_a_wrong_signature_names_the_pinned_key():
    assert repo.apt_refusal(HOST, URL, SOURCE, WRONG_SIGNATURE, 120, [RSA_FPR]) == (
        "apt refused %s on ws-5090-02: Err:1 http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease | The "
        "following signatures couldn't be verified because the public key is not available: NO_PUBKEY "
        "1352127A12AAF7AB | E: The repository 'http://127.0.0.1:8580/wrongsig/debian12/x86_64  InRelease' is not "
        "signed. Its index is not signed by the pinned key %s (a mirror must serve the vendor's own signed "
        "InRelease). The source %s was removed." % (URL, RSA_FPR, SOURCE))


def test_apt_refusal_of_an_unreachable_repository():
    assert repo.apt_refusal(HOST, URL, SOURCE, UNREACHABLE, 120, [RSA_FPR]) == (
        "apt refused %s on ws-5090-02: Err:1 http://127.0.0.1:45321/cuda/debian12/x86_64  InRelease | W: Failed to "
        "fetch http://127.0.0.1:45321/cuda/debian12/x86_64/InRelease  Could not connect to 127.0.0.1:45321 "
        "(127.0.0.1). - connect (111: Connection refused). Check nvidia_driver_repo_url and "
        "nvidia_driver_repo_proxy. The source %s was removed." % (URL, SOURCE))


def test_apt_refusal_of_a_held_lock_names_the_timeout_variable():
    assert repo.apt_refusal(HOST, URL, SOURCE, LOCKED, 4, [RSA_FPR]) == (
        "apt refused %s on ws-5090-02: E: Could not get lock /tmp/lists/lock. It is held by process 4242 (python3) | "
        "E: Unable to lock directory /tmp/lists/. Another package manager run holds apt's lock (the process named "
        "above) and did not release it within 4 s (nvidia_driver_apt_lock_timeout): let it finish "
        "(unattended-upgrades runs after boot) and run the play again. The source %s was removed." % (URL, SOURCE))


def test_apt_lines_once_each():
    assert repo.apt_lines("E: one\nE: one\n  x NO_PUBKEY 12\nW: Some index files failed\n") == "E: one | x NO_PUBKEY 12"
    assert repo.apt_lines("") == ""


def test_key_fingerprints():
    assert repo.key_fingerprints(RSA_KEY + ED_KEY) == [RSA_FPR, ED_FPR]
    assert repo.key_fingerprints(None) == [] and repo.key_fingerprints("<html>404</html>") == []
