# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch_plan question as one function (its options: plugins/module_utils/stages/): the refusals of the request,
the host read (the interpreter, the paths, nvcc for a source build), the plan from the index pip reads, and whether
the stage is already as asked. The pytorch_plan module and the preflight probe (preflight_facts' `pytorch` option,
which answers the PyTorch stage of site.yml in its own call: stages/pytorch.py) both ask it here.

`run(argv)` runs a read-only command and returns (rc, stdout, stderr) (program_run.runner); `warn(text)`. No
Ansible import: the index is read through ansible.module_utils.urls by wheel_index, imported only when a plan is
made (an adopted stack's converged run has no use for it).
"""
from __future__ import annotations

import functools
import os
import platform
import stat

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import url_secrets
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged, host_plan, resolve, role_steps
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_runner import adopted_before
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import access


def secrets(params):
    """The credentials in the index URLs, the proxy and pip's arguments: the output masks them."""
    return url_secrets([params["index"], params["channel_base"], params["extra_indexes"], params["proxy"],
                        params["pip_extra_args"]])


def look(path):
    """stat's fields the refusals read (links followed), for a path that may not exist."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return {"exists": False}
    return {"exists": True, "isdir": stat.S_ISDIR(mode), "isreg": stat.S_ISREG(mode)}


def pem_text(path):
    """The text of a PEM file (to check that it holds a certificate and a key; never returned), "" without one."""
    if not path or not os.path.isfile(path):
        return ""
    try:
        with open(path, errors="replace") as handle:
            return handle.read()
    except OSError:
        return ""


def answer(params, run, warn, check_mode=False):
    """pytorch_plan's result for the validated options; raises PlanError (planning/errors.py) with the message the module fails
    with. The request's refusals (keep, root, the inputs alone: host_plan.input_refusals) come back in `refusals`
    and `msg` without raising."""
    refusals = (converged.role_refusals(params["keep"], params["user"], params["host"])
                + host_plan.input_refusals(params, os.stat))
    result = {"changed": False, "check_mode": check_mode, "converged": False, "standing": "", "check": None,
              "cuda_check": None, "refusals": refusals}
    if result["refusals"]:
        result["standing"] = "refused"
        result["msg"] = " ".join(result["refusals"])  # the role's failed_when fails the call with it
        return result
    params = dict(params, **dict((option, "" if params.get(option) is None else str(params[option]))
                                 for option in ("version", "channel", "torchvision", "torchaudio")))
    if params["adopt_path"]:
        python = os.path.join(params["adopt_path"], "bin", "python3")
        stack = adopted_before(params["root"], params["adopt_path"], python) if params["root"] else None
        stands(params, result, [{"stack": stack, "python": python, "record": None, "expected": {}}])
        result["summary"] = "adopting %s" % params["adopt_path"]
        return result
    return plan_and_answer(params, result, run, warn)


def plan_stack(params, checked, read, hashes_text=""):
    """The plan of one host after check_host (host_plan): the version table's plan, then the one from the
    catalogue read(index, version=...) reads (index_catalog.read_catalog) for the index pip reads, the auto
    fallback's source plan and the checks after the plan (host_plan.after_plan's answer), or PlanError with the
    refusal. Pure given `read`."""
    args = checked["args"]
    try:
        plan = resolve.resolve_stack(**args)
    except PlanError:  # the version table's refusal stands unless the index pip reads gives the plan
        if not host_plan.index_source(params, {})[0]:
            raise
        plan = {}
    source, confirm = host_plan.index_source(params, plan)
    if source:
        # pylint: disable-next=import-outside-toplevel
        from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.index_catalog import with_index
        args = host_plan.index_args(args, plan, confirm)
        found = read(source, version=args["version"])
        plan = with_index(resolve.resolve_stack(catalog=found["catalog"], **args), found)
    return host_plan.after_plan(params, checked, plan, host_plan.fallback_plan(params, args, plan), hashes_text)


def plan_and_answer(params, result, run, warn):
    """Plan the stack and answer whether the host is as asked."""
    if not os.path.exists(params["python"]):
        raise PlanError("pytorch_python %s is not there on %s: set pytorch_python to an interpreter of "
                        "Python 3.10 or newer." % (params["python"], params["host"]), result)
    version_output = "%s %s" % run([params["python"], "--version"])[1:]  # stderr on Python 2
    tls = access.settings(params["ca_path"], params["client_cert"], params["trusted_hosts"], params["proxy"],
                          params["pip_extra_args"])
    stats = [{"item": item, "stat": look(item["path"])} for item in host_plan.source_paths(params, tls)]
    nvcc = os.path.join(params["cuda_home"], "bin", "nvcc")
    nvcc_output = None
    if params["method"] != "wheel" and os.path.exists(nvcc):
        nvcc_output = run([nvcc, "--version"])[1]
    hashes = ""
    if params["hashes_file"] and os.path.isfile(params["hashes_file"]):
        with open(params["hashes_file"]) as handle:
            hashes = handle.read()
    uv_found = bool(params["uv"]) and os.path.isfile(params["uv"]) and os.access(params["uv"], os.X_OK)
    try:
        checked = host_plan.check_host(params, version_output, stats, nvcc_output, tls=tls,
                                       client_cert_text=pem_text(tls["client_cert"]), uv_found=uv_found)
        # pylint: disable-next=import-outside-toplevel
        from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import index_catalog as index_plan
        read = functools.partial(
            index_plan.read_catalog, python_tag=checked["python_version"], platform=platform.machine(),
            companions=params["companions"], timeout=params["index_timeout"],
            offline_fallback=params["offline_fallback"], proxy=tls["proxy"], ca_path=tls["ca_path"],
            client_cert=tls["client_cert"], trusted_hosts=tls["trusted_hosts"])
        planned = plan_stack(params, checked, read, hashes)
    except PlanError as refused:
        raise PlanError(str(refused), result) from refused
    for warning in planned["plan"].get("warnings") or ():
        warn(warning)  # a companion left out or passed over, the offline fallback, ...: never only a clause of a line
    wheelhouse = params["built_wheelhouse"]
    host_plan.mark_built_wheels(planned, os.listdir(wheelhouse) if wheelhouse and os.path.isdir(wheelhouse) else [])
    result.update(planned, hashes_text=hashes)
    venvs = os.path.join(params["root"], "venvs")
    stands(params, result, [{"stack": plan["stack"], "python": os.path.join(venvs, plan["stack"], "bin", "python"),
                             "record": converged.stack_record(plan, params["python"]), "expected": plan["expected"]}
                            for plan in (planned["plan"], planned.get("fallback"))
                            if plan and not plan.get("error")])
    return result


def profile_content(params):
    """The text of the login-shell profile (role_steps.profile_text, which the role writes): '' without a profile."""
    if not params["profile_path"] or not params["root"]:
        return ""
    return role_steps.profile_text(os.path.join(params["root"], "current"), params["cuda_module_loading"],
                                   params["cuda_alloc_conf"], params["allow_tf32"])


def stands(params, result, candidates):
    """Fill converged, standing and check: is the stage already as asked? (And the profile's text, which the role
    writes: profile_content.)"""
    if not params["root"]:
        result["standing"] = "to change: no root given"
        return
    result["profile_content"] = profile_content(params)
    alias = params["check_alias"] or os.path.join(params["root"], "current", "bin", "python")
    output_dirs = dict(params["check_output_dirs"] or {})
    if params["check_results"]:  # the results' directory is checked like the verify role's, which it is
        output_dirs.setdefault("verify_results_dir", os.path.dirname(params["check_results"]))
    decided = converged.read_and_decide(
        params["root"], params["keep"], candidates,
        {"results": params["check_results"], "code": params["check_code"], "cuda_home": params["check_cuda_home"],
         "force": params["check_force"], "alias": alias, "output_dirs": output_dirs,
         "collection_version": params["check_collection_version"] or "unknown"},
        params["profile_path"], result["profile_content"])
    result.update(converged=decided["converged"], standing=decided["standing"], check=decided["check"],
                  stack=decided["stack"] or "", cuda_check=decided["cuda_check"])
