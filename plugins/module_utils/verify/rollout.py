# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Where a rollout stands (playbooks/rollout.yml): its batches in order with their wall time and outcome,
the hosts rolled back, the hosts skipped because other users' processes held their GPUs (`skipped`: a later
run takes them), and the hosts it did not reach. Pure functions over each host's `rollout_result`
fact: {host, batch (the hosts of its batch), before, after (where `current` pointed), started, finished
(epoch seconds), passed, rolled_back, message}; a host without one was not reached."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any


SKIPPED = "skipped (busy)"


def _outcome(result):
    if result.get("skipped"):
        return SKIPPED
    if not result["passed"]:
        return "rolled back" if result.get("rolled_back") else "failed"
    return "upgraded" if result.get("before") != result.get("after") else "already as asked"


def summary(hosts: Sequence[str], results: Mapping[str, Mapping[str, Any] | None]) -> dict[str, Any]:
    """{batches: [{number, hosts, seconds, outcomes: {host: outcome}}], passed, rolled_back, failed, skipped,
    not_reached, seconds, lines} for the rollout's hosts in order and {host: rollout_result or None}."""
    batches, seen = [], {}
    for host in hosts:
        result = results.get(host)
        if not isinstance(result, dict) or "passed" not in result:
            continue
        key = tuple(result.get("batch") or [host])
        if key not in seen:
            seen[key] = {"number": len(batches) + 1, "hosts": list(key), "started": None, "finished": None,
                         "outcomes": {}}
            batches.append(seen[key])
        batch = seen[key]
        started, finished = float(result.get("started") or 0), float(result.get("finished") or 0)
        batch["started"] = started if batch["started"] is None else min(batch["started"], started)
        batch["finished"] = finished if batch["finished"] is None else max(batch["finished"], finished)
        batch["outcomes"][host] = _outcome(result)
    for batch in batches:
        batch["seconds"] = round(max(batch.pop("finished") - batch.pop("started"), 0.0), 1)
    outcomes = dict((host, outcome) for batch in batches for host, outcome in batch["outcomes"].items())
    report = {
        "batches": batches,
        "passed": [h for h in hosts if outcomes.get(h) in ("upgraded", "already as asked")],
        "rolled_back": [h for h in hosts if outcomes.get(h) == "rolled back"],
        "failed": [h for h in hosts if outcomes.get(h) == "failed"],
        "skipped": [h for h in hosts if outcomes.get(h) == SKIPPED],
        "not_reached": [h for h in hosts if h not in outcomes],
        "seconds": round(sum(batch["seconds"] for batch in batches), 1),
    }
    report["lines"] = lines(report)
    return report


def lines(report: Mapping[str, Any]) -> list[str]:
    """"batch 1 (canary) ws1: 12.0 s; upgraded: ws1", ..., then the rolled back and not reached hosts."""
    out = []
    for batch in report["batches"]:
        by_outcome = {}
        for host, outcome in batch["outcomes"].items():
            by_outcome.setdefault(outcome, []).append(host)
        out.append("batch %d%s %s: %.1f s; %s" % (
            batch["number"], " (canary)" if batch["number"] == 1 else "", " ".join(batch["hosts"]), batch["seconds"],
            "; ".join("%s: %s" % (outcome, " ".join(sorted(names))) for outcome, names in sorted(by_outcome.items()))))
    out.append("rolled back: %s" % (" ".join(report["rolled_back"]) or "none"))
    if report["failed"]:
        out.append("failed, not rolled back: %s" % " ".join(report["failed"]))
    if report["skipped"]:
        out.append("skipped, GPUs busy (a later run takes them): %s" % " ".join(report["skipped"]))
    out.append("not reached: %s" % (" ".join(report["not_reached"]) or "none"))
    return out
