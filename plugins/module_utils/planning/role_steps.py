# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the pytorch role derives from pytorch_plan's answer, a host's settings and later results: the plan this
host installs (its own, or the build host's when that one builds), the paths and marker record of the stack,
the OS packages, the source build's tree, the pip arguments, the gate's policy and the published fact.

Pure functions (the role calls them through the torch_* filters, on the controller): the pip arguments carry
the index's credentials, so they are made where they are used and never returned by a module (its output
masks them). Python 3.9, no Ansible import.
"""
from __future__ import annotations

import shlex
from typing import Any, Optional

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged, role_messages

FAMILY = ("torch", "torchvision", "torchaudio")
# The OS family's packages: the venv module of the OS Python, and the source build's tools.
OS_PACKAGES = {
    "Debian": {"venv": ["python3-venv"], "build": ["git", "build-essential", "cmake", "ninja-build", "python3-dev"]},
    "RedHat": {"venv": [], "build": ["git", "gcc-c++", "make", "cmake", "ninja-build", "python3-devel"]},
}
# torch_cuda_check's requirements that hold without a GPU.
GPULESS_REQUIRE = ("nccl", "torchvision", "torchaudio")


def os_packages(os_family, builds_wheel, build_tools=True):
    """What the stack step installs with the OS package manager: the venv module, and the source build's tools
    when this host compiles torch in this run and the role may install them. Unknown families install nothing."""
    known = OS_PACKAGES.get(os_family, {"venv": [], "build": []})
    return list(known["venv"]) + (list(known["build"]) if builds_wheel and build_tools else [])


def builds_here(host, build_host):
    """Whether this host builds: no build host, or this host is it."""
    return not build_host or build_host == host


def planned_result(own, build_host_result, host, build_host):
    """The pytorch_plan result whose plan this host installs: the build host's for a source plan that another
    host builds (its toolkit decides the companions' channel), else its own."""
    plan = own.get("plan") or {}
    if plan.get("method") == "source" and not builds_here(host, build_host) and build_host_result:
        return build_host_result
    return own


def stack_steps(plan, settings, check_mode=False):
    """The paths, record and packages of installing `plan` on a host, and the plan itself. settings: root, python
    (the interpreter that makes the venv), os_family, build_tools (pytorch_build_install_packages), host,
    build_host, source_ref, source_dir. fetches_wheel: this host builds for a build host's fleet and has a wheel
    to bring to the controller (one an earlier run built, or this run's; none in a check run). None for no plan
    (adopting)."""
    if not plan:
        return None
    root = settings["root"].rstrip("/") or "/"
    venvs, build_dir = root + "/venvs", root + "/build"
    here = builds_here(settings.get("host"), settings.get("build_host"))
    source = plan.get("method") == "source"
    builds_wheel = source and here and not plan.get("built_wheel")
    ref = settings.get("source_ref") or "v%s" % plan.get("torch", "")
    return {
        "plan": plan, "stack": plan["stack"], "stack_dir": "%s/%s" % (venvs, plan["stack"]),
        "python": "%s/%s/bin/python" % (venvs, plan["stack"]),
        "install_log": "%s/.%s.pip.log" % (venvs, plan["stack"]),
        "record": converged.stack_record(plan, settings["python"]),
        "builds_here": here, "builds_wheel": builds_wheel,
        "fetches_wheel": (source and here and bool(settings.get("build_host"))
                          and (bool(plan.get("built_wheel")) or not check_mode)),
        "packages": os_packages(settings.get("os_family"), builds_wheel, settings.get("build_tools", True)),
        "already_current": False, "nothing_to_prune": False,
        "source": {"ref": ref, "tree": settings.get("source_dir") or "%s/src/pytorch-%s" % (build_dir, ref),
                   "clone": not settings.get("source_dir"), "dir": build_dir, "venv": build_dir + "/venv",
                   "log": "%s/%s.log" % (build_dir, plan["stack"])},
    }


def adopted_steps(adopted, keep, root):
    """The steps of an adopted environment (pytorch_stack state adopted's result): the gate checks its
    interpreter; `current` already pointing to it needs no switch; fewer stacks than `keep`, even counting one
    a check run would add, need no pruning (one module call less each on a converged host)."""
    stack = adopted.get("stack") or ""
    current = (adopted.get("links") or {}).get("current") or ""
    stacks = adopted.get("stacks")
    return {"plan": None, "stack": stack, "stack_dir": "%s/venvs/%s" % (root.rstrip("/"), stack),
            "python": adopted.get("python") or "", "packages": [], "builds_here": False, "builds_wheel": False,
            "fetches_wheel": False, "source": None, "record": None,
            "install_log": "", "already_current": bool(stack) and current == "venvs/" + stack,
            "nothing_to_prune": stacks is not None and len(stacks) < int(keep)}


def role_state(own, build_host_result, settings):
    """What the role decides from this host's pytorch_plan result `own` (and the build host's): {adopting, plan,
    fallback, steps, fallback_steps, converged, report, check_mode, stack (the stack pytorch_plan compared)}. converged: pytorch_plan found the stage as
    asked, for the plan this host installs; report: the plan's line and the host's standing ("" when refused)."""
    adopting = bool(settings.get("adopt_path"))
    planned = own if adopting else planned_result(own, build_host_result, settings.get("host"),
                                                  settings.get("build_host"))
    plan = None if adopting else planned.get("plan")
    fallback = None if adopting else own.get("fallback")
    refused, check_mode = bool(own.get("refusals")), bool(own.get("check_mode"))
    return {
        "adopting": adopting, "plan": plan, "fallback": fallback, "stack": own.get("stack") or "",
        "steps": stack_steps(plan, settings, check_mode),
        "fallback_steps": (stack_steps(fallback, settings, check_mode)
                           if fallback and not fallback.get("error") else None),
        "converged": bool(own.get("converged")) and (adopting or planned.get("plan") == own.get("plan")),
        "report": "" if refused else "%s; %s" % (planned.get("summary", ""), own.get("standing", "")),
        "check_mode": check_mode,
    }


def index_url(plan, pip):
    """The index pip reads: pytorch_index_url, else <pytorch_channel_base_url>/<the plan's channel>."""
    if pip.get("index"):
        return pip["index"]
    return "%s/%s" % ((pip.get("channel_base") or "").rstrip("/"), plan.get("channel") or "")


def _each(option, values):
    return ["%s=%s" % (option, value) for value in values or ()]


def _given(option, value):
    return [option, value] if value else []


def pip_args(plan, pip):
    """The one pip (or uv) call's arguments for `plan`: where wheels come from (the wheelhouse offline, else the
    index and the extra indexes; a source plan's build wheelhouse too), binary-only torch family, trusted
    hosts, proxy, the index's CA bundle and client certificate, cache, constraints, the extra arguments, then
    the exact pins or the hashes file (hash-checking mode pins them itself). pip: the role's pip settings
    (index, channel_base, extra_indexes, wheelhouse, built_wheelhouse, trusted_hosts, proxy, ca_path,
    client_cert, cache_dir, constraints_file, hashes_file, extra_args)."""
    if pip.get("wheelhouse"):
        where = ["--no-index", "--find-links", pip["wheelhouse"]]
    else:
        where = ["--index-url", index_url(plan, pip)] + _each("--extra-index-url", pip.get("extra_indexes"))
    if plan.get("method") == "source":
        where += ["--find-links", pip.get("built_wheelhouse") or ""]
    options = (["--only-binary", ",".join(FAMILY)] + _each("--trusted-host", pip.get("trusted_hosts"))
               + _given("--proxy", pip.get("proxy")) + _given("--cert", pip.get("ca_path"))
               + _given("--client-cert", pip.get("client_cert")) + _given("--cache-dir", pip.get("cache_dir"))
               + _given("--constraint", pip.get("constraints_file")) + list(pip.get("extra_args") or ()))
    if pip.get("hashes_file"):
        return where + options + ["--require-hashes", "--requirement", pip["hashes_file"]]
    return where + options + list(plan.get("pins") or ())


def build_pip_args(pip):
    """pip arguments of a source tree's requirements in the build venv: from the wheelhouse when there is one,
    the trusted hosts and the proxy."""
    return ((["--no-index", "--find-links", pip["wheelhouse"]] if pip.get("wheelhouse") else [])
            + _each("--trusted-host", pip.get("trusted_hosts")) + _given("--proxy", pip.get("proxy")))


def check_policy(gpus, min_verdict, require):
    """torch_cuda_check's policy: min_verdict only where the facts list GPUs ("" for none); without GPUs only
    the requirements that hold without one."""
    if gpus:
        return {"min_verdict": min_verdict or "", "require": list(require or ())}
    return {"min_verdict": "", "require": [item for item in require or () if item in GPULESS_REQUIRE]}


def profile_text(current, module_loading, alloc_conf, allow_tf32=False, managed="Ansible managed"):
    """The text of /etc/profile.d/pytorch.sh (pytorch_profile_path): the stack `current` points to and the runtime
    settings, each value shell-quoted. The role writes it and pytorch_plan compares it, so both take it from here."""
    lines = ["# %s (blackwell.pytorch role pytorch)" % managed,
             "# PyTorch runtime settings (docs/domain.md section 6). Activate the stack with:",
             "#   . %s/bin/activate" % current,
             "export PYTORCH_STACK=%s" % shlex.quote(current),
             "export CUDA_MODULE_LOADING=%s" % shlex.quote(module_loading),
             "export PYTORCH_CUDA_ALLOC_CONF=%s" % shlex.quote(alloc_conf)]
    if allow_tf32:
        lines += ["# TF32 matmuls (pytorch_allow_tf32: true): faster, changes numerics.",
                  "export TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=1"]
    return "\n".join(lines) + "\n"


def current_link(state: dict[str, Any]) -> str:
    """The `current` link under the root the decision (decide) was made for; "" without one."""
    return "%s/current" % state["root"] if state.get("root") else ""


def published(state, plan, steps, check, current, build=None):
    """The role's one published fact (blackwell_pytorch): the stack `current` points to (this run's `steps`, or on
    a host already as asked the one that stands), its interpreter, torch release, channel and method (of `plan`,
    the plan this run installed: when none is given, the one `steps` carry), whether the host was already as
    asked, the gate's check in short ({reused, build}; null when no check ran) and, for a source plan, its wheel
    and whether this run built it, with the build's progress lines (`build`: the build step's result, null or
    empty when it did not run), and the plan's warnings (a newer torch passed over for a companion the index
    lacks, a companion left out, ...). `current` "": the link under the decision's root (current_link)."""
    plan = plan or (steps or {}).get("plan") or {}
    current = current or current_link(state)
    torch_build = dict((check or {}).get("build") or {})
    stack = state.get("stack") if state.get("converged") else (steps or {}).get("stack")
    source = None
    if plan.get("method") == "source":
        ran = build or {}
        source = {"wheel": plan.get("built_wheel") or ran.get("wheel") or "", "built": "reports" in ran,
                  "reports": list(ran.get("reports") or ())}
    return {
        "stack": stack or "",
        "python": current.rstrip("/") + "/bin/python",
        "torch": torch_build.get("torch_version") or plan.get("torch") or "",
        "channel": plan.get("channel") or "", "method": "adopted" if state.get("adopting") else plan.get("method", ""),
        "converged": bool(state.get("converged")),
        "check": {"reused": bool((check or {}).get("reused")), "build": torch_build} if check else None,
        "source": source,
        "warnings": list(plan.get("warnings") or ()),  # a companion left out or passed over, ...: site.yml's summary
    }


def settled_facts(state, own, current):
    """What the role publishes on a host already as asked, the one rule of its decision step (the torch_settled
    filter) and of the preflight probe (stages/pytorch.py): {"published": blackwell_pytorch, "check": the
    gate's stored check marked reused, "cuda_check": blackwell_cuda_check, None when the answer has none}. `state`:
    role_state's decision; `own`: this host's pytorch_plan result (or the probe's answer); `current`: the link the
    stacks are reached through. None when the host is not as asked (the change path publishes then)."""
    if not state.get("converged"):
        return None
    own = own or {}
    check = dict(own.get("check") or {}, reused=True)
    return {"published": published(state, None if state.get("adopting") else state.get("plan"), state.get("steps"),
                                   check, current),
            "check": check, "cuda_check": own.get("cuda_check") or None}


def decide(own: dict[str, Any], build_host_result: Optional[dict[str, Any]],
           settings: dict[str, Any]) -> dict[str, Any]:
    """The role's decision step in one answer: role_state's (plan, steps, converged, report, ...) with the root and
    adopt_path it was made for, the gate's policy (check_policy over settings gpus, min_verdict, require), the GPUs
    planned for (gpus: the source build's arch list), the interpreter's version (python_version, for the
    wheelhouse entry point) and what a host already as asked publishes (settled_facts): published
    (blackwell_pytorch), check and cuda_check (blackwell_cuda_check), each None where nothing is published."""
    state = role_state(own, build_host_result, settings)
    state.update(root=settings["root"], adopt_path=settings.get("adopt_path") or "")
    settled = settled_facts(state, own, current_link(state)) or {}
    state.update(policy=check_policy(settings.get("gpus") or [], settings.get("min_verdict") or "",
                                     settings.get("require") or ()),
                 gpus=list(settings.get("gpus") or []), python_version=(own or {}).get("python_version") or "",
                 published=settled.get("published"), check=settled.get("check"), cuda_check=settled.get("cuda_check"))
    return state


def gate_failure(check: dict[str, Any], state: dict[str, Any], steps: dict[str, Any]) -> str:
    """What the gate fails with after torch_cuda_check failed on the stack of `steps` (role_messages.gate_failure):
    its plan and directory, the decision's (`state`, decide's) fallback and the `current` link under its root."""
    return role_messages.gate_failure(check, steps.get("plan") or {}, state.get("fallback"),
                                      steps.get("stack_dir") or "", current_link(state))
