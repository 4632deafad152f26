from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import (
    image_runs_on, images_by_kind, kernel_image_verdict, parse_image, verdict_at_least)

# Real torch.cuda.get_arch_list() outputs (docs/domain.md section 4).
CU130_2_11 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
CU126_2_7 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU128_2_9 = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
PTX_UP_TO_90 = ["sm_80", "sm_86", "sm_90", "compute_90"]


@pytest.mark.parametrize("capability,image,exact", [("12.0", "sm_120", True), ("9.0", "sm_90", True),
                                                    ("8.0", "sm_80", True), ("10.0", "sm_100", True)])
def test_cu130_native_exact(capability, image, exact):
    verdict = kernel_image_verdict(CU130_2_11, capability)
    assert (verdict["verdict"], verdict["image"], verdict["exact"]) == ("native", image, exact)
    assert verdict["forward_compatible"] is False and verdict["ptx_image"] is None
    assert verdict["reason"] == "the build has %s SASS" % image


def test_cu130_on_ada_runs_ampere_sass():
    verdict = kernel_image_verdict(CU130_2_11, "sm_89")
    assert verdict == {"verdict": "native", "image": "sm_86", "exact": False, "ptx_image": None,
                       "forward_compatible": False, "reason": "sm_86 SASS runs natively on sm_89"}


def test_gb10_runs_sm_120_sass():
    verdict = kernel_image_verdict(CU128_2_9, (12, 1))
    assert (verdict["verdict"], verdict["image"], verdict["exact"]) == ("native", "sm_120", False)


def test_cu126_on_blackwell_is_none():
    verdict = kernel_image_verdict(CU126_2_7, "12.0")
    assert verdict == {"verdict": "none", "image": None, "exact": False, "ptx_image": None,
                       "forward_compatible": False, "reason": "no sm_120 SASS and no PTX <= compute_120"}


def test_sm_90_sass_never_runs_on_a_newer_major():
    assert kernel_image_verdict(CU126_2_7, "10.0")["verdict"] == "none"


def test_newest_entry_compute_90_on_blackwell_is_ptx_jit():
    verdict = kernel_image_verdict(PTX_UP_TO_90, "12.0")
    assert verdict == {"verdict": "ptx_jit", "image": "compute_90", "exact": False, "ptx_image": "compute_90",
                       "forward_compatible": True,
                       "reason": "no sm_120 SASS; PTX compute_90 is JIT-compiled by the driver at first use"}


def test_native_beats_ptx_and_names_both():
    verdict = kernel_image_verdict(PTX_UP_TO_90, "9.0")
    assert (verdict["verdict"], verdict["image"], verdict["ptx_image"]) == ("native", "sm_90", "compute_90")


def test_wheel_older_than_the_gpu_is_none():
    assert kernel_image_verdict(CU130_2_11, "7.0")["verdict"] == "none"  # CUDA 13 dropped sm_70


@pytest.mark.parametrize("capability,verdict,image", [
    ("9.0", "native", "sm_90a"), ("10.0", "none", None), ("12.0", "none", None)])
def test_arch_specific_sass_only_on_exactly_that_arch(capability, verdict, image):
    result = kernel_image_verdict(["sm_90a"], capability)
    assert (result["verdict"], result["image"]) == (verdict, image)


def test_arch_specific_is_preferred_at_equal_capability():
    assert kernel_image_verdict(["sm_90", "sm_90a"], "9.0")["image"] == "sm_90a"
    assert kernel_image_verdict(["sm_90", "sm_90a"], "9.0")["exact"] is True


@pytest.mark.parametrize("entry,capability,runs", [
    ("sm_100f", (10, 3), True), ("sm_100f", (10, 0), True), ("sm_103f", (10, 0), False),
    ("sm_100f", (12, 0), False), ("compute_100f", (10, 3), True), ("compute_100f", (12, 0), False),
    ("compute_90a", (9, 0), True), ("compute_90a", (12, 0), False), ("compute_75", (12, 1), True),
    ("compute_120", (9, 0), False), ("sm_86", (8, 9), True), ("sm_89", (8, 6), False),
])
def test_image_runs_on(entry, capability, runs):
    assert image_runs_on(parse_image(entry), capability) is runs


def test_arch_specific_ptx_is_not_forward_compatible():
    verdict = kernel_image_verdict(["sm_90", "compute_90a"], "9.0")
    assert (verdict["ptx_image"], verdict["forward_compatible"]) == ("compute_90a", False)


def test_images_by_kind_keeps_order_and_sets_aside_non_cuda_names():
    assert images_by_kind(["sm_75", "compute_90", "sm_120", "gfx90a", "sm_x"]) == {
        "sass": ["sm_75", "sm_120"], "ptx": ["compute_90"], "other": ["gfx90a", "sm_x"]}
    assert images_by_kind([]) == {"sass": [], "ptx": [], "other": []}


def test_parse_image():
    assert parse_image("SM_90a") == {"name": "sm_90a", "kind": "sass", "capability": (9, 0), "variant": "a"}
    assert parse_image("compute_120") == {"name": "compute_120", "kind": "ptx", "capability": (12, 0),
                                          "variant": ""}
    assert parse_image("gfx942") is None


def test_verdict_at_least():
    assert verdict_at_least("native", "ptx_jit") and verdict_at_least("ptx_jit", "ptx_jit")
    assert not verdict_at_least("ptx_jit", "native") and not verdict_at_least("none", "ptx_jit")
