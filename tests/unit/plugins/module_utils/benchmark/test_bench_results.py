from __future__ import annotations

import json
import os
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.figures import figure, peak_info
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.results import (
    SCHEMA, problems, schema_errors, write_json)

H100 = {"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0], "sm_count": 132}


def document():
    gemm = figure("gemm_bf16", {"m": 8192, "n": 8192, "k": 8192},
                  {"times_s": [1.39e-3] * 10, "check": {"ok": True, "rel_error": 1e-3, "bound": 1e-2}},
                  peak_info("gemm_bf16", H100))
    oom = figure("memcpy", {"mib": 4096}, {"error": "OutOfMemoryError: CUDA out of memory."},
                 peak_info("memcpy", H100))
    device = {"index": 0, "device": "cuda:0", "name": H100["name"], "uuid": "GPU-0e2d", "compute_capability": "9.0",
              "sm": "sm_90", "arch_family": "Hopper", "product_line": "datacenter", "sm_count": 132,
              "l2_bytes": 52428800, "memory_total_mib": 81079, "nvml": None, "status": "ok", "error": None,
              "seconds": 6.0, "figures": {"gemm_bf16": gemm, "memcpy": oom}}
    return {"schema": SCHEMA, "host": "h", "device": "cuda", "profile": "quick", "tests": ["gemm_bf16", "memcpy"],
            "started": "2026-11-20T10:00:00Z", "seconds": 9.3, "python": "/opt/torch/.venv/bin/python3",
            "torch": {"version": "2.11.0+cu130"}, "settings": {"reps": 10}, "nvml_error": None,
            "devices": [device], "multi_gpu": None, "gates": {"bounds": {}, "failures": []}}


def test_a_complete_document_matches_the_schema():
    assert schema_errors(document()) == []


def test_schema_errors_name_what_is_wrong():
    doc = document()
    del doc["torch"]
    doc["schema"] = "other/2"
    fig = doc["devices"][0]["figures"]["gemm_bf16"]
    del fig["peak_note"]
    fig["value"] = None
    doc["devices"][0]["figures"]["memcpy"].update(status="broken", peak_source="guess")
    assert schema_errors(doc) == [
        "document lacks torch", "schema is 'other/2', not %r" % SCHEMA,
        "devices[0].figures.gemm_bf16 lacks peak_note", "devices[0].figures.gemm_bf16 is ok without a value",
        "devices[0].figures.memcpy has status 'broken'", "devices[0].figures.memcpy has peak_source 'guess'"]


def test_problems_list_what_gave_no_figure():
    doc = document()
    doc["multi_gpu"] = {"status": "timeout", "error": "timed out after 120 s", "figures": {}}
    assert problems(doc) == [
        "cuda:0 (NVIDIA H100 80GB HBM3): memcpy failed: OutOfMemoryError: CUDA out of memory.",
        "multi-GPU benchmark child timeout: timed out after 120 s"]


def test_problems_name_a_figure_taken_without_the_gpu_lock():
    doc = document()
    doc["devices"][0]["figures"].pop("memcpy")
    doc["devices"][0]["gpu_lock"] = {"path": "/run/lock/x", "mode": "exclusive", "held": False, "waited_s": 30.0,
                                     "error": "another process held /run/lock/x for 30.0 s: went on without it"}
    assert problems(doc) == ["cuda:0 (NVIDIA H100 80GB HBM3): measured without the host's GPU lock: another "
                             "process held /run/lock/x for 30.0 s: went on without it"]
    doc["devices"][0]["gpu_lock"].update(held=True, error=None)
    assert problems(doc) == []


def test_write_is_atomic_with_mode_0644(tmp_path):
    dest = tmp_path / "benchmark.json"
    dest.write_text("old")
    old_umask = os.umask(0o077)
    try:
        write_json(str(dest), document())
    finally:
        os.umask(old_umask)
    assert stat.S_IMODE(dest.stat().st_mode) == 0o644
    assert json.loads(dest.read_text())["devices"][0]["figures"]["gemm_bf16"]["status"] == "ok"
    assert os.listdir(str(tmp_path)) == ["benchmark.json"]


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path):
    dest = tmp_path / "benchmark.json"
    dest.write_text("old")
    with pytest.raises(TypeError):
        write_json(str(dest), {"not json": object()})
    assert dest.read_text() == "old"
    assert os.listdir(str(tmp_path)) == ["benchmark.json"]
