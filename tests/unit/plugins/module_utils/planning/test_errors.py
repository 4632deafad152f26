# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PlanError, the planning package's one exception: the refusal's words and what was answered before."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import resolve_stack


def test_a_refusal_carries_its_message_and_the_answer_before_it():
    answered = {"converged": False, "standing": "", "refusals": []}
    refused = PlanError("pytorch_python /opt/py/bin/python3 is not there on ws-1", answered)
    assert (str(refused), refused.result) == ("pytorch_python /opt/py/bin/python3 is not there on ws-1", answered)
    assert PlanError("no result").result is None
    assert isinstance(refused, ValueError)  # a filter shell reports it as it reports any refused input


def test_the_plan_and_the_build_raise_the_same_class():
    assert source_run.BuildError is PlanError
    with pytest.raises(PlanError, match="^pytorch_install_method conda is not one of wheel, source, auto$"):
        resolve_stack(version="2.9.1", method="conda")
