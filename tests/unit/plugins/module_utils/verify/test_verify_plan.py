from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.filter.verify import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.benchmark.gpu_peaks import product_line
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.catalogue import PRODUCTS
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.pci_ids import PCI_IDS
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import plan

F = FilterModule().filters()
SLOWDOWNS = ["hw_thermal_slowdown", "hw_slowdown", "hw_power_brake_slowdown"]


def request(**changes):
    base = {"device": "cuda", "profile": "quick", "tests": [], "sizes": {}, "sustained_seconds": 25, "gates": {},
            "forbid_clock_reasons": SLOWDOWNS, "gpu_name": "NVIDIA H100 80GB HBM3"}
    base.update(changes)
    return base


def test_gate_on_test_the_profile_does_not_run_is_refused():
    got = F["verify_plan"](request(gates={"sustained": {"min_sustained_ratio": 0.7}}))
    assert got["errors"] == ["verify_gates: gate on sustained can never fire: profile quick does not run sustained "
                             "(profiles that run it: standard, full; or list it in verify_tests)"]
    full_only = F["verify_plan"](request(profile="standard", gates={"resnet50": {"min_images_per_s": 100}}))
    assert full_only["errors"] == ["verify_gates: gate on resnet50 can never fire: profile standard does not run "
                                   "resnet50 (profiles that run it: full; or list it in verify_tests)"]


def test_gate_on_test_not_in_verify_tests_is_refused():
    got = F["verify_plan"](request(tests=["gemm_fp32"], gates={"gemm_fp32": {"min_tflops": 1},
                                                               "memcpy": {"min_gbps": 10}}))
    assert got["errors"] == ["verify_gates: gate on memcpy can never fire: verify_tests (gemm_fp32) does not list "
                             "memcpy (profiles that run it: quick, standard, full; or add it to verify_tests)"]
    assert plan.gate_errors({"memcpy": {"min_gbps": 10}}, "cuda", "quick", ["gemm_fp32"]) == [
        got["errors"][0][len("verify_gates: "):]]


def test_gate_on_a_test_the_device_cannot_run_is_refused():
    got = F["verify_plan"](request(device="cpu", tests=["gemm_fp32", "gemm_fp8"], gates={"gemm_fp8": {"min_tflops": 1}}))
    assert got["errors"] == ["verify_gates: gate on gemm_fp8 can never fire: device cpu cannot run gemm_fp8 "
                             "(needs device cuda)"]


def test_gates_the_run_can_evaluate_are_accepted_as_given():
    gates = {"sustained": {"min_sustained_ratio": 0.7}, "gemm_bf16": {"min_fraction_of_peak": 0.5}}
    got = F["verify_plan"](request(profile="standard", gates=gates))
    assert got["errors"] == [] and got["gates"] == gates
    assert got["sizes"] == {"sustained": {"seconds": 25}}
    # bound errors still come from torch_benchmark's own checks
    assert F["verify_plan"](request(gates={"gemm_bf16": {"min_fraction_of_peak": 1.5}}))["errors"][0].startswith(
        "verify_gates: gate gemm_bf16.min_fraction_of_peak is a fraction from 0 to 1")


def line_gates(got, line):
    """The default gates the plan gives GPUs of a product line (its gpu_gates entry for that line)."""
    return [entry["gates"] for entry in got["gpu_gates"] if entry.get("line") == line][0]


def test_default_gates_on_tests_the_profile_does_not_run_are_not_applied():
    quick = F["verify_plan"](request())
    assert quick["errors"] == [] and quick["product_line"] == "datacenter" and quick["gates"] == {}
    assert line_gates(quick, "datacenter") == {"gemm_bf16": {"min_fraction_of_peak": 0.6},
                                               "memcpy": {"min_fraction_of_peak": 0.6}}
    standard = F["verify_plan"](request(profile="standard", gpu_name="NVIDIA GeForce RTX 5090"))
    assert line_gates(standard, "geforce")["sustained"] == {"min_fraction_of_peak": 0.4, "min_sustained_ratio": 0.6,
                                                            "forbid_clock_reasons": SLOWDOWNS}
    only = F["verify_plan"](request(tests=["memcpy"]))
    assert line_gates(only, "datacenter") == {"memcpy": {"min_fraction_of_peak": 0.6}} and only["errors"] == []
    cpu = F["verify_plan"](request(device="cpu", profile="standard"))
    assert cpu["gates"] == {} and cpu["gpu_gates"] == [] and cpu["product_line"] == "cpu" and cpu["errors"] == []


def test_each_gpu_of_a_mixed_host_takes_its_own_lines_defaults():
    got = F["verify_plan"](request(gpu_names=["NVIDIA GeForce RTX 4090", "NVIDIA RTX PRO 6000 Blackwell Workstation Edition"]))
    assert got["product_lines"] == ["geforce", "workstation"] and got["product_line"] == "geforce"
    assert [entry["line"] for entry in got["gpu_gates"]] == ["datacenter", "workstation", "geforce"]
    assert line_gates(got, "geforce")["gemm_bf16"] == {"min_fraction_of_peak": 0.5}
    assert line_gates(got, "datacenter")["gemm_bf16"] == {"min_fraction_of_peak": 0.6}


def test_user_gpu_gates_come_before_the_defaults_and_are_checked_like_gates():
    mine = [{"model": "NVIDIA GeForce RTX 4090", "gates": {"gemm_bf16": {"min_tflops": 120}}}]
    got = F["verify_plan"](request(gpu_names=["NVIDIA GeForce RTX 4090"], gpu_gates=mine))
    assert got["errors"] == [] and got["gpu_gates"][0] == mine[0] and len(got["gpu_gates"]) == 4
    with_common = F["verify_plan"](request(gates={"memcpy": {"min_gbps": 100}}, gpu_gates=mine))
    assert with_common["gates"] == {"memcpy": {"min_gbps": 100}} and with_common["gpu_gates"] == mine
    bad = F["verify_plan"](request(gpu_gates=[{"index": -1, "gates": {"sustained": {"min_sustained_ratio": 0.7}}},
                                              {"gates": {"p2p": {"min_gbps": 1}}}]))
    assert bad["errors"] == [
        "verify_gpu_gates: gpu_gates[0].index must be a GPU index (0, 1, ...), got -1",
        "verify_gpu_gates: gpu_gates[1] names no GPU: give model (the exact name), index or line",
        "verify_gpu_gates: gpu_gates[1] gates p2p, figures between GPUs: give them in the common gates",
        "verify_gpu_gates: gpu_gates[0]: gate on sustained can never fire: profile quick does not run sustained "
        "(profiles that run it: standard, full; or list it in verify_tests)"]
    assert F["verify_plan"](request(gpu_gates="fast"))["refusals"] == [
        "verify_gpu_gates must be a list of {model | index | line, gates}"]


def test_a_bad_forbidden_reason_in_the_default_gates_is_refused_under_its_own_name():
    got = F["verify_plan"](request(profile="standard", forbid_clock_reasons=["too_hot"]))
    assert got["errors"] and got["errors"][0].startswith(
        "verify_forbid_clock_reasons: gate sustained.forbid_clock_reasons names unknown reason(s) too_hot")


def _known_names():
    names = set(PRODUCTS) | set(PCI_IDS.values())
    # names the regex the role used before classified apart from gpu_peaks
    return sorted(names | {"NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA TITAN RTX", "Quadro RTX 8000"})


@pytest.mark.parametrize("name", _known_names())
def test_verify_line_equals_gpu_peaks_product_line_for_every_known_gpu(name):
    assert F["verify_plan"](request(gpu_name=name))["product_line"] == product_line(name)


def test_rtx_4000_sff_ada_and_titan_rtx_are_workstation_cards():
    for name in ("NVIDIA RTX 4000 SFF Ada Generation", "NVIDIA TITAN RTX"):
        got = F["verify_plan"](request(gpu_name=name))
        assert got["product_line"] == "workstation" and line_gates(got, "workstation")["gemm_bf16"] == {
            "min_fraction_of_peak": 0.5}


def test_settings_follow_profile_tests_sizes_and_gates():
    base = plan.settings(request())
    assert base == {"device": "cuda", "profile": "quick", "tests": plan.tests_run("quick", []), "sizes": {},
                    "gates": {}, "gpu_gates": [], "forbid_clock_reasons": sorted(SLOWDOWNS)}
    assert plan.settings(request(gpu_name="NVIDIA GeForce RTX 5090")) == base  # the GPU is in the fingerprint already
    for change in ({"profile": "standard"}, {"tests": ["memcpy"]}, {"sizes": {"memcpy": {"bytes": 1 << 20}}},
                   {"gates": {"memcpy": {"min_gbps": 1}}}, {"forbid_clock_reasons": []}, {"device": "cpu"},
                   {"gpu_gates": [{"index": 1, "gates": {"memcpy": {"min_gbps": 1}}}]}, {"nvls": True}):
        assert plan.settings(request(**change)) != base, change
    assert plan.settings(request(nvls=False)) == base  # off is the default: results stored before it still stand
    # the sustained test's length counts only when it runs
    assert plan.settings(request(sustained_seconds=10)) == base
    assert plan.settings(request(profile="standard", sustained_seconds=10)) != plan.settings(request(profile="standard"))
