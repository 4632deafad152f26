# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Is the pytorch stage already as asked? The one question pytorch_plan answers before the role changes anything.

A host is converged when `current` points to the planned stack (or the auto plan's source fallback,
or the adopted environment), that stack's marker records the plan and its packages have the planned
versions, its torch_cuda_check result is stored and still valid (the stack's fingerprint unchanged,
the verify run's settings left out: they do not change what torch_cuda_check found), the login-shell
profile is as the role would write it, and no stack is beyond the keep count. Then the role skips
its change path in one include. The host's parts are read from files only (links, the marker, the
*.dist-info names, cuda_check.json, the profile): nothing is imported or run.
No Ansible import.
"""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.output_dirs import problems as dir_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import packages, read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.cuda_check_fact import cuda_check_fact, verify_results
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import installed_mismatches
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint as stack_fingerprint
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import stored as stored_results

MANAGED_BY = "blackwell.pytorch.pytorch"
PROFILE_MODE = 0o644


def role_refusals(keep, user, host):
    """The pytorch role's refusals of the request itself, before any plan: a keep count that would delete
    the current stack, a run without root. [] when there is none."""
    refusals = []
    if int(keep) < 1:
        refusals.append("pytorch_keep_stacks is %s: keep at least 1 (the stack `current` points to is never "
                        "deleted; 2 also keeps the one a rollback returns to)." % keep)
    refusal = root_refusal("the pytorch role", user)
    if refusal:
        refusals.append("%s: %s." % (host, refusal))
    return refusals


def stack_record(plan, python):
    """What a stack's marker file records: the plan's stack, method, channel and pins, the interpreter
    that made the venv, and the role that manages it."""
    return {"stack": plan["stack"], "method": plan["method"], "channel": plan["channel"], "pins": plan["pins"],
            "python": python, "managed_by": MANAGED_BY}


def check_stands(stored, current, force=False, problem=None):
    """(stands, reason) for a stored torch_cuda_check document (cuda_check.json) against the stack's
    fingerprint now. The verify run's settings are left out of the comparison; `problem`: why the file is not
    used (results.stored.read(): not JSON, damaged), said in the reason."""
    if isinstance(stored, dict) and isinstance(stored.get("fingerprint"), dict):
        current = dict(current, settings=stored["fingerprint"].get("settings"))
    reuse, reason, _changed = stack_fingerprint.decide(stored, current, force, problem)
    return reuse, reason


def profile_problem(found, wanted):
    """'' when the profile file is as the role writes it, else what differs. found: {"exists", "text",
    "mode", "uid", "gid"} of the file (None: no profile asked for); wanted: its text."""
    if found is None:
        return ""
    if not found.get("exists"):
        return "the login-shell profile is not there"
    if found.get("text") != wanted:
        return "the login-shell profile differs"
    if found.get("mode") != PROFILE_MODE or found.get("uid") != 0 or found.get("gid") != 0:
        return "the login-shell profile's owner or mode differs"
    return ""


def stack_problems(stack, links, marker, record, expected, versions):
    """What keeps `stack` from standing as the current stack of its plan (record None: adopted, no marker).
    links: read_links(); marker: the marker file's text (None when missing); versions: {name: version}."""
    if not stack:
        return ["no stack to compare"]
    target = lifecycle.stack_target(stack)
    if links.get("current") != target:
        return ["current is %s, not %s" % (links.get("current") or "not there", target)]
    problems = []
    if record is not None and marker != lifecycle.marker_text(record):
        problems.append("%s's marker does not record this plan" % stack)
    gaps = installed_mismatches(expected or {}, versions)
    if gaps:
        problems.append("%s has %s" % (stack, ", ".join(gaps)))
    return problems


def decide(stack_gaps, check, profile, prune):
    """{"converged", "problems", "standing"}: the host is as asked when nothing is in the way.
    stack_gaps: stack_problems(); check: check_stands(); profile: profile_problem(); prune: the names
    pruning would remove."""
    problems = list(stack_gaps)
    if not stack_gaps and not check[0]:
        problems.append("torch_cuda_check: %s" % check[1])
    if profile:
        problems.append(profile)
    if prune:
        problems.append("%d stack(s) beyond the keep count (%s)" % (len(prune), ", ".join(prune)))
    if problems:
        return {"converged": False, "problems": problems, "standing": "to change: %s" % "; ".join(problems)}
    return {"converged": True, "problems": [],
            "standing": "already as asked (current stack checked, %s; profile as wanted; nothing to prune): "
                        "nothing changes" % check[1]}


def _versions(python):
    return dict(entry.split("==", 1) for entry in packages(python))


def _profile(path):
    if not path:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return {"exists": False}
    return {"exists": True, "text": read_text(path), "mode": st.st_mode & 0o7777, "uid": st.st_uid, "gid": st.st_gid}


def read_and_decide(root, keep, candidates, check, profile_path="", profile_text=""):
    """Read the host and decide(). candidates: [{"stack", "python", "record" (None: adopted), "expected"}],
    the stacks that may stand as current (the plan's, the auto fallback's, the adopted one); check:
    {"results" (cuda_check.json), "code", "cuda_home", "force", "collection_version", "alias", "output_dirs"}.
    Returns decide()'s dict with "stack", "python", "check" (the stored torch_cuda_check result; None when it
    does not stand) and "cuda_check" (cuda_check_fact.cuda_check_fact() when the host is converged, else None)."""
    links = lifecycle.read_links(root) if root and os.path.isdir(root) else {"current": None, "previous": None}
    chosen = next((c for c in candidates if c.get("stack") and links.get("current") == lifecycle.stack_target(c["stack"])),
                  candidates[0] if candidates else {})
    stack, python = chosen.get("stack"), chosen.get("python")
    gaps = ["no stack to compare"]
    stands, stored = (False, ""), None
    if stack:
        marker = read_text(os.path.join(root, lifecycle.VENVS, stack, lifecycle.MARKER))
        gaps = stack_problems(stack, links, marker, chosen.get("record"), chosen.get("expected"),
                              _versions(python) if chosen.get("expected") else {})
    if not gaps:
        stored, problem = stored_results.read(check["results"]) if check.get("results") else (None, None)
        current = stack_fingerprint.fingerprint(python, check.get("cuda_home") or "/usr/local/cuda",
                                                check.get("collection_version") or "", code=check.get("code") or "")
        stands = check_stands(stored, current, check.get("force", False), problem)
    prune = lifecycle.prune_plan(root, keep) if root and os.path.isdir(root) and int(keep) >= 1 else []
    result = decide(gaps, stands, profile_problem(_profile(profile_path), profile_text), prune)
    result.update(stack=stack, python=python, check=(stored or {}).get("result") if stands[0] else None,
                  cuda_check=None)
    if result["converged"]:
        dirs = check.get("output_dirs") or {}
        result["cuda_check"] = cuda_check_fact(
            check, python, current, stored, stored_results.read(verify_results(check["results"])),
            dir_problems(dirs), stack_fingerprint.gpu_models(),
            stored_results.textfile(dirs.get("verify_prometheus_textfile_dir")))
    return result
