# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The stages whose question the preflight probe asks in its own call, in site.yml's order, and the one loop that
asks them: each stage is asked when its options are given and no stage before it changes its inputs (its
`waits()`), and answers with the facts its role publishes on a host found as asked. Every stage file exports the
same names (stages/driver.py says which). No Ansible import: the module validates each stage's options against
probe_spec(stage)."""
from __future__ import annotations

from typing import Any, Optional

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import driver, pytorch, toolkit
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Reading

STAGES = (driver, toolkit, pytorch)


def probe_spec(stage: Any) -> dict[str, dict[str, Any]]:
    """The stage's options as the probe takes them: without those it reads itself (PROBE_READS), and those it fills
    from its reading when left out (PROBE_FILLS) null by default."""
    return dict((key, dict(value, default=None) if key in stage.PROBE_FILLS else value)
                for key, value in stage.OPTIONS.items() if key not in stage.PROBE_READS)


def ask_all(asked: dict[str, Optional[dict[str, Any]]], reading: Reading) -> dict[str, dict[str, Any]]:
    """Every stage's question, in order. asked: {stage name: its validated options, or None when not asked}.
    Returns {"answers": {name: answer or None}, "waits": {name: why it was not asked ('' when it was, or was not
    given)}, "facts": {fact name: value} (each stage's own, FACTS), "refusals": {name: [(cause, message)]}}."""
    answers: dict[str, Optional[dict[str, Any]]] = {}
    found: dict[str, dict[str, Any]] = {"answers": answers, "waits": {}, "facts": {}, "refusals": {}}
    for stage in STAGES:
        options = asked.get(stage.NAME)
        answers[stage.NAME] = None
        found["waits"][stage.NAME] = ""
        found["refusals"][stage.NAME] = []
        if options is None:
            continue
        found["waits"][stage.NAME] = stage.waits(options, answers, reading)
        if found["waits"][stage.NAME]:
            continue
        answer, facts = stage.ask(options, reading, answers)
        answers[stage.NAME] = answer
        found["facts"].update((name, value) for name, value in facts.items() if name in stage.FACTS)
        found["refusals"][stage.NAME] = stage.refusal_entries(answer, reading)
    return found
