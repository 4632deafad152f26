# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the pytorch role plans with: thin shells over module_utils/planning (resolve, source_build,
lifecycle), each documented in a sidecar YAML file of its name. Versions are read with packaging
(plugin_utils/versions.py)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, resolve as torch_resolve
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_build as torch_source
from ansible_collections.blackwell.pytorch.plugins.plugin_utils import versions
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import (
    as_bool, as_dict, as_dicts, as_list, call, text)


def torch_plan(version, channel="", torchvision="", torchaudio="", companions=("torchvision", "torchaudio"),
               gpus=None, driver_cuda=None, method="wheel", toolkit_cuda=None, builds=True, local_label=True,
               cuda_home="/usr/local/cuda"):
    """The plan of one host (torch_resolve.resolve_stack); plan.error holds a refusal."""
    name = "torch_plan"
    return call(name, torch_resolve.resolve_stack, version=text(version), channel=text(channel),
                torchvision=text(torchvision), torchaudio=text(torchaudio),
                companions=[text(c) for c in as_list(companions, "companions", name)],
                gpus=as_dicts(gpus, "gpus", name), driver_cuda=driver_cuda or None, method=text(method),
                toolkit_cuda=text(toolkit_cuda) or None, builds=as_bool(builds, "builds", name),
                local_label=as_bool(local_label, "local_label", name), cuda_home=text(cuda_home),
                parse=versions.parse)


def torch_arch_list(gpu_lists, ptx=False):
    """TORCH_CUDA_ARCH_LIST for the GPUs of every host (a list of per-host GPU lists)."""
    name = "torch_arch_list"
    hosts = [as_dicts(gpus, "gpu_lists[%d]" % index, name)
             for index, gpus in enumerate(as_list(gpu_lists, "gpu_lists", name))]
    return call(name, torch_source.arch_list, hosts, ptx=as_bool(ptx, "ptx", name))


def torch_arch_rejections(arch_list, cmake_text, nvcc_arch_output=""):
    """Entries of TORCH_CUDA_ARCH_LIST the tree or the toolkit cannot build."""
    return call("torch_arch_rejections", torch_source.build_rejections, text(arch_list), text(cmake_text),
                text(nvcc_arch_output))


def torch_max_jobs(cpus, memory_mb, gib_per_job=torch_source.DEFAULT_GIB_PER_JOB, override=0):
    """MAX_JOBS of a source build from the cores and the available memory."""
    return call("torch_max_jobs", torch_source.max_jobs, cpus, memory_mb, gib_per_job=gib_per_job, override=override)


def torch_hashes_mismatches(hashes_text, pins):
    """Pins of the plan the hashes file does not pin exactly."""
    name = "torch_hashes_mismatches"
    return call(name, torch_resolve.hashes_file_mismatches, text(hashes_text),
                [text(pin) for pin in as_list(pins, "pins", name)])


def torch_pip_progress(log_text):
    """One line on what pip is doing, from its log."""
    return lifecycle.pip_progress(text(log_text))


def torch_plan_summary(plan):
    """The one-line report of a plan."""
    return call("torch_plan_summary", role_messages.plan_summary, as_dict(plan, "plan", "torch_plan_summary"))


def torch_missing_paths(stat_results, host):
    """The refusal for the given paths that do not exist (wheelhouse, constraints, hashes)."""
    name = "torch_missing_paths"
    return call(name, role_messages.missing_paths, as_dicts(stat_results, "stat_results", name), text(host))


def torch_arch_refusal(arch_list, cmake_text, nvcc_arch_output="", tree="", ref="", cuda_home=""):
    """The refusal of an arch list the tree or the toolkit cannot build (empty when none)."""
    return call("torch_arch_refusal", role_messages.arch_refusal, text(arch_list),
                torch_arch_rejections(arch_list, cmake_text, nvcc_arch_output), text(tree), text(ref), text(cuda_home))


def torch_check_summary(check, stack, gpus_known, min_verdict="", require=()):
    """The gate's one-line report of a torch_cuda_check result."""
    name = "torch_check_summary"
    return call(name, role_messages.check_summary, text(stack), as_dict(check, "check", name),
                bool(gpus_known), text(min_verdict), [text(r) for r in as_list(require, "require", name)])


def torch_poll_report(log_tail, what, host, seconds, finished):
    """The line a poll of a background install or build prints."""
    name = "torch_poll_report"
    try:
        seconds = float(seconds)
    except (TypeError, ValueError):
        raise AnsibleFilterError("%s: seconds must be a number, got %r" % (name, seconds))
    return call(name, role_messages.poll_report, text(what), text(host), seconds,
                bool(finished) and str(finished).lower() not in ("false", "no", "0"), text(log_tail))


def torch_gate_failure(check, plan, fallback=None, kept="", current=""):
    """The gate's failure message after a failed torch_cuda_check; "" when auto builds from source instead."""
    name = "torch_gate_failure"
    return call(name, role_messages.gate_failure, as_dict(check, "check", name), as_dict(plan, "plan", name),
                None if fallback is None else as_dict(fallback, "fallback", name), text(kept), text(current))


class FilterModule(object):
    """blackwell.pytorch PyTorch planning filters."""

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
            "torch_gate_failure": torch_gate_failure,
        }
