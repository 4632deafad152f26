# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters the pytorch role plans with: thin shells over module_utils/planning (resolve, source_build,
lifecycle), each documented in a sidecar YAML file of its name. Versions are read with packaging
(plugin_utils/versions.py)."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import (
    as_bool, as_dict, as_dicts, as_list, call, text)
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils, plugin_utils

install_command = module_utils("planning.install_command")
plan_errors = module_utils("planning.errors")
torch_resolve = module_utils("planning.resolve")
role_messages = module_utils("planning.role_messages")
role_steps = module_utils("planning.role_steps")
torch_wheelhouse_steps = module_utils("planning.wheelhouse")
torch_source = module_utils("planning.source_build")
versions = plugin_utils("versions")


def torch_plan(version, channel="", torchvision="", torchaudio="", companions=("torchvision", "torchaudio"),
               gpus=None, driver_cuda=None, method="wheel", toolkit_cuda=None, builds=True, local_label=True,
               cuda_home="/usr/local/cuda"):
    """The plan of one host (torch_resolve.resolve_stack); plan.error holds a refusal (planning's PlanError)."""
    name = "torch_plan"
    arguments = dict(version=text(version), channel=text(channel), torchvision=text(torchvision),
                     torchaudio=text(torchaudio), companions=[text(c) for c in as_list(companions, "companions", name)],
                     gpus=as_dicts(gpus, "gpus", name), driver_cuda=driver_cuda or None, method=text(method),
                     toolkit_cuda=text(toolkit_cuda) or None, builds=as_bool(builds, "builds", name),
                     local_label=as_bool(local_label, "local_label", name), cuda_home=text(cuda_home),
                     parse=versions.parse)
    return call(name, _plan_or_refusal, **arguments)


def _plan_or_refusal(**arguments):
    """resolve_stack's plan, or its refusal (PlanError) as the plan's error; another ValueError is a bad input."""
    try:
        return torch_resolve.resolve_stack(**arguments)
    except plan_errors.PlanError as err:
        return {"error": str(err)}


def torch_arch_list(gpu_lists, ptx=False):
    """TORCH_CUDA_ARCH_LIST for the GPUs of every host (a list of per-host GPU lists)."""
    name = "torch_arch_list"
    hosts = [as_dicts(gpus, "gpu_lists[%d]" % index, name)
             for index, gpus in enumerate(as_list(gpu_lists, "gpu_lists", name))]
    return call(name, torch_source.arch_list, hosts, ptx=as_bool(ptx, "ptx", name))


def torch_max_jobs(cpus, memory_mb, gib_per_job=None, override=0):
    """MAX_JOBS of a source build from the cores and the available memory (gib_per_job: the module's default, 4)."""
    if gib_per_job is None:
        gib_per_job = torch_source.DEFAULT_GIB_PER_JOB
    return call("torch_max_jobs", torch_source.max_jobs, cpus, memory_mb, gib_per_job=gib_per_job, override=override)


def torch_check_summary(check, stack, gpus_known=False, min_verdict="", require=(), policy=None):
    """The gate's one-line report of a torch_cuda_check result; with policy (the gate's, torch_decide's or
    torch_check_policy's) instead of gpus_known, min_verdict and require (role_messages.gate_summary)."""
    name = "torch_check_summary"
    if policy is not None:
        return call(name, role_messages.gate_summary, text(stack), as_dict(check, "check", name),
                    as_dict(policy, "policy", name))
    return call(name, role_messages.check_summary, text(stack), as_dict(check, "check", name),
                bool(gpus_known), text(min_verdict), [text(r) for r in as_list(require, "require", name)])


def torch_gate_failure(check, plan=None, fallback=None, kept="", current="", steps=None, state=None):
    """The gate's failure message after a failed torch_cuda_check; "" when auto builds from source instead. With
    steps (the failed stack's) and state (torch_decide's) instead of plan, fallback, kept and current
    (role_steps.gate_failure)."""
    name = "torch_gate_failure"
    if steps is not None or state is not None:
        return call(name, role_steps.gate_failure, as_dict(check, "check", name), as_dict(state, "state", name),
                    as_dict(steps, "steps", name))
    return call(name, role_messages.gate_failure, as_dict(check, "check", name), as_dict(plan, "plan", name),
                None if fallback is None else as_dict(fallback, "fallback", name), text(kept), text(current))


def torch_decide(own, build_host_result=None, settings=None):
    """The pytorch role's decision: what it installs, whether the host is already as asked, the gate's policy and
    what a host already as asked publishes (role_steps.decide)."""
    name = "torch_decide"
    return call(name, role_steps.decide, as_dict(own, "_input", name),
                as_dict(build_host_result, "build_host_result", name) or None, as_dict(settings, "settings", name))


def torch_adopted_steps(adopted, keep=2, root=""):
    """The gate's and the pruning's steps for an adopted environment (role_steps.adopted_steps)."""
    name = "torch_adopted_steps"
    return call(name, role_steps.adopted_steps, as_dict(adopted, "_input", name), int(keep), text(root))


def torch_pip_args(pip, plan=None, build=False):
    """pip's arguments: the stack install's for `plan`, or with build the source tree's requirements'."""
    name = "torch_pip_args"
    settings = as_dict(pip, "_input", name)
    if as_bool(build, "build", name):
        return call(name, role_steps.build_pip_args, settings)
    return call(name, role_steps.pip_args, as_dict(plan, "plan", name, allow_none=False), settings)


def torch_pip_private(args, index_url=""):
    """pip's arguments (a list, or text split on whitespace) with no credential left on them, and what pip reads
    instead (install_command.private_credentials): {argv, requirements: the index URLs for --requirement from a
    pipe, index_url first, env: PIP_PROXY for a proxy with a password}."""
    name = "torch_pip_private"
    words = text(args).split() if isinstance(args, str) else [text(a) for a in as_list(args, "_input", name)]
    kept, moved = call(name, install_command.private_credentials, words)
    lines = (["--index-url %s" % text(index_url)] if text(index_url) else []) + ["%s %s" % pair for pair in moved["index"]]
    lines += ["--find-links %s" % url for url in moved["find_links"]]
    return {"argv": kept, "requirements": "".join(line + "\n" for line in lines),
            "env": {"PIP_PROXY": moved["proxy"]} if moved["proxy"] else {}}


def torch_check_policy(gpus, min_verdict="", require=()):
    """torch_cuda_check's min_verdict and require for the GPUs the facts list (role_steps.check_policy)."""
    name = "torch_check_policy"
    return call(name, role_steps.check_policy, as_dicts(gpus, "_input", name), text(min_verdict),
                [text(r) for r in as_list(require, "require", name)])


def torch_profile(current, module_loading="LAZY", alloc_conf="", allow_tf32=False, managed="Ansible managed"):
    """The text of the role's profile.d file (role_steps.profile_text)."""
    name = "torch_profile"
    return call(name, role_steps.profile_text, text(current), text(module_loading), text(alloc_conf),
                as_bool(allow_tf32, "allow_tf32", name), text(managed))


def torch_published(state, plan=None, steps=None, check=None, current="", build=None):
    """The blackwell_pytorch fact (role_steps.published: without plan, the one steps carry; without current, the link
    under the state's root)."""
    name = "torch_published"
    return call(name, role_steps.published, as_dict(state, "_input", name), as_dict(plan, "plan", name),
                as_dict(steps, "steps", name), as_dict(check, "check", name) or None, text(current),
                as_dict(build, "build", name) or None)


def torch_settled(state, own=None, current=""):
    """What the role publishes on a host already as asked, null otherwise (role_steps.settled_facts)."""
    name = "torch_settled"
    return call(name, role_steps.settled_facts, as_dict(state, "_input", name), as_dict(own, "own", name), text(current))


def torch_wheelhouse(state, fetch_dir="", wheelhouse=""):
    """The fleet wheelhouse of the cache host: {refusal: "" when the request has wheels to fetch, cache: the
    pytorch_wheelhouse_cache fact, hashes_path, pins, check_mode} (planning/wheelhouse.fetch)."""
    name = "torch_wheelhouse"
    return call(name, torch_wheelhouse_steps.fetch, as_dict(state, "_input", name), text(fetch_dir), text(wheelhouse))


def torch_wheelhouse_report(names, download=None):
    """The wheelhouse entry point's last line (planning/wheelhouse.fetched)."""
    name = "torch_wheelhouse_report"
    return call(name, torch_wheelhouse_steps.fetched, as_dict(names, "_input", name, allow_none=False),
                as_dict(download, "download", name))


def torch_wheelhouse_use(source, root="", check_mode=False):
    """The wheelhouse_use entry point's steps for pytorch_wheelhouse_from (planning/wheelhouse.use)."""
    name = "torch_wheelhouse_use"
    return call(name, torch_wheelhouse_steps.use, source, text(root), as_bool(check_mode, "check_mode", name))


class FilterModule(object):
    """blackwell.pytorch PyTorch planning filters."""

    def filters(self):
        return {
            "torch_plan": torch_plan,
            "torch_arch_list": torch_arch_list,
            "torch_max_jobs": torch_max_jobs,
            "torch_check_summary": torch_check_summary,
            "torch_gate_failure": torch_gate_failure,
            "torch_decide": torch_decide,
            "torch_adopted_steps": torch_adopted_steps,
            "torch_pip_args": torch_pip_args,
            "torch_pip_private": torch_pip_private,
            "torch_check_policy": torch_check_policy,
            "torch_published": torch_published,
            "torch_settled": torch_settled,
            "torch_profile": torch_profile,
            "torch_wheelhouse": torch_wheelhouse,
            "torch_wheelhouse_report": torch_wheelhouse_report,
            "torch_wheelhouse_use": torch_wheelhouse_use,
        }
