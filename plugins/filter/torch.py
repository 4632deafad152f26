# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the pytorch role plans with: the logic lives in module_utils/planning (resolve,
source_build, lifecycle); each filter is documented in a sidecar YAML file of its name."""
from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, resolve as torch_resolve
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_build as torch_source


def torch_plan(version, channel="", torchvision="", torchaudio="", companions=("torchvision", "torchaudio"),
               gpus=None, driver_cuda=None, method="wheel", toolkit_cuda=None, builds=True, local_label=True,
               cuda_home="/usr/local/cuda"):
    """The plan of one host (torch_resolve.resolve_stack); plan.error holds a refusal."""
    try:
        return torch_resolve.resolve_stack(
            version=version or "", channel=channel or "", torchvision=torchvision or "", torchaudio=torchaudio or "",
            companions=list(companions or ()), gpus=list(gpus or ()), driver_cuda=driver_cuda or None,
            method=method, toolkit_cuda=toolkit_cuda or None, builds=bool(builds), local_label=bool(local_label),
            cuda_home=cuda_home)
    except (ValueError, KeyError, TypeError) as exc:
        raise AnsibleFilterError("torch_plan: %s" % exc)


def torch_arch_list(gpu_lists, ptx=False):
    try:
        return torch_source.arch_list(gpu_lists, ptx=bool(ptx))
    except (ValueError, TypeError, AttributeError) as exc:
        raise AnsibleFilterError("torch_arch_list: %s" % exc)


def torch_arch_rejections(arch_list, cmake_text, nvcc_arch_output=""):
    return torch_source.arch_rejections(cmake_text, arch_list) + torch_source.nvcc_rejections(nvcc_arch_output, arch_list)


def torch_max_jobs(cpus, memory_mb, gib_per_job=torch_source.DEFAULT_GIB_PER_JOB, override=0):
    return torch_source.max_jobs(cpus, memory_mb, gib_per_job=gib_per_job, override=override)


def torch_hashes_mismatches(text, pins):
    return torch_resolve.hashes_file_mismatches(text, pins)


def torch_pip_progress(log_text):
    return lifecycle.pip_progress(log_text)


def torch_plan_summary(plan):
    return role_messages.plan_summary(plan)


def torch_missing_paths(stat_results, host):
    return role_messages.missing_paths(stat_results, host)


def torch_arch_refusal(arch_list, cmake_text, nvcc_arch_output="", tree="", ref="", cuda_home=""):
    return role_messages.arch_refusal(arch_list, torch_arch_rejections(arch_list, cmake_text, nvcc_arch_output),
                                      tree, ref, cuda_home)


def torch_check_summary(check, stack, gpus_known, min_verdict="", require=()):
    return role_messages.check_summary(stack, check, bool(gpus_known), min_verdict or "", list(require or ()))


def torch_poll_report(log_tail, what, host, seconds, finished):
    return role_messages.poll_report(what, host, float(seconds), bool(finished), log_tail)


class FilterModule(object):
    def filters(self):
        return {
            "torch_plan": torch_plan,
            "torch_arch_list": torch_arch_list,
            "torch_arch_rejections": torch_arch_rejections,
            "torch_max_jobs": torch_max_jobs,
            "torch_hashes_mismatches": torch_hashes_mismatches,
            "torch_pip_progress": torch_pip_progress,
            "torch_plan_summary": torch_plan_summary,
            "torch_missing_paths": torch_missing_paths,
            "torch_arch_refusal": torch_arch_refusal,
            "torch_check_summary": torch_check_summary,
            "torch_poll_report": torch_poll_report,
        }
