from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.policy import (
    REQUIREMENTS, unmet, wheel_remedy)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import capability_facts, parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_images import (
    images_by_kind, kernel_image_verdict)

CU121 = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
NO_KERNEL = "AcceleratorError: CUDA error: no kernel image is available for execution on the device"
NO_NVRTC = "no loadable libnvrtc (torch's nvidia wheels, CUDA_HOME, /usr/local/cuda, ldconfig)"
ENVS = {"normal": None, "disable_ptx_jit": "CUDA_DISABLE_PTX_JIT=1", "force_ptx_jit": "CUDA_FORCE_PTX_JIT=1"}


def gpu(name, capability, arch_list, index=0, failing=(), probes=None, sass="ok"):
    """A report's GPU entry; runs listed in `failing` failed with no kernel image."""
    entry = dict(capability_facts(*parse_capability(capability)), index=index, name=name,
                 kernel_image=kernel_image_verdict(arch_list, capability))
    entry["runs"] = dict((mode, {"status": "failed" if mode in failing else "ok", "env": env,
                                 "error": NO_KERNEL if mode in failing else None}) for mode, env in ENVS.items())
    entry["native_sass_launch"] = {"status": sass, "error": None if sass == "ok" else NO_NVRTC}
    entry["probes"] = dict((name, {"status": "ok", "error": None}) for name in (
        "flash_attention", "efficient_attention", "cudnn_attention", "math_attention", "triton", "bf16", "fp8",
        "torch_compile"))
    entry["probes"].update(probes or {})
    return entry


def report(gpus, arch_list, version, cuda=None, nccl=True, companions=None):
    split = images_by_kind(arch_list)
    ok = {"installed": "x", "import_ok": True, "import_error": None, "expected": "x", "match": True, "reason": "ok"}
    return {"python": "/opt/torch/.venv/bin/python3", "gpus": gpus,
            "build": {"torch_version": version, "cuda_runtime": cuda or "13.0", "arch_list": arch_list,
                      "sass": split["sass"], "ptx": split["ptx"], "nccl": {"available": nccl, "version": None}},
            "cuda": {"available": bool(gpus), "reason": None},
            "companions": companions or {"torchvision": ok, "torchaudio": ok}}


RTX5090_CU121 = report([gpu("NVIDIA GeForce RTX 5090", "12.0", CU121, failing=ENVS)], CU121, "2.5.1+cu121")
H100_CU130 = report([gpu("NVIDIA H100 80GB HBM3", "9.0", CU130, failing=("force_ptx_jit",))], CU130, "2.11.0+cu130")


def test_without_requirements_nothing_is_unmet():
    assert unmet(RTX5090_CU121) == []


def test_h100_meets_everything_but_forward_compatibility():
    wanted = [name for name in REQUIREMENTS if name != "forward_compatible"]
    assert unmet(H100_CU130, wanted, "native") == []


def test_min_verdict_on_a_wheel_without_blackwell_kernels():
    assert unmet(RTX5090_CU121, [], "ptx_jit") == [
        "GPU 0 (NVIDIA GeForce RTX 5090, sm_120): min_verdict=ptx_jit required, found none: torch 2.5.1+cu121 "
        "has no sm_120 SASS and no PTX <= compute_120: install a cu128+ wheel"]


def test_native_on_a_ptx_only_build():
    arch_list = ["sm_80", "sm_86", "sm_90", "compute_90"]
    pro6000 = gpu("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0", arch_list, failing=("disable_ptx_jit",))
    assert unmet(report([pro6000], arch_list, "2.6.0+cu126"), ["native"]) == [
        "GPU 0 (NVIDIA RTX PRO 6000 Blackwell Workstation Edition, sm_120): native required, found ptx_jit: "
        "torch 2.6.0+cu126 has no sm_120 SASS; PTX compute_90 is JIT-compiled by the driver at first use: "
        "install a cu128+ wheel"]


def test_native_verdict_that_does_not_run_natively():
    failing = report([gpu("NVIDIA H100 80GB HBM3", "9.0", CU130, failing=("disable_ptx_jit",))], CU130, "2.11.0+cu130")
    assert unmet(failing, ["native"]) == [
        "GPU 0 (NVIDIA H100 80GB HBM3, sm_90): native required, found the CUDA_DISABLE_PTX_JIT=1 run failed: "
        + NO_KERNEL + ": the arch list lists sm_90 but it did not run natively: check the driver (nvidia-smi) "
        "and reinstall torch"]


def test_forward_compatible_on_a_build_without_ptx():
    assert unmet(H100_CU130, ["forward_compatible"]) == [
        "GPU 0 (NVIDIA H100 80GB HBM3, sm_90): forward_compatible required, found the CUDA_FORCE_PTX_JIT=1 run "
        "failed: " + NO_KERNEL + ": torch 2.11.0+cu130 has no PTX: build from source with TORCH_CUDA_ARCH_LIST "
        "ending in +PTX"]


def test_cuda_requirement_names_the_normal_run():
    assert unmet(RTX5090_CU121, ["cuda"]) == [
        "GPU 0 (NVIDIA GeForce RTX 5090, sm_120): cuda required, found the normal run failed: " + NO_KERNEL
        + ": see gpus[0].runs.normal"]


def test_probe_and_sass_launch_failures_on_the_second_gpu():
    unavailable = {"status": "unavailable", "reason": "Flash attention only supports sm80 and newer"}
    second = gpu("Tesla T4", "7.5", CU130, index=1, probes={"flash_attention": unavailable}, sass="unavailable")
    two = report([gpu("NVIDIA H100 80GB HBM3", "9.0", CU130), second], CU130, "2.11.0+cu130")
    assert unmet(two, ["flash_attention", "native_sass_launch"]) == [
        "GPU 1 (Tesla T4, sm_75): flash_attention required, found unavailable: Flash attention only supports sm80 "
        "and newer: see gpus[1].probes.flash_attention",
        "GPU 1 (Tesla T4, sm_75): native_sass_launch required, found unavailable: " + NO_NVRTC + ": install NVRTC "
        "(the nvidia-cuda-nvrtc wheel of torch's CUDA, or a CUDA toolkit)"]


def test_no_cuda_fails_only_when_something_was_required():
    cpu = report([], [], "2.13.0+cpu")
    cpu["build"]["cuda_runtime"] = None
    cpu["cuda"]["reason"] = "torch 2.13.0+cpu was built without CUDA"
    assert unmet(cpu) == [] and unmet(cpu, ["torchvision"]) == []
    assert unmet(cpu, ["flash_attention"], "native") == [
        "min_verdict=native, flash_attention required, but CUDA is not usable from /opt/torch/.venv/bin/python3 "
        "(torch 2.13.0+cpu): torch 2.13.0+cpu was built without CUDA: install a CUDA build of torch (a cuXYZ wheel)"]


def test_no_driver():
    nodriver = report([], CU130, "2.11.0+cu130")
    nodriver["cuda"]["reason"] = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you "
                                  "have an NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    assert unmet(nodriver, ["cuda"]) == [
        "cuda required, but CUDA is not usable from /opt/torch/.venv/bin/python3 (torch 2.11.0+cu130): "
        + nodriver["cuda"]["reason"] + ": check the NVIDIA driver (nvidia-smi) and CUDA_VISIBLE_DEVICES"]


def test_build_requirements():
    broken = {"installed": "0.23.0", "import_ok": False, "import_error": "OSError: undefined symbol: _ZN3c10",
              "expected": "0.24.1", "match": False, "reason": "torchvision 0.23.0 does not belong to torch 2.9.1"}
    moved = {"installed": "2.9.1", "import_ok": True, "import_error": None, "expected": "2.8.0", "match": False,
             "reason": "torchaudio 2.9.1 does not belong to torch 2.8.0 (expected 2.8.0)"}
    bad = report(H100_CU130["gpus"], CU130, "2.9.1+cu128", nccl=False,
                 companions={"torchvision": broken, "torchaudio": moved})
    assert unmet(bad, ["nccl", "torchvision", "torchaudio"]) == [
        "nccl required, found torch.distributed.is_nccl_available() false in torch 2.9.1+cu128: install a Linux "
        "CUDA build of torch (NCCL ships with it)",
        "torchvision required, found: torchvision 0.23.0 does not import (OSError: undefined symbol: _ZN3c10): "
        "install torchvision==0.24.1 together with torch==2.9.1 in one pip call",
        "torchaudio required, found: torchaudio 2.9.1 does not belong to torch 2.8.0 (expected 2.8.0): "
        "install torchaudio==2.8.0 together with torch==2.9.1 in one pip call"]


def test_unknown_companion_line_is_not_held_against_the_build():
    unknown = {"installed": "2.12.0", "import_ok": True, "import_error": None, "expected": None, "match": None,
               "reason": "no torchaudio version known"}
    assert unmet(report([], [], "2.12.0+cu130", companions={"torchvision": unknown, "torchaudio": unknown}),
                 ["torchaudio"]) == []


@pytest.mark.parametrize("capability,sass,remedy", [
    ((12, 0), CU121, "install a cu128+ wheel"),
    ((10, 0), CU121, "install a cu128+ wheel"),
    ((12, 1), CU121, "install a cu128+ wheel"),  # runs sm_120 SASS: the catalogue's first channel of 12.0
    ((10, 3), CU121, "install a cu128+ wheel"),
    ((6, 1), CU130, "this build's oldest SASS is sm_75: install a wheel of an older CUDA channel that lists sm_61 "
                    "(2.7.1+cu126 lists sm_50 to sm_90)"),
    ((11, 0), CU130, "install a wheel whose torch.cuda.get_arch_list() lists sm_110"),
])
def test_wheel_remedy(capability, sass, remedy):
    assert wheel_remedy(capability, sass) == remedy
