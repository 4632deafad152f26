# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The sentences the pytorch role reports and refuses with, built from its plan, its checks and its logs.

- plan_summary(): the plan in one line (stack, pins, reason, predicted verdicts; its warnings are said apart).
- missing_paths(): the wheelhouse / constraints / hashes paths that are not there, from `stat` results.
- arch_refusal(): why TORCH_CUDA_ARCH_LIST cannot be built, "" when it can.
- check_summary(): torch_cuda_check's verdicts and the policy that passed (gate_summary(): under the gate's policy).
- poll_report(): one progress line of a background job (the source build, the pip install).
- gate_failure(): what the gate says when torch_cuda_check fails ("" when auto builds from source instead).

No Ansible import.
"""
from __future__ import annotations

from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.lifecycle import pip_progress

BUILD = "torch build"


def truncate(text, length=300, end="...", leeway=5):
    """Jinja's truncate(): text up to length + leeway as it is, else cut at the last word before
    length - len(end) and end appended."""
    text = str(text)
    if len(text) <= length + leeway:
        return text
    return text[:length - len(end)].rsplit(" ", 1)[0] + end


def elapsed(seconds):
    """3725 -> "1:02:05"."""
    seconds = int(seconds)
    return "%d:%02d:%02d" % (seconds // 3600, (seconds % 3600) // 60, seconds % 60)


def plan_summary(plan):
    """"torch-2.9.1-cu128 (wheel): torch==... ...; <reason>; predicted: <gpu verdict>, ...". The plan's warnings
    are no clause of it: pytorch_plan gives each as a warning of its own (plan_call.answer)."""
    predicted = ", ".join("%s %s" % (item["gpu"], item["verdict"]) for item in plan.get("verdicts") or [])
    return "%s (%s): %s; %s; predicted: %s" % (
        plan["stack"], plan["method"], " ".join(plan.get("pins") or []), plan.get("reason", ""),
        predicted or "no GPU in the facts")


def plan_origin(plan):
    """Where a plan came from: "the version table (planning/matrix.py)" or "index <url> (3 requests, 0.41 s)"."""
    index = plan.get("index")
    if not index:
        source = plan.get("source") or "version table"
        return "the " + source if source.startswith("version table") else source
    return "index %s (%d requests, %s s)" % (index["url"], index["requests"], index["seconds"])


def missing_paths(stat_results, host):
    """One sentence per path that is not there or of the wrong kind. stat_results: a looped `stat`'s
    results, each with item {var, path, dir}; a skipped one (no stat) is ignored."""
    out = []
    for result in stat_results or ():
        if "stat" not in result:
            continue
        item, stat = result["item"], result["stat"]
        if not (stat.get("exists") and (stat.get("isdir") if item["dir"] else stat.get("isreg"))):
            out.append("%s %s is not %s on %s." % (item["var"], item["path"],
                                                   "a directory" if item["dir"] else "a file", host))
    return out


def arch_refusal(arch_list, rejections, tree, ref, cuda_home):
    """Why a source build of arch_list cannot start ("" when it can): no GPU at all, or the entries the
    tree or the toolkit rejects (source_build.arch_rejections / nvcc_rejections)."""
    if not arch_list:
        return ('no GPU with a known compute capability on any host of the play: set pytorch_build_arch_list '
                '(e.g. "9.0;12.0").')
    if not rejections:
        return ""
    return ("TORCH_CUDA_ARCH_LIST=%s cannot be built from %s (%s) with %s: %s. Use a newer PyTorch ref "
            "(or toolkit), or set pytorch_build_arch_list." % (
                arch_list, tree, ref, cuda_home,
                "; ".join("%s: %s" % (item["name"], item["reason"]) for item in rejections)))


def check_summary(stack, check, gpus_known, min_verdict="", require=()):
    """"<stack>: torch X; <gpu sm verdict>, ...; <policy>: passed" from torch_cuda_check's result."""
    verdicts = ", ".join("%s %s %s" % (gpu["name"], gpu["sm"], gpu["kernel_image"]["verdict"])
                         for gpu in check.get("gpus") or [])
    policy = ("min_verdict " + min_verdict if gpus_known and min_verdict
              else "no verdict required (no GPU in the facts)")
    if require:
        policy += ", require " + ",".join(require)
    return "%s: torch %s; %s; %s: passed" % (stack, check["build"]["torch_version"], verdicts or "no GPU visible",
                                             policy)


def gate_summary(stack: str, check: dict[str, Any], policy: dict[str, Any]) -> str:
    """check_summary under the gate's policy (role_steps.check_policy: no min_verdict where the facts list no GPU)."""
    return check_summary(stack, check, True, policy.get("min_verdict") or "", list(policy.get("require") or ()))


def poll_report(what, host, seconds, finished, log_tail):
    """"<what> on <host>: H:MM:SS elapsed, running|finished; <news>": the build's last log line, or
    pip's progress (lifecycle.pip_progress)."""
    if what == BUILD:
        news = "last log line: " + truncate((log_tail or "").strip())
    else:
        news = pip_progress(log_tail)
    return "%s on %s: %s elapsed, %s; %s" % (what, host, elapsed(seconds), "finished" if finished else "running", news)


def gate_failure(check, plan, fallback, kept, current):
    """What the gate fails with when torch_cuda_check failed (check: its result, with msg and gpus).

    "" when pytorch_install_method auto builds from source instead: a fallback source plan is given, the
    failed stack came from a wheel plan and some GPU's verdict is none. That fallback's refusal when it
    cannot work. Else the check's message and what stays: the stack `kept`, `current` not moved.
    """
    message = check.get("msg", "")
    no_kernel = [gpu for gpu in check.get("gpus") or () if (gpu.get("kernel_image") or {}).get("verdict") == "none"]
    if fallback is not None and plan.get("method") == "wheel" and no_kernel:
        if fallback.get("error"):
            return "the wheel has no kernel for some GPU (%s) and %s" % (message, fallback["error"])
        return ""
    return "%s -- %s is kept for inspection; %s was not moved." % (message, kept, current)
