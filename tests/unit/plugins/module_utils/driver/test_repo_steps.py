# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""driver.repo_steps' file handling under tmp_path (owned by the test's user): what differs, the write through a
temporary file whose mode is set before the rename, the key directory; and the steps' refusals as RepoRefused."""
from __future__ import annotations

import os
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import repo_steps
from test_openpgp import RSA_FPR, RSA_KEY

OWNER = (os.getuid(), os.getgid())
URL = "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/"


def _mode(path):
    return stat.S_IMODE(os.stat(str(path)).st_mode)


def _entry(path, content, mode="0644"):
    return {"name": "source", "path": str(path), "content": content, "mode": mode, "secret": False}


def test_compare_a_missing_file(tmp_path):
    assert repo_steps.compare(_entry(tmp_path / "a.list", "deb x /\n"), OWNER) == {
        "before": None, "differs": True, "text_differs": True}
    assert repo_steps.compare(_entry(tmp_path / "a.list", None), OWNER) == {
        "before": None, "differs": False, "text_differs": False}


def test_compare_an_existing_file(tmp_path):
    path = tmp_path / "a.list"
    path.write_text("deb x /\n")
    path.chmod(0o644)
    assert repo_steps.compare(_entry(path, "deb x /\n"), OWNER)["differs"] is False
    assert repo_steps.compare(_entry(path, "deb x /\n", "0600"), OWNER) == {
        "before": "deb x /\n", "differs": True, "text_differs": False}
    assert repo_steps.compare(_entry(path, "deb y /\n"), OWNER)["text_differs"] is True
    assert repo_steps.compare(_entry(path, None), OWNER) == {"before": "deb x /\n", "differs": True, "text_differs": True}


def test_write_file_sets_the_mode_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "90proxy"
    repo_steps.write_file(str(path), 'Acquire "x";\n', "0600", OWNER)
    assert path.read_text() == 'Acquire "x";\n' and _mode(path) == 0o600
    repo_steps.write_file(str(path), 'Acquire "y";\n', "0600", OWNER)
    assert os.listdir(str(tmp_path)) == ["90proxy"] and path.read_text() == 'Acquire "y";\n'


def test_apply_fixes_the_mode_of_a_right_text(tmp_path):
    path = tmp_path / "a.list"
    path.write_text("deb x /\n")
    path.chmod(0o666)
    entry = _entry(path, "deb x /\n")
    repo_steps.apply(entry, repo_steps.compare(entry, OWNER), OWNER)
    assert _mode(path) == 0o644 and path.read_text() == "deb x /\n"
    gone = _entry(path, None)
    repo_steps.apply(gone, repo_steps.compare(gone, OWNER), OWNER)
    assert not path.exists()


def test_the_key_directory(tmp_path):
    directory = tmp_path / "etc" / "keyrings"
    assert repo_steps.directory_differs(str(directory), "0755", OWNER) is True
    repo_steps.ensure_directory(str(directory), "0755", OWNER)
    assert _mode(directory) == 0o755 and repo_steps.directory_differs(str(directory), "0755", OWNER) is False
    directory.chmod(0o700)
    assert repo_steps.directory_differs(str(directory), "0755", OWNER) is True


def test_present_refuses_inputs_before_it_reads_or_fetches(tmp_path):
    want = {"host": "ws-5090-02", "family": "Debian", "url": "ftp://mirror.lab/cuda/", "key_url": "", "key_content": "",
            "fingerprints": [RSA_FPR], "proxy": "", "keyring": str(tmp_path / "k.asc"), "source_path": "s.list"}
    opened = []
    with pytest.raises(repo_steps.RepoRefused) as refused:
        repo_steps.present(want, False, lambda url, timeout: opened.append(url), OWNER)
    assert refused.value.msg == (
        "ws-5090-02: nvidia_driver_repo_url must be a URL of scheme http, https, file (for example "
        "https://mirror.lab/cuda/), not 'ftp://mirror.lab/cuda/'; nvidia_driver_repo_key_url must be a URL of scheme "
        "http, https, file (for example https://mirror.lab/cuda/), not ''.")
    assert refused.value.result == {} and opened == [] and os.listdir(str(tmp_path)) == []


def test_present_refuses_an_os_family_it_has_no_layout_for(tmp_path):
    want = {"host": "ws-5090-02", "family": "Suse", "url": URL, "key_content": RSA_KEY, "fingerprints": [RSA_FPR],
            "keyring": str(tmp_path / "k.asc"), "source_path": str(tmp_path / "s.list")}
    with pytest.raises(repo_steps.RepoRefused) as refused:
        repo_steps.present(want, False, None, OWNER)
    assert refused.value.msg == ("ws-5090-02: the vendor repository is written for the OS families Debian and RedHat "
                                 "only, not 'Suse'.")
    assert os.listdir(str(tmp_path)) == []
