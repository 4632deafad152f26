# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""stages/summary.py: site.yml's summary lines of a host, exactly."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.summary import NOT_READ, site_summary

RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120",
           "arch_family": "Blackwell", "memory_total_mib": 32607, "pcie_gen_current": 5, "pcie_gen_max": 5,
           "pcie_width_current": 16, "pcie_width_max": 16, "pci_bus_id": "00000000:01:00.0", "source": "nvml"}
LOADED = {"loaded": True, "version": "580.95.05", "branch": "580", "kernel_module_flavor": "open",
          "cuda_driver_version": "13.0", "source": "nvml", "nvml_error": None}


def test_a_converged_host_says_each_stage():
    pytorch = {"check": {"build": {"torch_version": "2.9.1+cu128"}, "reused": True}, "warnings": ["old driver"]}
    verify = {"passed": True, "reused": True, "written": "2026-11-28T10:00:00Z", "results": "/var/lib/bp/verify.json",
              "summary": ["GPU 0: gemm_bf16 0.71 of peak"]}
    assert site_summary([RTX5090], LOADED, {"action": "none", "version": "580.95.05", "reboot_required": False},
                        {"action": "manage", "versions": ["12.8", "13.0"]}, pytorch, verify) == [
        "[0] NVIDIA GeForce RTX 5090 | capability 12.0 (sm_120, Blackwell) | 32607 MiB | PCIe gen 5/5 x16/16 | bus "
        "00000000:01:00.0 | nvml",
        "driver 580.95.05 (branch 580, open kernel module), CUDA driver API 13.0, facts via nvml",
        "driver: none 580.95.05", "toolkit: manage CUDA 12.8, 13.0",
        "pytorch: torch 2.9.1+cu128, torch_cuda_check stored result reused", "pytorch WARNING: old driver",
        "verify: PASSED (stored result of 2026-11-28T10:00:00Z, fingerprint unchanged), results in "
        "/var/lib/bp/verify.json", "GPU 0: gemm_bf16 0.71 of peak"]


def test_stages_not_run_and_no_preflight():
    skipped_toolkit = {"skipped": True, "changed": False}
    assert site_summary([], None, None, skipped_toolkit) == [
        NOT_READ, "driver: stage not run", "toolkit: stage not run", "pytorch: stage not run or no stack checked",
        "verify: stage not run"]


def test_the_driver_line_without_a_driver_and_the_verdicts():
    gpu = dict(RTX5090, memory_total_mib=None)
    lines = site_summary([gpu], {"loaded": False, "nvml_error": "Driver Not Loaded"},
                         {"action": "install", "version": "", "reboot_required": True}, None,
                         {"check": {"build": {}, "reused": False}}, {"passed": False, "deferred": True, "results": "/r"})
    assert lines[0].endswith("| ? MiB | PCIe gen 5/5 x16/16 | bus 00000000:01:00.0 | nvml")
    assert lines[1:] == ["no NVIDIA driver loaded (NVML: Driver Not Loaded)", "driver: install none (reboot required)",
                         "toolkit: stage not run", "pytorch: torch ?, torch_cuda_check ran", "verify: DEFERRED, results in /r"]
    assert site_summary([], LOADED, verify={"passed": False, "preview": True, "results": "/r"})[-1] == \
        "verify: PREVIEW, results in /r"
    assert site_summary([], dict(LOADED, cuda_driver_version=None), verify={"results": "/r"})[0:1] == [
        "driver 580.95.05 (branch 580, open kernel module), CUDA driver API unknown, facts via nvml"]
    assert site_summary([], LOADED, verify={"results": "/r"})[-1] == "verify: FAILED, results in /r"
