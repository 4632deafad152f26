from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import (
    channel_verdicts, default_version, hashes_file_mismatches, installed_mismatches, parse_cuda,
    requirement_pins, resolve_stack, resolve_version, source_channel, stack_name)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions as controller_versions
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
RTX4090 = {"index": 1, "name": "NVIDIA GeForce RTX 4090", "compute_capability": "8.9", "sm": "sm_89"}
H100 = {"index": 0, "name": "NVIDIA H100 80GB HBM3", "compute_capability": "9.0", "sm": "sm_90"}
B200 = {"index": 0, "name": "NVIDIA B200", "sm": "sm_100"}


def refusal(function, *args, **kwargs):
    """The message of the PlanError `function` raises (it must raise one)."""
    with pytest.raises(PlanError) as refused:
        function(*args, **kwargs)
    return str(refused.value)


def test_stack_name():
    assert stack_name("2.9.1+cu128", "cu128") == "torch-2.9.1-cu128"
    assert stack_name("2.11.0", None) == "torch-2.11.0-pypi"


@pytest.mark.parametrize("text,cuda", [("13.0", (13, 0)), ("12.8.93", (12, 8)), (13000, (13, 0)),
                                       ("12080", (12, 8)), ("", None), (None, None), ("x", None)])
def test_parse_cuda(text, cuda):
    assert parse_cuda(text) == cuda


def test_resolve_version_forms():
    assert resolve_version("2.9.1") == {"version": "2.9.1", "channel": None}
    assert resolve_version("2.9") == {"version": "2.9.1", "channel": None}
    assert resolve_version("2.9.1+cu128") == {"version": "2.9.1", "channel": "cu128"}


def test_unknown_version_lists_the_known_ones():
    error = refusal(resolve_version, "2.5.1")
    assert error.startswith("torch 2.5.1 is not in the version matrix; known versions: 2.6.0, 2.7.0, 2.7.1, 2.8.0,")
    assert "2.12.0" in error
    assert refusal(resolve_stack, version="3.0.0").startswith("torch 3.0.0 is not in the version matrix")


def test_channel_verdicts_cu126_on_blackwell():
    assert channel_verdicts("cu126", [RTX5090, RTX4090]) == [
        {"gpu": "GPU 0 (NVIDIA GeForce RTX 5090, sm_120)", "sm": "sm_120", "verdict": "none", "image": None},
        {"gpu": "GPU 1 (NVIDIA GeForce RTX 4090, sm_89)", "sm": "sm_89", "verdict": "native", "image": "sm_86"}]


def test_default_is_newest_line_with_every_companion_and_driver_support():
    # torchaudio ends with 2.11 and 2.15 has no torchvision yet: 2.12 to 2.15 are passed over, said once;
    # 2.11 cu130 needs CUDA 13.0, the driver has it.
    choice = default_version([RTX5090], "13.0")
    assert (choice["version"], choice["channel"]) == ("2.11.0", "cu130")
    assert choice["reason"] == ("torch 2.11.0+cu130: the newest line in the matrix whose channel has native kernels "
                                "for sm_120 and whose CUDA 13.0 the driver (CUDA 13.0) supports")
    assert choice["warnings"] == [
        'passed over torch 2.15.0 (no torchvision, torchaudio), 2.14.1 (no torchaudio), 2.13.0 (no torchaudio), '
        '2.12.1 (no torchaudio) in the matrix: planned torch 2.11.0, the newest with every companion of '
        'pytorch_companions. To install 2.15.0 without them: make site ARGS="-e pytorch_version=2.15.0"']


def test_default_respects_the_driver():
    choice = default_version([RTX5090], "12.8")
    assert (choice["version"], choice["channel"]) == ("2.11.0", "cu128")
    assert "whose CUDA 12.8 the driver (CUDA 12.8) supports" in choice["reason"]


def test_default_without_torchaudio_takes_2_14():
    choice = default_version([H100], "13.2", companions=["torchvision"])
    assert (choice["version"], choice["channel"], choice["warnings"]) == ("2.14.1", "cu132", [
        'passed over torch 2.15.0 (no torchvision) in the matrix: planned torch 2.14.1, the newest with every '
        'companion of pytorch_companions. To install 2.15.0 without them: make site ARGS="-e pytorch_version=2.15.0"'])


@pytest.mark.parametrize("driver,channel", [("13.2", "cu132"), ("13.0", "cu130"), (None, "cu132")])
def test_default_torch_alone_is_2_15_on_the_channel_the_driver_supports(driver, channel):
    choice = default_version([RTX5090], driver, companions=[])
    assert (choice["version"], choice["channel"], choice["warnings"]) == ("2.15.0", channel, [])


def test_default_on_a_12_8_driver_stays_on_2_11():
    # no line after 2.11 has a CUDA 12 channel with Blackwell kernels (cu126 has none)
    choice = default_version([RTX5090], "12.8", companions=[])
    assert (choice["version"], choice["channel"]) == ("2.11.0", "cu128")
    assert choice["reason"].endswith("; skipped 2.15 (no channel fits); 2.14 (no channel fits); 2.13 (no channel "
                                     "fits); 2.12 (no channel fits)")


def test_default_with_an_old_driver_fails_clearly():
    error = refusal(default_version, [RTX5090], "12.4")
    assert error.startswith("no torch release in the matrix has a channel with native kernels for "
                            "GPU 0 (NVIDIA GeForce RTX 5090, sm_120) that driver CUDA 12.4 supports")


def test_default_unknown_driver_is_said():
    assert "driver's CUDA version is unknown" in default_version([H100], None)["reason"]


def test_matched_plan():
    plan = resolve_stack(version="2.9.1", channel="cu128", gpus=[RTX5090], driver_cuda="13.0")
    assert plan["error"] is None
    assert plan["pins"] == ["torch==2.9.1+cu128", "torchaudio==2.9.1+cu128", "torchvision==0.24.1+cu128"]
    assert plan["stack"] == "torch-2.9.1-cu128" and plan["method"] == "wheel" and plan["cuda"] == "12.8"
    assert plan["expected"] == {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128", "torchaudio": "2.9.1+cu128"}
    assert plan["verdicts"][0]["verdict"] == "native"


def test_plan_without_local_labels():
    plan = resolve_stack(version="2.9.1+cu128", gpus=[H100], local_label=False, companions=["torchvision"])
    assert plan["pins"] == ["torch==2.9.1", "torchvision==0.24.1"]


def test_mismatched_companion_is_refused():
    error = refusal(resolve_stack, version="2.9.1", channel="cu128", torchvision="0.23.0", gpus=[H100])
    assert error == (
        "pytorch_torchvision_version: torchvision 0.23.0 does not belong to torch 2.9.1+cu128 (expected 0.24.1); "
        "pip would silently replace torch to match it. Leave pytorch_torchvision_version empty (it follows torch) "
        "or set 0.24.1")


def test_companion_from_another_channel_is_refused():
    error = refusal(resolve_stack, version="2.9.1", channel="cu128", torchaudio="2.9.1+cu126", gpus=[H100])
    assert "torchaudio 2.9.1+cu126 is from channel cu126, torch 2.9.1+cu128 from cu128" in error


def test_matching_explicit_companion_is_accepted():
    plan = resolve_stack(version="2.9.1", channel="cu128", torchvision="0.24.1", gpus=[H100])
    assert plan["error"] is None and plan["companions"]["torchvision"] == "0.24.1"


def test_cu126_on_sm120_is_refused_before_install():
    error = refusal(resolve_stack, version="2.9.1", channel="cu126", gpus=[RTX5090], driver_cuda="13.0")
    assert error == (
        "channel cu126 has no kernels for GPU 0 (NVIDIA GeForce RTX 5090, sm_120): torch 2.9.1+cu126 wheels "
        "carry sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90. Nothing was installed. Use cu128 or cu130, or "
        "pytorch_install_method: source")


def test_auto_goes_to_source_when_the_channel_lacks_kernels():
    plan = resolve_stack(version="2.9.1", channel="cu126", gpus=[RTX5090], method="auto", toolkit_cuda="12.8")
    assert plan["error"] is None and plan["method"] == "source"
    assert plan["stack"] == "torch-2.9.1-src" and plan["pins"][0] == "torch==2.9.1+src"
    assert "auto builds from source" in plan["reason"]


def test_auto_stays_on_wheels_when_they_fit():
    assert resolve_stack(version="2.9.1", channel="cu128", gpus=[RTX5090], method="auto")["method"] == "wheel"


def test_channel_of_another_line_is_refused():
    assert refusal(resolve_stack, version="2.9.1", channel="cu129", gpus=[H100]) == (
        "torch 2.9.1 has no cu129 wheels; its Linux CUDA channels are cu126, cu128, cu130 (docs/domain.md section 4)")


def test_channel_newer_than_driver_major_is_refused():
    error = refusal(resolve_stack, version="2.11.0", channel="cu130", gpus=[H100], driver_cuda="12.8")
    assert error.startswith("channel cu130 needs a driver with CUDA 13.0; the driver supports CUDA 12.8")


def test_channel_newer_minor_warns():
    plan = resolve_stack(version="2.11.0", channel="cu129", gpus=[H100], driver_cuda="12.8")
    assert plan["error"] is None and "minor-version compatibility" in plan["warnings"][0]


def test_version_and_channel_conflict():
    assert "give one" in refusal(resolve_stack, version="2.9.1+cu126", channel="cu128")


def test_source_without_toolkit_is_refused():
    error = refusal(resolve_stack, version="2.9.1", method="source", gpus=[RTX5090], cuda_home="/usr/local/cuda")
    assert error == ("a source build needs a CUDA toolkit and there is none at /usr/local/cuda (no bin/nvcc): "
                     "install one (role blackwell.pytorch.cuda_toolkit), set pytorch_cuda_home, or use "
                     "pytorch_install_method: wheel")


def test_source_plan_takes_companions_from_the_toolkit_channel():
    plan = resolve_stack(version="2.9.1", method="source", gpus=[RTX5090], toolkit_cuda="12.8")
    assert plan["channel"] == "cu128"
    assert plan["pins"] == ["torch==2.9.1+src", "torchaudio==2.9.1+cu128", "torchvision==0.24.1+cu128"]
    assert plan["build_version"] == "2.9.1+src"


def test_source_on_a_host_that_does_not_build_needs_no_toolkit():
    assert resolve_stack(version="2.9.1", channel="cu128", method="source", builds=False)["error"] is None


def test_source_channel():
    assert source_channel("2.9.1", "12.9") == "cu128"
    assert source_channel("2.9.1", "13.0") == "cu130"
    assert source_channel("2.9.1", "12.4") is None


def test_unknown_companion_version_needs_a_value():
    catalog = {"source": "index https://mirror.example/simple", "torch": {"2.12.0": {"cu130": "cu130"}},
               "companions": {"2.12.0": {"torchvision": "0.27.0", "torchaudio": None}}}
    assert refusal(resolve_stack, version="2.12.0", gpus=[H100], catalog=catalog) == (
        "no torchaudio version is known for torch 2.12.0: check the package index and set "
        "pytorch_torchaudio_version, or leave torchaudio out of pytorch_companions")
    plan = resolve_stack(version="2.12.0", channel="cu130", torchaudio="2.12.0", gpus=[H100], catalog=catalog)
    assert plan["error"] is None and "torchaudio==2.12.0+cu130" in plan["pins"]


def test_a_requested_torch_without_published_companions_is_installed_without_them():
    plan = resolve_stack(version="2.15.0", gpus=[RTX5090], driver_cuda="13.2")
    assert (plan["channel"], plan["pins"], plan["companions"]) == ("cu132", ["torch==2.15.0+cu132"], {})
    assert plan["warnings"] == [
        "torch 2.15.0 is installed without torchvision, torchaudio: version table (planning/matrix.py) has none for "
        "it. Leave pytorch_version empty for the newest torch that has them, or set pytorch_companions: [] to "
        "install torch alone"]
    plan = resolve_stack(version="2.14", gpus=[RTX5090], driver_cuda="13.0")
    assert (plan["torch"], plan["channel"], plan["pins"]) == (
        "2.14.1", "cu130", ["torch==2.14.1+cu130", "torchvision==0.29.1+cu130"])
    assert refusal(resolve_stack, version="2.15.0", torchvision="0.30.0", gpus=[RTX5090]) == (
        "pytorch_torchvision_version 0.30.0: version table (planning/matrix.py) has no torchvision for torch 2.15.0. "
        "Leave torchvision out of pytorch_companions")


def test_blackwell_is_refused_on_channels_without_its_sass():
    assert refusal(resolve_stack, version="2.14.1+cu126", gpus=[RTX5090], driver_cuda="13.2", companions=[]) == (
        "channel cu126 has no kernels for GPU 0 (NVIDIA GeForce RTX 5090, sm_120): torch 2.14.1+cu126 wheels carry "
        "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90. Nothing was installed. Use cu130 or cu132, or "
        "pytorch_install_method: source")
    assert refusal(resolve_stack, version="2.15.0+cu126", gpus=[RTX5090], companions=[]) == (
        "torch 2.15.0 has no cu126 wheels; its Linux CUDA channels are cu130, cu132 (docs/domain.md section 4)")
    assert refusal(resolve_stack, version="2.15.0+cu134", gpus=[RTX5090], companions=[]) == (
        "torch 2.15.0 has no cu134 wheels; its Linux CUDA channels are cu130, cu132 (docs/domain.md section 4)")
    plan = resolve_stack(version="2.15.0+cu132", gpus=[RTX5090, H100], driver_cuda="13.2", companions=[])
    assert [item["verdict"] for item in plan["verdicts"]] == ["native", "native"]
    assert plan["warnings"] == []
    # PyPI's 2.15.0 is a CUDA 13.2 build: on a 13.0 driver it leans on minor-version compatibility, said
    plan = resolve_stack(version="2.15.0+cu132", gpus=[RTX5090], driver_cuda="13.0", companions=[])
    assert plan["warnings"] == ["channel cu132 is newer than the driver's CUDA 13.0: it relies on CUDA minor-version "
                                "compatibility (no PTX of the newer minor)"]


def test_bad_method_and_companion_names():
    assert "pytorch_install_method" in refusal(resolve_stack, version="2.9.1", method="conda")
    assert "pytorch_companions" in refusal(resolve_stack, version="2.9.1", companions=["torchtext"])


def test_installed_mismatches():
    expected = {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}
    assert installed_mismatches(expected, {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}) == []
    assert installed_mismatches(expected, {"torch": "2.8.0+cu128"}) == [
        "torch 2.8.0+cu128 (want 2.9.1+cu128)", "torchvision missing (want 0.24.1+cu128)"]
    assert installed_mismatches({"torch": "2.9.1"}, {"Torch": "2.9.1+cu128"}) == []


def test_hashes_file():
    text = ("# pinned\ntorch==2.9.1+cu128 \\\n    --hash=sha256:aa\ntorchvision==0.24.1+cu128 --hash=sha256:bb\n"
            "--index-url https://x\nsympy>=1.13\n")
    assert requirement_pins(text) == {"torch": "2.9.1+cu128", "torchvision": "0.24.1+cu128"}
    assert hashes_file_mismatches(text, ["torch==2.9.1+cu128", "torchaudio==2.9.1+cu128"]) == [
        "torchaudio==2.9.1+cu128 (file: not pinned)"]


def test_gpu_without_capability_is_not_planned_for():
    sysfs = {"index": None, "name": "NVIDIA unknown", "pci_bus_id": "0000:01:00.0", "compute_capability": None, "sm": None}
    plan = resolve_stack(version="2.9.1", channel="cu126", gpus=[sysfs, H100])
    assert plan["error"] is None
    assert plan["warnings"] == ["GPU 0000:01:00.0 (NVIDIA unknown, capability unknown): compute capability unknown "
                                "(run gpu_facts with NVML), not planned for"]
    assert [v["sm"] for v in plan["verdicts"]] == ["sm_90"]


def test_source_on_a_host_that_does_not_build_waits_for_the_build_hosts_plan():
    plan = resolve_stack(version="2.9.1", method="source", builds=False)
    assert plan["error"] is None and plan["method"] == "source" and plan["channel"] is None


def test_hashes_file_mismatches_refuses_a_pin_without_a_version():
    with pytest.raises(ValueError, match="pins must be name==version, not 'torch', 'torchvision>=0.24'"):
        hashes_file_mismatches("", ["torch", "torchvision>=0.24", "torchaudio==2.9.1"])


@pytest.mark.parametrize("kwargs", [
    {"version": "2.9.1", "channel": "cu128", "gpus": [RTX5090, RTX4090], "driver_cuda": "13.0"},
    {"version": "", "gpus": [H100], "driver_cuda": "12.8"},
    {"version": "2.9", "method": "auto", "channel": "cu126", "gpus": [RTX5090], "toolkit_cuda": "12.8"},
    {"version": "2.9.1", "method": "source", "toolkit_cuda": "13.0", "torchvision": "0.24.1"},
])
def test_packaging_parser_gives_the_same_plan(kwargs):
    assert resolve_stack(parse=controller_versions.parse, **kwargs) == resolve_stack(**kwargs)


def test_packaging_parser_gives_the_same_refusal():
    kwargs = {"version": "2.9.1+cu128", "torchvision": "0.23.0"}
    assert refusal(resolve_stack, parse=controller_versions.parse, **kwargs) == refusal(resolve_stack, **kwargs) == (
        "pytorch_torchvision_version: torchvision 0.23.0 does not belong to torch 2.9.1+cu128 (expected 0.24.1); "
        "pip would silently replace torch to match it. Leave pytorch_torchvision_version empty (it follows torch) "
        "or set 0.24.1")


@pytest.mark.parametrize("text,cuda", [("13.0", (13, 0)), ("12.8.93", (12, 8)), ("v13.1.0", (13, 1)), ("x", None)])
def test_parse_cuda_with_packaging(text, cuda):
    assert parse_cuda(text, controller_versions.parse) == cuda


def test_reported_case_version_line_without_channel_on_sm120():
    plan = resolve_stack(version="2.9", gpus=[{"index": 0, "name": "RTX 5090", "compute_capability": "12.0"}])
    assert plan["error"] is None
    assert (plan["torch"], plan["channel"], plan["stack"]) == ("2.9.1", "cu130", "torch-2.9.1-cu130")
    assert plan["verdicts"] == [{"gpu": "GPU 0 (RTX 5090, sm_120)", "sm": "sm_120", "verdict": "native", "image": "sm_120"}]
    assert "channel cu130: the newest build of torch 2.9.1 in the matrix with native kernels for sm_120" in plan["reason"]
    assert plan["source"] == "version table (planning/matrix.py)"
    assert resolve_stack(version="2.9.1", gpus=[RTX5090], driver_cuda="12.9")["channel"] == "cu128"


def test_version_without_channel_on_sm90_and_an_old_driver():
    plan = resolve_stack(version="2.7.1", gpus=[H100], driver_cuda="12.6")
    assert (plan["channel"], plan["stack"], plan["verdicts"][0]["verdict"]) == ("cu126", "torch-2.7.1-cu126", "native")


def test_version_without_channel_refused_with_builds_that_would_work():
    error = refusal(resolve_stack, version="2.6", gpus=[RTX5090], driver_cuda="13.0")
    assert error.startswith("torch 2.6.0 has no build in the matrix with native kernels for GPU 0 (NVIDIA GeForce "
                            "RTX 5090, sm_120) that driver CUDA 13.0 supports (its builds: cu118 (")
    assert "Builds that would work: 2.15.0+cu130, 2.14.1+cu130, 2.14.0+cu130, 2.13.0+cu130; or pytorch_install_method: source" in error


def test_channel_from_a_pinned_companion_label():
    plan = resolve_stack(version="2.9.1", torchvision="0.24.1+cu128", gpus=[RTX5090])
    assert (plan["channel"], plan["pins"][2]) == ("cu128", "torchvision==0.24.1+cu128")
    assert resolve_stack(version="2.9.1", torchvision="0.24.1+cu126", gpus=[H100])["pins"][0] == "torch==2.9.1+cu126"


def test_latest_is_the_default_choice():
    assert resolve_stack(version="latest", gpus=[RTX5090], driver_cuda="13.0")["torch"] == "2.11.0"


def test_cpu_build_is_refused_for_gpus():
    assert refusal(resolve_stack, version="2.9.1+cpu", gpus=[H100], companions=[]) == (
        "torch 2.9.1 has no cpu wheels; its Linux CUDA channels are cu126, cu128, cu130 (docs/domain.md section 4)")
    catalog = {"source": "index https://mirror.example/simple", "torch": {"2.9.1": {"cpu": "cpu", "cu128": "cu128"}},
               "companions": {"2.9.1": {"torchvision": "0.24.1", "torchaudio": ""}}}
    assert refusal(resolve_stack, version="2.9.1+cpu", gpus=[H100], companions=[], catalog=catalog) == (
        "torch 2.9.1+cpu is not a CUDA build: it has no kernels for any GPU. Nothing was installed; set "
        "pytorch_cuda_channel to a cuXYZ channel")
    plan = resolve_stack(version="2.9.1", gpus=[H100], catalog=catalog)
    assert (plan["channel"], plan["pins"]) == ("cu128", ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128"])


def test_a_driver_too_old_for_every_working_build_is_named_as_the_cause():
    error = refusal(resolve_stack, version="2.7.1", gpus=[RTX5090], driver_cuda="12.6")
    assert ("Builds that would work: none that driver CUDA 12.6 supports (update the NVIDIA driver for "
            "2.15.0+cu132, 2.15.0+cu130, 2.14.1+cu132, 2.14.1+cu130)") in error
