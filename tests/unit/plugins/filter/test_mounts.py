from __future__ import annotations

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.mounts import mount_for

MOUNTS = [
    {"mount": "/", "size_total": 100, "size_available": 40},
    {"mount": "/opt", "size_total": 500, "size_available": 300},
    {"mount": "/optional", "size_total": 10, "size_available": 1},
    {"mount": "/proc", "size_total": 0, "size_available": 0},
]


@pytest.mark.parametrize("path,mount", [
    ("/opt/pytorch/venvs", "/opt"), ("/opt", "/opt"), ("/optional/x", "/optional"),
    ("/usr/local/cuda-12.8", "/"), ("/opt/../usr", "/"),
])
def test_longest_prefix(path, mount):
    assert mount_for(path, MOUNTS)["mount"] == mount


def test_no_mounts():
    assert mount_for("/opt", []) == {}


def test_relative_path_refused():
    with pytest.raises(AnsibleFilterError):
        mount_for("opt", MOUNTS)
