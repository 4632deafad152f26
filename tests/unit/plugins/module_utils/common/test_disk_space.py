from __future__ import annotations

import collections
import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.disk_space import (
    free_bytes, mount_point, nearest_existing, space_report)

Stat = collections.namedtuple("Stat", "f_bavail f_frsize f_blocks")
EXISTING = {"/", "/opt", "/srv", "/srv/data"}
MOUNTS = {"/", "/srv/data"}


def fake_statvfs(path):
    free_blocks = {"/opt": 5 * 2 ** 18, "/srv/data": 300 * 2 ** 18}[path]  # 4 KiB blocks: 5 / 300 GiB
    return Stat(free_blocks, 4096, 1000 * 2 ** 18)


def report(path, need):
    return space_report(path, need, fake_statvfs, EXISTING.__contains__, MOUNTS.__contains__)


def test_missing_path_measured_at_its_ancestor():
    assert report("/opt/pytorch/venvs", 20) == {
        "path": "/opt/pytorch/venvs", "measured_at": "/opt", "mount": "/", "free_gib": 5.0,
        "total_gib": 1000.0, "min_free_gib": 20.0, "ok": False}


def test_own_mount():
    got = report("/srv/data/venvs", 20)
    assert (got["measured_at"], got["mount"], got["free_gib"], got["ok"]) == ("/srv/data", "/srv/data", 300.0, True)


def test_nearest_existing_and_mount_point_stop_at_root():
    assert nearest_existing("/a/b/c", lambda p: False) == "/"
    assert mount_point("/x/y", lambda p: False) == "/"


@pytest.mark.parametrize("path,need", [("relative/path", 1), ("/opt", -1)])
def test_bad_input(path, need):
    with pytest.raises(ValueError):
        report(path, need)


def test_real_filesystem(tmp_path):
    got = space_report(str(tmp_path / "not" / "yet"), 0)
    assert got["measured_at"] == str(tmp_path)
    assert got["ok"] is True and got["total_gib"] > 0 and os.path.ismount(got["mount"])


def test_free_bytes_counts_what_unprivileged_users_get_where_the_path_will_live():
    free, measured = free_bytes("/opt/pytorch/venvs/new", fake_statvfs, EXISTING.__contains__)
    assert (free, measured) == (5 * 2 ** 30, "/opt")


@pytest.mark.parametrize("path", ["opt", "", "a/b", "./a/../b", "."])
def test_nearest_existing_and_mount_point_end_for_a_relative_path(path):
    """A relative path ends at "." (the directory it is relative to) instead of looping on dirname("") == ""."""
    assert nearest_existing(path, lambda p: False) == "."
    assert mount_point(path, lambda p: False) == "."


def test_nearest_existing_of_a_relative_path_is_its_existing_part(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    assert nearest_existing("a/b/c") == "a"
    assert nearest_existing("opt") == "."
