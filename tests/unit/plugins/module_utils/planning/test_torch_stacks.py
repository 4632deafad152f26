from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stacks import parse_stack, stacks_to_prune

STACKS = [{"name": "torch-2.7.1-cu128", "mtime": 100}, {"name": "torch-2.8.0-cu128", "mtime": 200},
          {"name": "torch-2.9.1-cu128", "mtime": 300}, {"name": "torch-2.9.0-cu128", "mtime": 400},
          {"name": "lost+found", "mtime": 500}]


def test_parse_stack():
    assert parse_stack("/opt/pytorch/venvs/torch-2.9.1-cu128/") == {"version": "2.9.1", "channel": "cu128"}
    assert parse_stack("torch-2.9.1-src") == {"version": "2.9.1", "channel": "src"}
    assert parse_stack("venv") is None


def test_keep_newest_and_current():
    assert stacks_to_prune(STACKS, 2, "venvs/torch-2.9.1-cu128") == ["torch-2.8.0-cu128", "torch-2.7.1-cu128"]


def test_current_kept_even_when_oldest():
    assert stacks_to_prune(STACKS, 1, "torch-2.7.1-cu128") == [
        "torch-2.9.0-cu128", "torch-2.9.1-cu128", "torch-2.8.0-cu128"]


def test_nothing_to_prune():
    assert stacks_to_prune(STACKS, 10, None) == []


def test_keep_zero_is_refused():
    with pytest.raises(ValueError, match="keep must be at least 1"):
        stacks_to_prune(STACKS, 0, None)


def test_previous_is_kept_before_newer_ones():
    # a failed stack (2.9.0, newest) must not push out what a rollback returns to
    assert stacks_to_prune(STACKS, 2, "torch-2.9.1-cu128", "torch-2.7.1-cu128") == [
        "torch-2.9.0-cu128", "torch-2.8.0-cu128"]


def test_keep_one_keeps_only_current():
    assert "torch-2.7.1-cu128" in stacks_to_prune(STACKS, 1, "torch-2.9.1-cu128", "torch-2.7.1-cu128")


def test_find_results_with_paths():
    found = [{"path": "/opt/pytorch/venvs/torch-2.8.0-cu128", "mtime": 1.0},
             {"path": "/opt/pytorch/venvs/torch-2.9.1-cu128", "mtime": 2.0}]
    assert stacks_to_prune(found, 1, "venvs/torch-2.9.1-cu128") == ["torch-2.8.0-cu128"]
