# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A GPU child does the CPU work a part can do ahead (the Triton probe's compile) before it takes the
host's GPU lock, so a benchmark waiting for the lock waits for kernels only."""
from __future__ import annotations

import glob
import os
import tempfile

from ansible_collections.blackwell.pytorch.plugins.module_utils.kernel_check import child_gpu, probes


def test_prepare_runs_before_the_gpu_lock_and_the_parts_after_it(monkeypatch):
    calls = []

    def init(index, out):
        out["init"] = {"status": "ok", "error": None}
        return (9, 0)

    def lock(path, shared, wait):
        calls.append(("lock", path, shared))
        return {"waited_s": 0.25, "held": True}

    def function(part, table=None):
        def run(index, capability, out):
            calls.append(("prepare" if table is child_gpu.PREPARE else "run", part))
            return {"status": "ok"}
        return run

    monkeypatch.setattr(child_gpu, "init_cuda", init)
    monkeypatch.setattr(child_gpu, "acquire", lock)
    monkeypatch.setattr(child_gpu, "part_function", function)
    emitted = []
    child_gpu.main(["0", "ops,probes", "/run/lock/x.lock", "5"], emitted.append)
    assert calls == [("prepare", "probes"), ("lock", "/run/lock/x.lock", True), ("run", "ops"), ("run", "probes")]
    last = emitted[-1]
    assert last["prepared"] == {"probes": {"status": "ok"}}
    assert set(last["phases"]) == {"prepare_probes", "gpu_lock_wait", "ops", "probes"}
    assert last["phases"]["gpu_lock_wait"] == 0.25


def test_parts_without_a_preparation_take_the_lock_at_once(monkeypatch):
    monkeypatch.setattr(child_gpu, "init_cuda", lambda index, out: out.update(init={"status": "ok"}) or (12, 0))
    monkeypatch.setattr(child_gpu, "acquire", lambda path, shared, wait: {"waited_s": 0.0})
    monkeypatch.setattr(child_gpu, "part_function", lambda part, table=None: lambda index, capability, out: "done")
    emitted = []
    child_gpu.main(["0", "ops,sass", "/run/lock/x.lock"], emitted.append)
    assert "prepared" not in emitted[-1] and emitted[-1]["sass"] == "done"


def test_the_prepare_table_names_real_functions():
    for part in child_gpu.PREPARE:
        assert part in child_gpu.PARTS and callable(child_gpu.part_function(part, child_gpu.PREPARE))


def test_a_failed_preparation_is_reported_and_leaves_no_folder(monkeypatch):
    before = set(glob.glob(os.path.join(tempfile.gettempdir(), "blackwell-triton-*")))
    monkeypatch.setattr(probes, "TRITON_KERNEL", "import triton_that_is_not_there\n")
    result = probes.prepare_probes(0, (12, 0), {})
    assert result["status"] == "failed" and result["error"].startswith("ModuleNotFoundError")
    assert "triton" not in probes._PREPARED
    assert set(glob.glob(os.path.join(tempfile.gettempdir(), "blackwell-triton-*"))) == before
