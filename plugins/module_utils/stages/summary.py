# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""site.yml's summary of a host: one line per GPU, the loaded driver, then one line per stage from the fact its
role published (or "stage not run"), the PyTorch stage's warnings and the verify stage's summary lines. Pure; the
site_summary filter is its shell. No Ansible import."""
from __future__ import annotations

from typing import Any, Optional

NOT_READ = "GPUs and driver: not read in this run (the preflight did not run: --tags left it out)"


def _or(value: Any, fallback: str) -> Any:
    """Jinja's default(fallback, true): the fallback for a value that is missing, empty or false."""
    return value if value else fallback


def gpu_line(gpu: dict[str, Any]) -> str:
    """One GPU: index, name, capability, memory, PCIe link, bus id and where the facts came from."""
    return "[%s] %s | capability %s (%s, %s) | %s MiB | PCIe gen %s/%s x%s/%s | bus %s | %s" % (
        gpu.get("index"), gpu.get("name"), gpu.get("compute_capability"), gpu.get("sm"), gpu.get("arch_family"),
        _or(gpu.get("memory_total_mib"), "?"), gpu.get("pcie_gen_current"), gpu.get("pcie_gen_max"),
        gpu.get("pcie_width_current"), gpu.get("pcie_width_max"), gpu.get("pci_bus_id"), gpu.get("source"))


def driver_line(driver: Optional[dict[str, Any]]) -> str:
    """The loaded driver as the preflight read it (None: the preflight did not run in this play)."""
    if driver is None:
        return NOT_READ
    if driver.get("loaded"):
        line = "driver %s (branch %s, %s kernel module), CUDA driver API %s, facts via %s" % (
            driver.get("version"), driver.get("branch"), driver.get("kernel_module_flavor"),
            _or(driver.get("cuda_driver_version"), "unknown"), driver.get("source"))
    else:
        line = "no NVIDIA driver loaded"
    return line + (" (NVML: %s)" % driver["nvml_error"] if driver.get("nvml_error") else "")


def stage_lines(driver_status: Optional[dict[str, Any]], toolkit_status: Optional[dict[str, Any]],
                pytorch: Optional[dict[str, Any]], verify: Optional[dict[str, Any]]) -> list[str]:
    """One line per stage from its role's published fact (None: the stage did not run; a toolkit status registered
    by a skipped call counts as not run), the PyTorch warnings and the verify stage's own summary lines."""
    lines = ["driver: " + ("%s %s%s" % (driver_status.get("action"), _or(driver_status.get("version"), "none"),
                                        " (reboot required)" if driver_status.get("reboot_required") else "")
                           if driver_status is not None else "stage not run")]
    ran = toolkit_status is not None and not toolkit_status.get("skipped")
    lines.append("toolkit: " + ("%s CUDA %s" % (toolkit_status.get("action"), ", ".join(
        str(version) for version in toolkit_status.get("versions") or [])) if ran else "stage not run"))
    pytorch = pytorch or {}
    check = pytorch.get("check")
    lines.append("pytorch: " + ("torch %s, torch_cuda_check %s" % (
        _or((check.get("build") or {}).get("torch_version"), "?"), "stored result reused" if check.get("reused") else "ran")
        if check is not None else "stage not run or no stack checked"))
    lines += ["pytorch WARNING: %s" % warning for warning in pytorch.get("warnings") or []]
    if verify is None:
        lines.append("verify: stage not run")
        return lines
    # a verification deferred because other users' processes held the GPUs is neither; its summary says "busy: ..."
    verdict = ("PASSED" if verify.get("passed") else "PREVIEW" if verify.get("preview")
               else "DEFERRED" if verify.get("deferred") else "FAILED")
    stored = " (stored result of %s, fingerprint unchanged)" % verify.get("written") if verify.get("reused") else ""
    lines.append("verify: %s%s, results in %s" % (verdict, stored, verify.get("results")))
    return lines + list(verify.get("summary") or [])


def site_summary(gpus: Optional[list[dict[str, Any]]], driver: Optional[dict[str, Any]],
                 driver_status: Optional[dict[str, Any]] = None, toolkit_status: Optional[dict[str, Any]] = None,
                 pytorch: Optional[dict[str, Any]] = None, verify: Optional[dict[str, Any]] = None) -> list[str]:
    """The summary's lines: gpu_line for each GPU, driver_line, then stage_lines."""
    return [gpu_line(gpu) for gpu in gpus or []] + [driver_line(driver)] + stage_lines(
        driver_status, toolkit_status, pytorch, verify)
