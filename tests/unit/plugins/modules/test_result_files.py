# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os
import stat

from ansible_collections.blackwell.pytorch.plugins.modules import result_files


def mode(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def files():
    return [{"name": "verify.json", "content": '{"passed": true}\n'},
            {"name": "cuda_check.json", "content": "{}\n", "mode": "0600"}]


def test_creates_the_directory_writes_every_file_then_changes_nothing(tmp_path, run_module):
    target = tmp_path / "results"
    status, first = run_module(result_files, {"path": str(target), "files": files()})
    assert status == "exit" and first["changed"] is True and first["written"] == ["verify.json", "cuda_check.json"]
    assert (target / "verify.json").read_text() == '{"passed": true}\n' and (target / "cuda_check.json").read_text() == "{}\n"
    assert mode(target) == 0o755 and mode(target / "verify.json") == 0o644 and mode(target / "cuda_check.json") == 0o600
    assert sorted(os.listdir(target)) == ["cuda_check.json", "verify.json"]  # no temporary file left
    status, second = run_module(result_files, {"path": str(target), "files": files()})
    assert second["changed"] is False and second["written"] == []


def test_a_wrong_mode_is_fixed_without_rewriting_and_other_files_stay(tmp_path, run_module):
    target = tmp_path / "results"
    run_module(result_files, {"path": str(target), "files": files()})
    (target / "verify.json").chmod(0o666)
    (target / "other.txt").write_text("kept")
    before = os.stat(target / "verify.json").st_ino
    status, result = run_module(result_files, {"path": str(target), "files": files()})
    assert result["changed"] is True and result["written"] == []
    assert mode(target / "verify.json") == 0o644 and os.stat(target / "verify.json").st_ino == before
    assert (target / "other.txt").read_text() == "kept"


def test_an_existing_directory_keeps_its_mode_unless_one_is_given(tmp_path, run_module):
    target = tmp_path / "textfiles"
    target.mkdir()
    target.chmod(0o770)
    run_module(result_files, {"path": str(target), "files": files()[:1]})
    assert mode(target) == 0o770
    status, result = run_module(result_files, {"path": str(target), "directory_mode": "0755", "files": files()[:1]})
    assert result["changed"] is True and mode(target) == 0o755


def test_check_mode_and_diff_write_nothing(tmp_path, run_module):
    target = tmp_path / "results"
    args = {"path": str(target), "files": files(), "_ansible_check_mode": True, "_ansible_diff": True}
    status, result = run_module(result_files, args)
    assert status == "exit" and result["changed"] is True and not target.exists()
    assert [d["after_header"] for d in result["diff"]] == [str(target / "verify.json"), str(target / "cuda_check.json")]


def test_bad_requests_are_refused_before_anything_is_written(tmp_path, run_module):
    (tmp_path / "a-file").write_text("x")
    status, result = run_module(result_files, {"path": str(tmp_path / "a-file"), "files": files()})
    assert status == "fail" and result["msg"] == "path %s exists and is not a directory" % (tmp_path / "a-file")
    status, result = run_module(result_files, {"path": str(tmp_path / "r"), "files": [{"name": "x/y", "content": ""}]})
    assert status == "fail" and "files[0].name 'x/y' must be a plain file name" in result["msg"]
    assert not (tmp_path / "r").exists()
