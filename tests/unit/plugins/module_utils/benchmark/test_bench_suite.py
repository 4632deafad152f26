from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import (
    MIB, PROFILE_TESTS, PROFILES, TESTS, resolve_sizes, select_tests, size_text, skip_reason, spec_of)


def test_every_test_has_a_size_for_each_profile_and_for_cpu_where_it_runs_there():
    for name in TESTS:
        spec = spec_of(name)
        places = list(PROFILES) + (["cpu"] if "cpu" in spec["devices"] else [])
        for place in places:
            size = spec["sizes"][place]
            assert sorted(size) == sorted(spec["keys"]), (name, place)
            assert all(isinstance(value, int) and value > 0 for value in size.values()), (name, place)
        assert ("cpu" in spec["sizes"]) == ("cpu" in spec["devices"]), name
        assert spec["counts"] and spec["unit"]


def test_profiles_select_in_suite_order_and_full_adds_model_tests():
    quick, quick_errors = select_tests("quick", None)
    full, full_errors = select_tests("full", None)
    assert quick_errors == full_errors == []
    assert quick == [name for name in TESTS if name in PROFILE_TESTS["quick"]]
    assert quick[:2] == ["gemm_fp16", "gemm_bf16"] and "allreduce" in quick
    low_precision = {"gemm_fp8_rowwise", "gemm_mxfp8", "gemm_mxfp8_nn", "gemm_nvfp4", "gemm_grouped_fp8"}
    assert set(full) - set(quick) == {"sustained", "transformer_encoder", "resnet50", "compile_speedup"} | low_precision
    standard, dummy = select_tests("standard", None)
    assert set(standard) - set(quick) == {"sustained"} | low_precision and "sustained_fp16" not in full
    assert "gemm_fp8" in quick  # the per-tensor FP8 GEMM stays in quick, which keeps its time
    assert select_tests("quick", ["memcpy", "gemm_bf16"]) == (["gemm_bf16", "memcpy"], [])


def test_unknown_test_names_are_refused():
    names, errors = select_tests("quick", ["gemm_bf16", "gemm_bf17", "matmul"])
    assert names == []
    assert errors[0].startswith("unknown test(s): gemm_bf17, matmul; known tests: gemm_fp16, gemm_bf16")


def test_sizes_per_profile_device_and_overrides():
    sizes, errors = resolve_sizes(["gemm_fp32", "memcpy"], "quick", "cuda", {"memcpy": {"mib": 4096}})
    assert errors == []
    assert sizes == {"gemm_fp32": {"m": 4096, "n": 4096, "k": 4096}, "memcpy": {"mib": 4096}}
    assert resolve_sizes(["gemm_fp32"], "standard", "cuda", {"gemm_fp32": {"k": 1024}}) == (
        {"gemm_fp32": {"m": 8192, "n": 8192, "k": 1024}}, [])
    assert resolve_sizes(["gemm_fp32", "allreduce"], "full", "cpu", {}) == (
        {"gemm_fp32": {"m": 256, "n": 256, "k": 256}, "allreduce": {"mib": 8}}, [])


@pytest.mark.parametrize("override, error", [
    ({"gemm_bf16": {"m": 0}}, "size gemm_bf16.m must be a positive integer, got 0"),
    ({"gemm_bf16": {"k": -8}}, "size gemm_bf16.k must be a positive integer, got -8"),
    ({"gemm_bf16": {"n": "big"}}, "size gemm_bf16.n must be a positive integer, got 'big'"),
    ({"gemm_bf16": {"n": True}}, "size gemm_bf16.n must be a positive integer, got True"),
    ({"gemm_bf16": {"q": 8}}, "unknown size key 'q' for gemm_bf16; keys: m, n, k"),
    ({"gemm_fp8": {"k": 1000}}, "size gemm_fp8.k must be a multiple of 16, got 1000"),
    ({"memcpy": 4096}, "sizes.memcpy must be a dict of mib"),
    ({"softmax": {"rows": 8}}, "sizes given for tests not run: softmax"),
])
def test_bad_sizes_are_refused(override, error):
    errors = resolve_sizes(["gemm_bf16", "gemm_fp8", "memcpy"], "quick", "cuda", override)[1]
    assert error in errors


@pytest.mark.parametrize("name, device, capability, gpus, reason", [
    ("gemm_bf16", "cuda", (9, 0), 1, None),
    ("gemm_fp8", "cuda", (8, 9), 1, None),
    ("gemm_fp8", "cuda", (8, 6), 1, "needs compute capability >= 8.9"),
    ("gemm_fp8", "cpu", None, None, "needs device cuda"),
    ("h2d", "cpu", None, None, "needs device cuda"),
    ("p2p", "cuda", (9, 0), 1, "needs 2 or more GPUs"),
    ("p2p", "cuda", (9, 0), 2, None),
    ("allreduce", "cpu", None, None, None),
    ("allreduce", "cuda", None, None, None),  # GPU count not known yet: not refused
    ("gemm_mxfp8", "cuda", (9, 0), 1, "not supported on sm_90: MXFP8 needs compute capability 10.0+"),
    ("gemm_mxfp8_nn", "cuda", (8, 9), 1, "not supported on sm_89: MXFP8 needs compute capability 10.0+"),
    ("gemm_nvfp4", "cuda", (9, 0), 1, "not supported on sm_90: NVFP4 needs compute capability 10.0+"),
    ("gemm_nvfp4", "cuda", (12, 0), 1, None),  # sm_120: tried, and refused by what torch or cuBLAS says
    ("gemm_fp8_rowwise", "cuda", (8, 6), 1, "not supported on sm_86: FP8 row-wise needs compute capability 8.9+"),
    ("gemm_grouped_fp8", "cuda", (9, 0), 1, None),
    ("gemm_grouped_fp8", "cpu", None, None, "needs device cuda"),
])
def test_skip_reason(name, device, capability, gpus, reason):
    assert skip_reason(name, device, capability, gpus) == reason


def test_each_test_names_its_size_and_what_it_counts():
    assert size_text("gemm_bf16", {"m": 8192, "n": 8192, "k": 8192}) == "m=8192 n=8192 k=8192 bf16"
    assert size_text("gemm_grouped_fp8", {"groups": 8, "m": 2048, "n": 4096, "k": 4096}) == \
        "groups=8 m=2048 n=4096 k=4096 fp8"
    assert spec_of("gemm_grouped_fp8")["work"]({"groups": 8, "m": 2048, "n": 4096, "k": 4096}, 1) == \
        2.0 * 8 * 2048 * 4096 * 4096
    assert [spec_of(name)["peak_kind"] for name in ("gemm_fp8_rowwise", "gemm_mxfp8", "gemm_nvfp4")] == \
        ["fp8", "fp8", "fp4"]
    assert size_text("memcpy", {"mib": 1024}) == "mib=1024"
    assert size_text("h2d", {}) == ""  # no size on a device it does not run on
    assert spec_of("memcpy")["counts"] == "bytes read + bytes written by a device-to-device copy"


@pytest.mark.parametrize("name, size, world, work", [
    ("gemm_bf16", {"m": 8192, "n": 8192, "k": 8192}, 1, 2.0 * 8192 ** 3),
    ("gemm_batched", {"batch": 32, "m": 1024, "n": 1024, "k": 1024}, 1, 2.0 * 32 * 1024 ** 3),
    ("memcpy", {"mib": 1024}, 1, 2.0 * 1024 * MIB),
    ("sdpa", {"batch": 8, "heads": 16, "seq": 2048, "head_dim": 128}, 1, 4.0 * 8 * 16 * 2048 ** 2 * 128),
    ("conv2d", {"batch": 32, "channels": 256, "height": 56, "width": 56, "kernel": 3}, 1,
     2.0 * 32 * 256 * 256 * 9 * 56 * 56),
    ("layernorm", {"rows": 16384, "cols": 8192}, 1, 4.0 * 16384 * 8192),
    ("allreduce", {"mib": 256}, 2, 256.0 * MIB),
    ("allreduce", {"mib": 256}, 8, 256.0 * MIB * 2 * 7 / 8),
])
def test_what_each_test_counts(name, size, world, work):
    assert spec_of(name)["work"](size, world) == pytest.approx(work)
