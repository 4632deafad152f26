# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The task files the verify role includes, in order, each with what its tasks read.

When no published fact answers the fingerprint question (the decision's `call`), fingerprint.yml alone: it makes
the role's stack_fingerprint call and includes the steps that call's answer gives. The run path (the stored
result does not stand) is benchmark.yml, which reads the health itself after the benchmark. When the stored
result stands, the health step is at most one task: health_read.yml (one gpu_health call: read, judge, write the
textfile) unless the preflight probe's reading serves (probe_health_verdict.judged),
then health_textfile.yml when the textfile's content changed, else nothing. A stored result that stands also
writes its verification textfile again (verify_textfile.yml) where the answer found it missing or different (a
textfile directory set after the result was stored, the file deleted): the benchmark's run is what writes it
otherwise. The verdict follows, then the container check when asked. Each step carries the decision and the health judged from the probe, taken once, so
the included tasks read plain values instead of templating the decision again. Whether the probe's reading is
judged at all is decided here alone: not while the fingerprint call is pending (its answer gives the steps again)
nor with the health off. Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.probe_health_verdict import NOT_USED
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.report import prometheus
from ansible_collections.blackwell.pytorch.plugins.module_utils.results.stored import TEXTFILE

FINGERPRINT = "fingerprint.yml"
HEALTH_READ = "health_read.yml"
HEALTH_TEXTFILE = "health_textfile.yml"
VERIFY_TEXTFILE = "verify_textfile.yml"
NO_TEXTFILE = {"path": "", "content": "", "write": False}


def health_file(reuse: bool, health: bool, judged: Mapping[str, Any] | None) -> str | None:
    """The health task file the role includes when the stored result stands; None when none runs (the health not
    read, the run path reading it in benchmark.yml, or the probe's reading serving with its textfile unchanged)."""
    if not health or not reuse:
        return None
    judged = judged or {}
    if not judged.get("use"):
        return HEALTH_READ
    return HEALTH_TEXTFILE if (judged.get("textfile") or {}).get("write") else None


def textfile(decision: Mapping[str, Any], directory: str) -> dict[str, Any]:
    """{path, content, write} of the verification textfile a stored result that stands is rendered into (`directory`:
    verify_prometheus_textfile_dir, '' for none): `write` when the decision's answer read it missing, or with other
    text, or did not say (result_files then compares it itself). Nothing to write when the result does not stand
    (the run writes it) or was deferred (it has no figure)."""
    decision = decision or {}
    stored = decision.get("stored")
    if not directory or not decision.get("reuse") or not isinstance(stored, dict):
        return dict(NO_TEXTFILE)
    path = "%s/%s" % (directory.rstrip("/") or directory, TEXTFILE)
    content = prometheus(stored)
    found = decision.get("textfile")
    known = isinstance(found, dict) and found.get("path") == path
    return {"path": path, "content": content, "write": not known or found.get("text") != content}


def files(reuse: bool, health: bool, container: bool, judged: Mapping[str, Any] | None = None,
          fingerprint: bool = False, metrics: Mapping[str, Any] | None = None, preview: bool = False) -> list[str]:
    """The task files the role includes, in order; `fingerprint`: its own stack_fingerprint call is still to be
    made (fingerprint.yml alone, which includes the rest after the call); `metrics`: textfile()'s answer;
    `preview`: a check run found no stack yet (the verdict alone, which says so)."""
    if fingerprint:
        return [FINGERPRINT]
    if preview:
        return ["verdict.yml"]  # a check run before the stack is there: the verdict says what a real run does
    read = health_file(reuse, health, judged)
    rewrite = [VERIFY_TEXTFILE] if reuse and (metrics or {}).get("write") else []
    return (["benchmark.yml"] if not reuse else [read] if read else []) + rewrite + ["verdict.yml"] + (
        ["container.yml"] if container else [])


def pending(decision: Mapping[str, Any], options: Mapping[str, Any] | None) -> bool:
    """Whether the role's own stack_fingerprint call is still to be made: the decision asks for it (`call`) and
    `options` do not say it was made (`fingerprinted`: `decision` then holds its answer)."""
    return bool(decision.get("call")) and not (options or {}).get("fingerprinted")


def health(decision: Mapping[str, Any], judge: Callable[[], Mapping[str, Any] | None],
           options: Mapping[str, Any]) -> dict[str, Any]:
    """The health the steps carry: `judge()` (the probe's reading judged, the verify_steps filter's judgement) when the
    health is read and no fingerprint call is pending, else not used and why; `judge` is called only then."""
    if pending(decision, options):
        return dict(NOT_USED, use=False, reason="the role's stack_fingerprint call comes first")
    if not (options or {}).get("health"):
        return dict(NOT_USED, use=False, reason="verify_health is off")
    return judge() or {}


def steps(decision: Mapping[str, Any], judge: Callable[[], Mapping[str, Any] | None],
          options: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """[{file, decision, health, textfile}]: the task files for `decision` (verify_decision's answer), `options`
    {health, container, fingerprinted (the role's stack_fingerprint call was made: `decision` holds its answer),
    textfile_dir}, each with the decision, the judged health: what `judge` (no arguments; the verify_steps
    answer) returns, called at most once and only when the health is read and no fingerprint call is pending
    (health()), and the verification textfile of a stored result that stands (textfile())."""
    options = options or {}
    judged = health(decision, judge, options)
    waiting = pending(decision, options)
    metrics = dict(NO_TEXTFILE) if waiting else textfile(decision, options.get("textfile_dir") or "")
    return [{"file": name, "decision": decision, "health": judged, "textfile": metrics}
            for name in files(bool(decision.get("reuse")), bool(options.get("health")),
                              bool(options.get("container")), judged, waiting, metrics,
                              bool(decision.get("preview")))]
