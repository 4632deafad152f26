# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the verify role's stored result stands, where that answer comes from, and what the role runs.

The answer comes from one of two places. The `blackwell_cuda_check` fact, published by the private
`_common` role's cuda_check entry point (the pytorch role's gate includes it), holds the stack's fingerprint
taken in this play (without the verify settings: torch_cuda_check does not depend on them) and the
verify.json that was stored then; it serves when it was taken for the same interpreter, toolkit, force and
output directories, the request is not refused, and no verification was published in this play since
(`blackwell_verify` names the verify.json it stands for). The verify settings are then added to that
fingerprint here and verify.json is decided against it, as stack_fingerprint decides it. Otherwise the
role's own stack_fingerprint call answers (`call`: true). A result deferred because other users' processes
held the GPUs (`deferred`, `status: busy`) measured nothing: it is never reused, whatever it says of
`passed`, and the reason names it (deferred_reason()). The task files the role includes are steps.py's.
Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.results.fingerprint import PREVIEW_END, decide, digest


def _checked(dirs):
    """The output directories that are checked (an empty path is not)."""
    return dict((name, path) for name, path in (dirs or {}).items() if path)


def memo_usable(memo: Mapping[str, Any] | None, plan: Mapping[str, Any], options: Mapping[str, Any],
                published: Mapping[str, Any] = None) -> bool:
    """Whether `memo` (the blackwell_cuda_check fact) answers for this verify run (see the module's text)."""
    if not isinstance(memo, dict) or not isinstance(memo.get("fingerprint"), dict) or plan.get("refusals"):
        return False
    verify = memo.get("verify")
    if not isinstance(verify, dict) or "stored" not in verify:
        return False
    if published:
        stored = verify.get("stored") or {}
        if stored.get("written") is None or stored.get("written") != published.get("written"):
            return False  # a verification was stored in this play after the memo was taken
    return (options.get("python") in (memo.get("pythons") or [])
            and options.get("cuda_home") == memo.get("cuda_home")
            and bool(options.get("force")) == bool(memo.get("force"))
            and verify.get("results") == "%s/verify.json" % plan.get("output_dirs", {}).get("verify_results_dir")
            and set(_checked(plan.get("output_dirs")).items()) <= set(_checked(memo.get("output_dirs")).items()))


def deferred(stored: Mapping[str, Any] | None) -> bool:
    """Whether a stored verify.json is a deferred result (the GPUs were busy: nothing was measured)."""
    return isinstance(stored, dict) and (stored.get("deferred") is True or stored.get("status") == "busy")


def deferred_reason(stored: Mapping[str, Any] | None, reuse: bool, reason: str, changed: list[str]) -> tuple[bool, str]:
    """(reuse, reason) with a deferred stored result never reused: "the stored result was deferred (busy: GPU 0 pid
    4242 (python3, user alice, 20.1 GiB)), nothing was measured" when the fingerprint alone would not have decided
    it (unchanged components, not forced); otherwise the fingerprint's own answer."""
    if not deferred(stored):
        return reuse, reason
    if changed or reason == "forced":
        return False, reason
    return False, "the stored result was deferred (%s), nothing was measured" % (
        stored.get("message") or (stored.get("busy") or {}).get("text") or "busy")


def from_memo(memo: Mapping[str, Any], plan: Mapping[str, Any], force: bool) -> dict[str, Any]:
    """The fingerprint call's answer for verify.json, from the memo and the plan's settings."""
    current = dict(memo["fingerprint"], settings=plan.get("settings") or {})
    current["digest"] = digest(current)
    stored = memo["verify"].get("stored")
    reuse, reason, changed = decide(stored, current, bool(force))
    reuse, reason = deferred_reason(stored, reuse, reason, changed)
    return {"fingerprint": current, "stored": stored, "reuse": reuse, "reason": reason,
            "changed_components": changed, "gpus": memo.get("gpus") or [], "textfile": memo.get("textfile")}


def pending_change(options: Mapping[str, Any]) -> str:
    """In a check run, what the verify role says instead of verifying when the pytorch stage of this play would change
    the stack behind its interpreter (`pytorch`: the blackwell_pytorch fact, not converged, for the same python):
    that stack is not there yet; '' otherwise."""
    stage = options.get("pytorch") if isinstance(options.get("pytorch"), dict) else {}
    if not options.get("check_mode") or not stage or stage.get("converged"):
        return ""
    if stage.get("python") != options.get("python"):
        return ""
    return ("check mode: the pytorch stage of this run would change the stack behind %s (to %s), so the new stack is %s"
            % (options.get("python"), stage.get("stack") or "a new stack", PREVIEW_END))


def decision(plan: Mapping[str, Any], memo: Mapping[str, Any] | None = None, run: Mapping[str, Any] = None,
             published: Mapping[str, Any] = None, options: Mapping[str, Any] = None) -> dict[str, Any]:
    """{call, source, reuse, stored, fingerprint, gpus, reason, changed_components, textfile, preview}.

    `plan` is verify_plan's answer, `memo` the blackwell_cuda_check fact, `run` the role's stack_fingerprint
    result (empty before it ran, skipped when the memo served), `published` the blackwell_verify fact, `options`
    {python, cuda_home, force, check_mode, pytorch (the blackwell_pytorch fact)}: a check run whose pytorch stage
    would change the stack behind `python` previews (pending_change()) without a call. textfile: the verification
    textfile as the answer read it ({path, text}; None when the answer does not say: the textfile step then writes
    and lets result_files compare). preview: what a check run says of a stack that is not there yet (the
    fingerprint call's `preview`; '' otherwise): nothing is measured."""
    options = options or {}
    pending = pending_change(options)
    if pending and not plan.get("refusals"):  # a refused request fails in the role's own call, in check mode too
        return {"call": False, "source": "check mode", "reuse": False, "stored": None, "fingerprint": {}, "gpus": [],
                "reason": pending, "changed_components": [], "textfile": None, "preview": pending}
    if memo_usable(memo, plan, options, published):
        return dict(from_memo(memo, plan, options.get("force")), call=False, source="blackwell_cuda_check")
    run = run if isinstance(run, dict) and not run.get("skipped") else {}
    changed = run.get("changed_components") or []
    reuse, reason = deferred_reason(run.get("stored"), bool(run.get("reuse")), run.get("reason") or "", changed)
    return {"call": True, "source": "stack_fingerprint", "reuse": reuse,
            "stored": run.get("stored"), "fingerprint": run.get("fingerprint") or {},
            "gpus": run.get("gpus") or [], "reason": reason, "changed_components": changed,
            "textfile": run.get("textfile"), "preview": run.get("preview") or ""}
