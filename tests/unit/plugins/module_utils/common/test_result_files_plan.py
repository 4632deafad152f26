# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.result_files import (
    diffs, entry_errors, plan_files, request_errors)


def entry(name="verify.json", content="{}\n", mode="0644"):
    return {"name": name, "content": content, "mode": mode}


def test_plain_names_text_and_octal_modes_are_accepted():
    assert entry_errors([entry(), entry("fleet.html", "<html/>", "644"), entry("a_b-c.prom")]) == []


def test_every_bad_entry_is_named():
    errors = entry_errors([entry("../etc/passwd"), entry(".hidden"), entry("x.json", None), entry("y.json", mode="rw"),
                           entry("verify.json"), entry("verify.json")])
    assert errors == [
        "files[0].name '../etc/passwd' must be a plain file name (letters, digits, '.', '_', '-'; no directory part)",
        "files[1].name '.hidden' must be a plain file name (letters, digits, '.', '_', '-'; no directory part)",
        "files[2].content must be text",
        "files[3].mode 'rw' must be an octal mode such as 0644",
        "files[5].name verify.json appears twice"]


def test_the_directory_must_be_absolute_and_a_directory():
    assert request_errors("results", None, [entry()], "missing") == ["path results must be an absolute path"]
    assert request_errors("/var/lib/x", None, [entry()], "other") == ["path /var/lib/x exists and is not a directory"]
    assert request_errors("/var/lib/x", "755", [], "missing") == []
    assert request_errors("/var/lib/x", "u+rw", [], "dir") == ["directory_mode 'u+rw' must be an octal mode such as 0755"]


def test_only_files_whose_text_differs_are_written_and_diffed():
    there = {"/r/verify.json": "{}\n", "/r/cuda_check.json": "old\n"}
    planned = plan_files("/r", [entry(), entry("cuda_check.json", "new\n"), entry("fleet.md", "# x\n")], there.get)
    assert [(p["name"], p["path"], p["differs"]) for p in planned] == [
        ("verify.json", "/r/verify.json", False), ("cuda_check.json", "/r/cuda_check.json", True),
        ("fleet.md", "/r/fleet.md", True)]
    assert diffs(planned) == [
        {"before_header": "/r/cuda_check.json", "after_header": "/r/cuda_check.json", "before": "old\n", "after": "new\n"},
        {"before_header": "/r/fleet.md", "after_header": "/r/fleet.md", "before": "", "after": "# x\n"}]
