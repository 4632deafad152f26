# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import collections

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import stack_space

StatVfs = collections.namedtuple("StatVfs", "f_bavail f_frsize f_blocks")


def _fs(free_bytes):
    return lambda path: StatVfs(free_bytes // 4096, 4096, 1 << 20)


def test_sizes_read_in_the_unit_that_fits():
    assert stack_space.size_text(8 << 20) == "8.0 MiB"
    assert stack_space.size_text(int(12.34 * (1 << 30))) == "12.3 GiB"


def _exists(path):
    return path in ("/", "/opt")  # the stack's directories do not exist yet


def test_enough_space_is_no_refusal_and_too_little_names_path_free_needed_and_variable():
    exists = _exists
    directory = "/opt/pytorch/venvs/torch-2.9.1-cu130"
    assert stack_space.space_refusal(directory, "torch-2.9.1-cu130", 8, _fs(9 << 30), exists) is None
    text = stack_space.space_refusal(directory, "torch-2.9.1-cu130", 8, _fs(3 << 30), exists)
    assert text == ("not enough disk for the stack torch-2.9.1-cu130: %s has 3.0 GiB free (measured at /opt), the "
                    "install needs 8.0 GiB (pytorch_stack option min_free_gib): free space there, or set pytorch_root "
                    "to a directory on a filesystem with room, and run the play again. Nothing was created." % directory)


def test_a_full_disk_is_told_from_other_failures():
    assert stack_space.disk_full("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device")
    assert stack_space.disk_full("OSError: [Errno 122] Disk quota exceeded")
    assert not stack_space.disk_full("ERROR: No matching distribution found for torch==2.9.1+cu130")
