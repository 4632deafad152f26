# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.run import lock_plan


def test_a_child_waits_for_the_gpu_lock_a_quarter_of_its_timeout():
    assert lock_plan({"gpu_lock": "/run/lock/blackwell-pytorch-gpu.lock"}, {"timeout": 120}) == {
        "gpu_lock": "/run/lock/blackwell-pytorch-gpu.lock", "gpu_lock_wait_s": 30.0}


def test_an_empty_path_takes_no_lock():
    assert lock_plan({"gpu_lock": ""}, {"timeout": 300})["gpu_lock"] is None
    assert lock_plan({}, {"timeout": 300}) == {"gpu_lock": None, "gpu_lock_wait_s": 75.0}
