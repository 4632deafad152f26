# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The GPU catalogue: what the collection knows about each compute capability and each product.

ARCHITECTURES has one row per compute capability (major, minor):
- family: architecture family name, None where no product of that capability is known;
- first_toolkit / last_toolkit: the CUDA toolkits (major, minor) from and up to which nvcc targets
  it; first None: older than CUDA 12.0, the oldest toolkit the collection knows; last None: still
  targeted by the newest;
- driver_branch: the oldest driver branch that drives it (the GA driver of first_toolkit), None
  where any branch the collection installs does;
- wheel_sass: the CUDA channels (as (major, minor) of cuXY) from and up to which PyTorch's Linux
  wheels carry its SASS, None where no wheel does;
- open_module: what NVIDIA's open kernel modules do for it: "required" (the proprietary module does
  not drive it), "supported" (either module does) or "unsupported" (only the proprietary one does);
- rates: dense FLOP per clock per SM: "tensor" (FP16/BF16 with FP32 accumulate at full rate, as
  workstation and data-center parts run it; GeForce runs half), "fp32" (FFMA), "fp64" (as cuBLAS
  runs it), None where not known.

PRODUCTS has one row per product, keyed by the exact name NVML and torch report: its compute
capability, product line ("geforce", "workstation" or "datacenter") and confirmed datasheet peaks.
PCI device ids live next to it (hardware/pci_ids.py) and name a product of this table.

Every other table of the collection reads these (gpu_arch, pci_ids, driver.cuda_compat,
driver.policy, driver.toolkit_plan, planning.matrix, benchmark.gpu_peaks, torch_cuda_check.policy);
lookups read the tables at call time. Pure data and functions, no Ansible import; runs in the
benchmark's child too.
"""
from __future__ import annotations

from typing import Any

GEFORCE, WORKSTATION, DATACENTER = "geforce", "workstation", "datacenter"
PRODUCT_LINES = (GEFORCE, WORKSTATION, DATACENTER)
PEAK_KINDS = ("fp16", "bf16", "tf32", "fp32", "fp64", "fp8", "fp4", "memory", "pcie")
OPEN_REQUIRED, OPEN_SUPPORTED, OPEN_UNSUPPORTED = "required", "supported", "unsupported"


def _arch(family, open_module, first=None, last=None, branch=None, wheels=None, rates=None):
    return {"family": family, "open_module": open_module, "first_toolkit": first, "last_toolkit": last,
            "driver_branch": branch, "wheel_sass": wheels, "rates": rates}


def _rates(tensor, fp32, fp64):
    return {"tensor": tensor, "fp32": fp32, "fp64": fp64}


# A100 312 TF = 108 SMs x 1.41 GHz x 2048; H100 989 TF = 132 x 1.83 GHz x 4096; RTX 5090 209.5 TF =
# 170 x 2.41 GHz x 512 (GeForce, half of 1024). FP64: tensor-core DMMA on A100/H100/B200, 1/64 of FP32
# elsewhere. Toolkit targets: `nvcc --list-gpu-arch` (docs/domain.md section 3); wheel SASS: the
# measured arch lists of docs/domain.md section 4.
_PROP, _BOTH, _OPEN = OPEN_UNSUPPORTED, OPEN_SUPPORTED, OPEN_REQUIRED
# Open kernel modules: Turing and newer only; Blackwell only with them (docs/domain.md section 2).
ARCHITECTURES = {
    (5, 0): _arch("Maxwell", _PROP, last=(12, 9), wheels=((11, 8), (12, 6))),
    (5, 2): _arch("Maxwell", _PROP, last=(12, 9)),
    (5, 3): _arch("Maxwell", _PROP, last=(12, 9)),
    (6, 0): _arch("Pascal", _PROP, last=(12, 9), wheels=((11, 8), (12, 6))),
    (6, 1): _arch("Pascal", _PROP, last=(12, 9)),
    (6, 2): _arch("Pascal", _PROP, last=(12, 9)),
    (7, 0): _arch("Volta", _PROP, last=(12, 9), wheels=((11, 8), (12, 9))),
    (7, 2): _arch("Volta", _PROP, last=(12, 9)),
    (7, 5): _arch("Turing", _BOTH, wheels=((11, 8), None)),
    (8, 0): _arch("Ampere", _BOTH, wheels=((11, 8), None), rates=_rates(2048, 128, 128)),
    (8, 6): _arch("Ampere", _BOTH, wheels=((11, 8), None), rates=_rates(1024, 256, 4)),
    (8, 7): _arch("Ampere", _BOTH),
    (8, 8): _arch(None, _BOTH, first=(13, 0), branch=580),
    (8, 9): _arch("Ada", _BOTH, rates=_rates(1024, 256, 4)),
    (9, 0): _arch("Hopper", _BOTH, wheels=((11, 8), None), rates=_rates(4096, 256, 256)),
    (10, 0): _arch("Blackwell", _OPEN, first=(12, 8), branch=570, wheels=((12, 8), None), rates=_rates(8192, 256, 128)),
    (10, 1): _arch("Blackwell", _OPEN, first=(12, 8), last=(12, 9), branch=570),  # Thor before CUDA 13 named it 11.0
    (10, 3): _arch("Blackwell", _OPEN, first=(12, 9), branch=575),
    (11, 0): _arch("Blackwell", _OPEN, first=(13, 0), branch=580),
    (12, 0): _arch("Blackwell", _OPEN, first=(12, 8), branch=570, wheels=((12, 8), None), rates=_rates(1024, 256, 4)),
    (12, 1): _arch("Blackwell", _OPEN, first=(12, 9), branch=575),
}
# Majors whose every capability, listed or not, is of one family (10.x data center, 11.0 Thor, 12.x
# GeForce / RTX PRO / GB10); a capability of another major without a row is "unknown".
FAMILY_OF_MAJOR = {10: "Blackwell", 11: "Blackwell", 12: "Blackwell"}
# FP8 tensor math from this capability on (Ada).
FP8_MIN_CAPABILITY = (8, 9)
# Products driven only by the open kernel modules whatever their capability's row says, by a part of
# their name: Grace Hopper (9.0, as H100) is.
OPEN_ONLY_NAMES = ("GH200",)


def _product(capability, line, **peaks):
    return {"capability": capability, "line": line, "peaks": peaks}


_G, _W, _D = GEFORCE, WORKSTATION, DATACENTER
# Peaks: TFLOP/s (dense, FP32 accumulate) and GB/s, confirmed datasheet figures only (docs/domain.md
# section 1); a kind missing here is derived from NVML's clocks and the capability's rates.
PRODUCTS = {
    # Blackwell, GeForce RTX 50
    "NVIDIA GeForce RTX 5090": _product((12, 0), _G, memory=1792, fp32=104.8, fp16=209.5, bf16=209.5),
    "NVIDIA GeForce RTX 5090 D": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5090 D V2": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5080": _product((12, 0), _G, memory=960, fp32=56.3, fp16=112.6, bf16=112.6),
    "NVIDIA GeForce RTX 5070 Ti": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5070": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5060 Ti": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5060": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5050": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5090 Max-Q / Mobile": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5080 Max-Q / Mobile": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5070 Ti Mobile": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5070 Max-Q / Mobile": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5060 Max-Q / Mobile": _product((12, 0), _G),
    "NVIDIA GeForce RTX 5050 Max-Q / Mobile": _product((12, 0), _G),
    # Blackwell, RTX PRO workstation, server, laptop and embedded
    "NVIDIA RTX PRO 6000 Blackwell Workstation Edition": _product((12, 0), _W, memory=1792, fp32=125),
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 6000D Blackwell Workstation Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 6000D Blackwell Max-Q Workstation Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 5000 Blackwell": _product((12, 0), _W),
    "NVIDIA RTX PRO 4500 Blackwell": _product((12, 0), _W),
    "NVIDIA RTX PRO 4500 Blackwell Server Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 4000 Blackwell": _product((12, 0), _W),
    "NVIDIA RTX PRO 4000 Blackwell SFF Edition": _product((12, 0), _W),
    "NVIDIA RTX PRO 2000 Blackwell": _product((12, 0), _W),
    "NVIDIA RTX PRO 5000 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 4000 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 3000 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 2000 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 1000 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 500 Blackwell Generation Laptop GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 5000 Blackwell Embedded GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 4000 Blackwell Embedded GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 2000 Blackwell Embedded GPU": _product((12, 0), _W),
    "NVIDIA RTX PRO 500 Blackwell Embedded GPU": _product((12, 0), _W),
    # Blackwell, GB10 superchip (DGX Spark)
    "NVIDIA GB10": _product((12, 1), _W),
    # Blackwell, data center: GB100 (10.0), GB110 = Blackwell Ultra (10.3)
    "NVIDIA B200": _product((10, 0), _D, memory=8000, fp32=80, fp16=2250, bf16=2250),
    "NVIDIA HGX B200 168GB": _product((10, 0), _D),
    "NVIDIA HGX GB200": _product((10, 0), _D),
    "NVIDIA B300 SXM6 AC": _product((10, 3), _D),
    "NVIDIA GB300 MaxQ": _product((10, 3), _D),
    "NVIDIA GB300": _product((10, 3), _D),
    # Hopper
    "NVIDIA H100 80GB HBM3": _product((9, 0), _D, memory=3350, fp32=67, fp16=989, bf16=989),
    "NVIDIA H100 PCIe": _product((9, 0), _D, memory=2000, fp32=51, fp16=756, bf16=756),
    "NVIDIA H100": _product((9, 0), _D),
    "NVIDIA H100 SXM5 64GB": _product((9, 0), _D),
    "NVIDIA H100 SXM5 96GB": _product((9, 0), _D),
    "NVIDIA H100 SXM5 94GB": _product((9, 0), _D),
    "NVIDIA H100 96GB": _product((9, 0), _D),
    "NVIDIA H100L 94GB": _product((9, 0), _D),
    "NVIDIA H100 CNX": _product((9, 0), _D),
    "NVIDIA H800 PCIe": _product((9, 0), _D),
    "NVIDIA H800": _product((9, 0), _D),
    "NVIDIA H800L 94GB": _product((9, 0), _D),
    "NVIDIA H20": _product((9, 0), _D),
    "NVIDIA H20 HBM3e": _product((9, 0), _D),
    "NVIDIA H200": _product((9, 0), _D, memory=4800, fp32=67, fp16=989, bf16=989),
    "NVIDIA H200 NVL": _product((9, 0), _D),
    "NVIDIA GH200 120GB / 480GB": _product((9, 0), _D),
    "NVIDIA GH200 144G HBM3e": _product((9, 0), _D),
    # Ada
    "NVIDIA GeForce RTX 4090": _product((8, 9), _G),
    "NVIDIA GeForce RTX 4080": _product((8, 9), _G),
    "NVIDIA RTX 6000 Ada Generation": _product((8, 9), _W),
    "NVIDIA RTX 4000 SFF Ada Generation": _product((8, 9), _W),
    "NVIDIA L40": _product((8, 9), _D),
    "NVIDIA L40S": _product((8, 9), _D),
    "NVIDIA L4": _product((8, 9), _D),
    # Ampere
    "NVIDIA A100-SXM4-40GB": _product((8, 0), _D),
    "NVIDIA A100-SXM4-80GB": _product((8, 0), _D),
    "NVIDIA A100 80GB PCIe": _product((8, 0), _D),
    "NVIDIA A100-PCIE-40GB": _product((8, 0), _D),
    "NVIDIA GeForce RTX 3090": _product((8, 6), _G),
    "NVIDIA RTX A6000": _product((8, 6), _W),
    # Turing
    "NVIDIA GeForce RTX 2080 Ti": _product((7, 5), _G),
    "NVIDIA TITAN RTX": _product((7, 5), _W),
    "Tesla T4": _product((7, 5), _D),
}


def architecture(capability: tuple[int, int]) -> dict[str, Any] | None:
    """The ARCHITECTURES row of a (major, minor), or None."""
    return ARCHITECTURES.get(tuple(capability))


def nearest_architecture(capability: tuple[int, int]) -> dict[str, Any] | None:
    """The row of `capability`, else of the closest listed capability below it (a newer minor or a
    future major is taken to be like its closest older neighbour), or None below the oldest row."""
    older = [known for known in ARCHITECTURES if known <= tuple(capability)]
    return ARCHITECTURES[max(older)] if older else None


def open_module(capability: tuple[int, int], name: str | None = None) -> str:
    """OPEN_REQUIRED, OPEN_SUPPORTED or OPEN_UNSUPPORTED: NVIDIA's open kernel modules and a GPU of
    `capability` (major, minor), model `name`."""
    if any(part in str(name or "") for part in OPEN_ONLY_NAMES):
        return OPEN_REQUIRED
    row = nearest_architecture(capability)
    return row["open_module"] if row else OPEN_UNSUPPORTED


def open_module_oldest() -> tuple[int, int]:
    """The oldest capability (major, minor) the open kernel modules drive."""
    return min(capability for capability, row in ARCHITECTURES.items() if row["open_module"] != OPEN_UNSUPPORTED)


def family(major: int, minor: int) -> str:
    """Architecture family of a compute capability, or "unknown" (a capability without a row takes
    FAMILY_OF_MAJOR's answer)."""
    row = architecture((major, minor))
    if row is not None:
        return row["family"] or "unknown"
    return FAMILY_OF_MAJOR.get(major, "unknown")


def targets(capability: tuple[int, int], toolkit: tuple[int, int]) -> bool:
    """Whether CUDA `toolkit` (major, minor) can target `capability` (major, minor)."""
    row = architecture(capability)
    if row is None:
        return False
    first, last = row["first_toolkit"], row["last_toolkit"]
    return (first is None or first <= tuple(toolkit)) and (last is None or tuple(toolkit) <= last)


def toolkit_targets(toolkit: tuple[int, int]) -> list[tuple[int, int]]:
    """The capabilities CUDA `toolkit` (major, minor) targets, in order."""
    return [capability for capability in sorted(ARCHITECTURES) if targets(capability, toolkit)]


def driver_branch(capability: tuple[int, int]) -> int | None:
    """The oldest driver branch that drives a GPU of `capability` (major, minor), or None (any branch)."""
    row = architecture(capability)
    return row["driver_branch"] if row else None


def wheel_sass(cuda: tuple[int, int]) -> list[str]:
    """["sm_70", ...]: the SASS PyTorch's Linux wheels of CUDA channel `cuda` (major, minor) carry."""
    names = []
    for capability in sorted(ARCHITECTURES):
        wheels = ARCHITECTURES[capability]["wheel_sass"]
        if wheels and wheels[0] <= tuple(cuda) and (wheels[1] is None or tuple(cuda) <= wheels[1]):
            names.append("sm_%d%d" % capability)
    return names


def first_wheel_channel(capability: tuple[int, int]) -> tuple[int, int] | None:
    """The first CUDA channel (major, minor) whose Linux wheels carry SASS that runs on `capability`
    (a listed capability of the same major and a minor up to its own), or None."""
    major, minor = capability
    firsts = [row["wheel_sass"][0] for (row_major, row_minor), row in ARCHITECTURES.items()
              if row["wheel_sass"] and row_major == major and row_minor <= minor]
    return min(firsts) if firsts else None


def rate(capability: tuple[int, int], kind: str) -> int | None:
    """Dense FLOP per clock per SM of `kind` ("tensor", "fp32", "fp64") at full rate, or None."""
    row = architecture(capability)
    return (row["rates"] or {}).get(kind) if row else None


def product(name: str) -> dict[str, Any] | None:
    """The PRODUCTS row of an exact model name (surrounding spaces ignored), or None."""
    return PRODUCTS.get((name or "").strip())


def product_line(name: str) -> str:
    """"geforce", "workstation" or "datacenter" of a model name.

    The catalogue's answer for a product it lists; for any other name the name decides: GeForce,
    else RTX or Quadro (workstation), else data center.
    """
    row = product(name)
    if row is not None:
        return row["line"]
    text = (name or "").lower()
    if "geforce" in text:
        return GEFORCE
    if "rtx" in text or "quadro" in text:
        return WORKSTATION
    return DATACENTER


def datasheet_peak(name: str, kind: str) -> float | None:
    """The catalogue's datasheet figure of `kind` for a product, or None."""
    row = product(name)
    return row["peaks"].get(kind) if row else None
