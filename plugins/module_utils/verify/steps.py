# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The task files the verify role includes, in order, each with what its tasks read.

When no published fact answers the fingerprint question (the decision's `call`), fingerprint.yml alone: it makes
the role's stack_fingerprint call and includes the steps that call's answer gives. The run path (the stored
result does not stand) is benchmark.yml, which reads the health itself after the benchmark. When the stored
result stands, the health step is at most one task: health_read.yml (one gpu_health call: read, judge, write the
textfile) unless the preflight probe's reading serves (probe_health_verdict.judged),
then health_textfile.yml when the textfile's content changed, else nothing. The verdict follows, then the
container check when asked. Each step carries the decision and the health judged from the probe, taken once, so
the included tasks read plain values instead of templating the decision again. Whether the probe's reading is
judged at all is decided here alone: not while the fingerprint call is pending (its answer gives the steps again)
nor with the health off. Pure functions, no Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.probe_health_verdict import NOT_USED

FINGERPRINT = "fingerprint.yml"
HEALTH_READ = "health_read.yml"
HEALTH_TEXTFILE = "health_textfile.yml"


def health_file(reuse, health, judged):
    """The health task file the role includes when the stored result stands; None when none runs (the health not
    read, the run path reading it in benchmark.yml, or the probe's reading serving with its textfile unchanged)."""
    if not health or not reuse:
        return None
    judged = judged or {}
    if not judged.get("use"):
        return HEALTH_READ
    return HEALTH_TEXTFILE if (judged.get("textfile") or {}).get("write") else None


def files(reuse, health, container, judged=None, fingerprint=False):
    """The task files the role includes, in order; `fingerprint`: its own stack_fingerprint call is still to be
    made (fingerprint.yml alone, which includes the rest after the call)."""
    if fingerprint:
        return [FINGERPRINT]
    read = health_file(reuse, health, judged)
    return (["benchmark.yml"] if not reuse else [read] if read else []) + ["verdict.yml"] + (
        ["container.yml"] if container else [])


def pending(decision, options):
    """Whether the role's own stack_fingerprint call is still to be made: the decision asks for it (`call`) and
    `options` do not say it was made (`fingerprinted`: `decision` then holds its answer)."""
    return bool(decision.get("call")) and not (options or {}).get("fingerprinted")


def health(decision, judge, options):
    """The health the steps carry: `judge()` (the probe's reading judged, verify_health_probe's answer) when the
    health is read and no fingerprint call is pending, else not used and why; `judge` is called only then."""
    if pending(decision, options):
        return dict(NOT_USED, use=False, reason="the role's stack_fingerprint call comes first")
    if not (options or {}).get("health"):
        return dict(NOT_USED, use=False, reason="verify_health is off")
    return judge() or {}


def steps(decision, judge, options):
    """[{file, decision, health}]: the task files for `decision` (verify_decision's answer), `options` {health,
    container, fingerprinted (the role's stack_fingerprint call was made: `decision` holds its answer)}, each with
    the decision and the judged health: what `judge` (no arguments; the verify_health_probe answer) returns, called
    at most once and only when the health is read and no fingerprint call is pending (health())."""
    options = options or {}
    judged = health(decision, judge, options)
    return [{"file": name, "decision": decision, "health": judged}
            for name in files(bool(decision.get("reuse")), bool(options.get("health")),
                              bool(options.get("container")), judged, pending(decision, options))]
