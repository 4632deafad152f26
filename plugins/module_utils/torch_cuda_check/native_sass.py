# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Native-SASS launch test: does the driver execute SASS built for exactly this GPU's sm_XY?

A GPU child part (see child_gpu): part_sass builds y[i] = a * x[i] + b with NVRTC (the
libnvrtc that torch's wheel ships, else CUDA_HOME or /usr/local/cuda) for
`--gpu-architecture=sm_XY`, which yields a SASS-only cubin, loads it with cuModuleLoadData
through ctypes on libcuda.so.1 in the GPU's primary context (the one torch uses), launches it
and compares every value exactly. The parent runs it with CUDA_DISABLE_PTX_JIT=1, so nothing
but that SASS can run. A negative control builds the same kernel for an arch of another
major, which the driver must refuse (CUDA_ERROR_NO_BINARY_FOR_GPU): proof that the test
discriminates.

status: ok (exact result), failed (the driver refused or computed wrong numbers),
unavailable (no NVRTC, or an NVRTC too old for this arch).
Runs in the checked interpreter (Python 3.9+), shipped by common.child_program; torch is
imported inside nvrtc_candidates() only. No Ansible import.
"""
from __future__ import annotations

import ctypes
import os
import time
from collections.abc import Sequence
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.child_base import since

SASS_KERNEL = b"""
extern "C" __global__ void axpb(float a, const float* x, float b, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}
"""


class Unavailable(Exception):
    """The test cannot run here (no NVRTC, NVRTC too old)."""


class DriverError(Exception):
    def __init__(self, cuda, call, code):
        name = ctypes.c_char_p()
        cuda.cuGetErrorName(code, ctypes.byref(name))
        self.code = code
        self.name = (name.value or b"CUDA_ERROR_UNKNOWN").decode()
        Exception.__init__(self, "%s: %s (%d)" % (call, self.name, code))


def nvrtc_candidates() -> list[str]:
    import ctypes.util
    import glob
    import torch
    major = (torch.version.cuda or "").split(".")[0]
    site = os.path.dirname(os.path.dirname(torch.__file__))
    wheel = sorted(glob.glob(os.path.join(site, "nvidia", "*", "lib", "libnvrtc.so*")),
                   key=lambda path: not path.endswith(".so." + major))
    found = wheel[:]
    for home in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        for sub in ("lib64", "lib"):
            found += sorted(glob.glob(os.path.join(home or "/nonexistent", sub, "libnvrtc.so*")))
    system = ctypes.util.find_library("nvrtc")
    return [path for path in found + ([system] if system else []) if "builtins" not in path]


def load_nvrtc() -> tuple[ctypes.CDLL, str, str, list[int]]:
    tried = []
    for path in nvrtc_candidates():
        try:
            lib = ctypes.CDLL(path)
        except OSError as exc:
            tried.append("%s (%s)" % (path, exc))
            continue
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        major, minor = ctypes.c_int(), ctypes.c_int()
        lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
        count = ctypes.c_int()
        lib.nvrtcGetNumSupportedArchs(ctypes.byref(count))
        archs = (ctypes.c_int * count.value)()
        lib.nvrtcGetSupportedArchs(archs)
        return lib, path, "%d.%d" % (major.value, minor.value), list(archs)
    raise Unavailable("no loadable libnvrtc (torch's nvidia wheels, CUDA_HOME, /usr/local/cuda, ldconfig)%s"
                      % ("; tried " + ", ".join(tried) if tried else ""))


def build_cubin(nvrtc: ctypes.CDLL, arch: str) -> bytes:
    prog = ctypes.c_void_p()
    nvrtc.nvrtcCreateProgram(ctypes.byref(prog), SASS_KERNEL, b"axpb.cu", 0, None, None)
    try:
        options = (ctypes.c_char_p * 1)(("--gpu-architecture=" + arch).encode())
        code = nvrtc.nvrtcCompileProgram(prog, 1, options)
        if code != 0:
            size = ctypes.c_size_t()
            nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
            log = ctypes.create_string_buffer(size.value)
            nvrtc.nvrtcGetProgramLog(prog, log)
            raise Unavailable("NVRTC could not build %s: %s %s" % (
                arch, nvrtc.nvrtcGetErrorString(code).decode(), log.value.decode("utf-8", "replace").strip()))
        size = ctypes.c_size_t()
        nvrtc.nvrtcGetCUBINSize(prog, ctypes.byref(size))
        cubin = ctypes.create_string_buffer(size.value)
        nvrtc.nvrtcGetCUBIN(prog, cubin)
        return cubin.raw
    finally:
        nvrtc.nvrtcDestroyProgram(ctypes.byref(prog))


def driver_call(cuda: ctypes.CDLL, name: str, *args: object) -> None:
    code = getattr(cuda, name)(*args)
    if code != 0:
        raise DriverError(cuda, name, code)


def launch(cuda: ctypes.CDLL, cubin: bytes, count: int) -> list[float]:
    """Load `cubin` in the current context, run axpb(3, x, 0.5, y, count) on x = 0..count-1, return y."""
    module, function = ctypes.c_void_p(), ctypes.c_void_p()
    driver_call(cuda, "cuModuleLoadData", ctypes.byref(module), cubin)
    x_dev, y_dev = ctypes.c_uint64(), ctypes.c_uint64()
    try:
        driver_call(cuda, "cuModuleGetFunction", ctypes.byref(function), module, b"axpb")
        host_x = (ctypes.c_float * count)(*range(count))
        host_y = (ctypes.c_float * count)()
        nbytes = ctypes.c_size_t(ctypes.sizeof(host_x))
        driver_call(cuda, "cuMemAlloc_v2", ctypes.byref(x_dev), nbytes)
        driver_call(cuda, "cuMemAlloc_v2", ctypes.byref(y_dev), nbytes)
        driver_call(cuda, "cuMemcpyHtoD_v2", x_dev, host_x, nbytes)
        args = [ctypes.c_float(3.0), x_dev, ctypes.c_float(0.5), y_dev, ctypes.c_int(count)]
        params = (ctypes.c_void_p * len(args))(*[ctypes.addressof(arg) for arg in args])
        driver_call(cuda, "cuLaunchKernel", function, (count + 255) // 256, 1, 1, 256, 1, 1, 0, None, params, None)
        driver_call(cuda, "cuCtxSynchronize")
        driver_call(cuda, "cuMemcpyDtoH_v2", host_y, y_dev, nbytes)
        return list(host_y)
    finally:
        for pointer in (x_dev, y_dev):
            if pointer.value:
                cuda.cuMemFree_v2(pointer)
        cuda.cuModuleUnload(module)


def negative_control(cuda: ctypes.CDLL, nvrtc: ctypes.CDLL, archs: Sequence[int],
                     capability: tuple[int, int]) -> dict[str, Any]:
    """Build for the newest arch NVRTC knows of another major: the driver must refuse it."""
    others = [arch for arch in archs if arch // 10 != capability[0]]
    if not others:
        return {"status": "skipped", "reason": "NVRTC knows no arch of another major"}
    arch = "sm_%d" % max(others)
    module = ctypes.c_void_p()
    try:
        code = cuda.cuModuleLoadData(ctypes.byref(module), build_cubin(nvrtc, arch))
    except Unavailable as exc:
        return {"status": "skipped", "arch": arch, "reason": str(exc)}
    if code == 0:
        cuda.cuModuleUnload(module)
        return {"status": "failed", "arch": arch, "error": "the driver loaded %s SASS on sm_%d%d" % (
            arch, capability[0], capability[1])}
    return {"status": "ok", "arch": arch, "error": None,
            "refused_with": DriverError(cuda, "cuModuleLoadData", code).name + " (%d)" % code}


def part_sass(index: int, capability: tuple[int, int], out: dict[str, Any]) -> dict[str, Any]:
    start = time.monotonic()
    arch = "sm_%d%d" % tuple(capability)
    result = {"arch": arch, "ptx_jit_disabled": os.environ.get("CUDA_DISABLE_PTX_JIT") == "1",
              "nvrtc": None, "nvrtc_version": None, "cubin_bytes": None, "negative_control": None}
    try:
        nvrtc, result["nvrtc"], result["nvrtc_version"], archs = load_nvrtc()
        if capability[0] * 10 + capability[1] not in archs:
            raise Unavailable("NVRTC %s cannot build %s (it knows sm_%d to sm_%d)" % (
                result["nvrtc_version"], arch, min(archs), max(archs)))
        cubin = build_cubin(nvrtc, arch)
        result["cubin_bytes"] = len(cubin)
        cuda = ctypes.CDLL("libcuda.so.1")
        device, context = ctypes.c_int(), ctypes.c_void_p()
        driver_call(cuda, "cuInit", 0)
        driver_call(cuda, "cuDeviceGet", ctypes.byref(device), index)
        driver_call(cuda, "cuDevicePrimaryCtxRetain", ctypes.byref(context), device)
        try:
            driver_call(cuda, "cuCtxSetCurrent", context)
            count = 1000
            got = launch(cuda, cubin, count)
            wrong = [i for i in range(count) if got[i] != 3.0 * i + 0.5]
            if wrong:
                result.update(status="failed", error="wrong result at %d of %d values (first: y[%d] = %r)" % (
                    len(wrong), count, wrong[0], got[wrong[0]]))
            else:
                result.update(status="ok", error=None, result="exact: %d values of 3 * x + 0.5" % count)
            result["negative_control"] = negative_control(cuda, nvrtc, archs, capability)
        finally:
            cuda.cuDevicePrimaryCtxRelease_v2(device)
    except Unavailable as exc:
        result.update(status="unavailable", error=str(exc))
    except (DriverError, OSError) as exc:
        result.update(status="failed", error=str(exc))
    result["seconds"] = since(start)
    return result
