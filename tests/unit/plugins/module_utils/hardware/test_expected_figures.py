"""The expected-figure table: every row has a source and a method, names a product, a test and a size the
suite really runs, and holds a fraction a healthy GPU can reach."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import PROFILES, TESTS, resolve_sizes, size_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import expected_figures
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import product
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.suite import spec_of


def _sizes_run():
    """Every (test, size text) a profile runs on a GPU."""
    found = set()
    for profile in PROFILES:
        sizes, errors = resolve_sizes(list(TESTS), profile, "cuda", {})
        assert errors == []
        found |= set((name, size_text(name, size)) for name, size in sizes.items())
    return found


def test_every_row_has_a_source_a_known_product_and_a_size_the_suite_runs():
    runs = _sizes_run()
    assert expected_figures.REFERENCES
    for (model, test, size, backend, profile), (fraction, source) in expected_figures.REFERENCES.items():
        assert profile == (None if test == "sustained" else "quick"), (model, test, profile)
        assert product(model) is not None, model
        assert spec_of(test)["peak_kind"] is not None, (model, test)
        assert (test, size) in runs, (test, size)
        assert backend == ("CUDNN_ATTENTION" if test == "sdpa" else None)
        assert 0.05 < fraction <= 1.0, (model, test, fraction)
        assert expected_figures.SOURCES[source].startswith("measured on "), source


def test_a_reference_names_its_source_and_method():
    got = expected_figures.reference("NVIDIA H200", "softmax", "rows=16384 cols=8192 bf16")
    assert got == {"fraction_of_peak": 0.22, "source": expected_figures.SOURCES["h200"],
                   "basis": expected_figures.METHOD}
    assert "torch 2.11.0+cu130" in got["source"] and "median of >= 10 repetitions" in got["basis"]


def test_no_reference_for_another_size_backend_or_model():
    assert expected_figures.reference("NVIDIA H200", "softmax", "rows=32768 cols=8192 bf16") is None
    assert expected_figures.reference("NVIDIA H200", "sdpa", "batch=8 heads=16 seq=2048 head_dim=128 bf16",
                                      "FLASH_ATTENTION") is None
    assert expected_figures.reference("NVIDIA GeForce RTX 5090", "gemm_bf16", "m=8192 n=8192 k=8192 bf16") is None
    assert expected_figures.reference(None, "gemm_bf16", "m=8192 n=8192 k=8192 bf16") is None
    assert expected_figures.reference(" NVIDIA H200 ", "memcpy", "mib=1024")["fraction_of_peak"] == 0.88
    assert expected_figures.reference("NVIDIA H100 80GB HBM3", "d2h", "mib=256") is None  # host-dependent: peers only


def test_a_reference_holds_for_the_profile_it_was_measured_with_and_the_sustained_one_for_every_profile():
    """gemm_fp8 at 8192 on a healthy H100: 1439 TFLOP/s in quick runs, 1201 in a standard run (20 repetitions
    let power and clocks settle): the quick row does not judge a standard figure."""
    size = "m=8192 n=8192 k=8192 fp8"
    assert expected_figures.reference("NVIDIA H100 80GB HBM3", "gemm_fp8", size)["fraction_of_peak"] == 0.69
    assert expected_figures.reference("NVIDIA H100 80GB HBM3", "gemm_fp8", size, profile="standard") is None
    sustained = "m=8192 n=8192 k=8192 seconds=25 bf16"
    assert expected_figures.reference("NVIDIA H100 80GB HBM3", "sustained", sustained, profile="standard")[
        "fraction_of_peak"] == 0.68
