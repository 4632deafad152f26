# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""How the preflight says its refusals: once per cause, one a line, numbered; the stage refusals with their causes
and the command line that fixes each."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import preflight
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import root_refusal
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import plan, refusals
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.stage_refusals import (
    site_leave_out, stage_refusals_by_cause)
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import pytorch as pytorch_stage
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import toolkit as toolkit_stage
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Reading

ALICE = {"uid": 1000, "name": "alice"}
RTX5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}
HEADERS_GONE = {"release": "6.1.0-99-amd64", "installed": False, "package": "linux-headers-6.1.0-99-amd64",
                "installable": False}


def no_packages(argv):
    return 1, "", ""


def test_one_message_per_cause_the_first_kept_in_order():
    entries = [("gpu", "no GPU"), ("root", "stages need root"), ("headers", "site headers"), (None, "disk"),
               ("root", "the driver role needs root"), ("headers", "role headers"), (None, "disk"), (None, "branch")]
    assert preflight.one_per_cause(entries) == ["no GPU", "stages need root", "site headers", "disk", "branch"]


def test_several_refusals_are_counted_then_numbered_one_a_line():
    assert preflight.numbered("ws", []) == ""
    assert preflight.numbered("ws", ["ws: only one."]) == "ws: only one."
    assert preflight.numbered("ws", ["ws: one.", "ws: two."]) == (
        "ws: 2 refusals, each with its fix; nothing was changed.\n1. ws: one.\n2. ws: two.")


def test_a_refusal_ending_with_a_command_gets_no_full_stop():
    assert preflight.sentence("ws", 'run: make site ARGS="-b -K"') == 'ws: run: make site ARGS="-b -K"'
    assert preflight.sentence("ws", "needs root") == "ws: needs root."
    assert preflight.sentence("ws", "needs root.") == "ws: needs root."


def test_leaving_the_driver_stage_out_keeps_the_other_stages_and_names_what_the_toolkit_then_needs():
    assert site_leave_out(["driver", "containers", "pytorch"]) == (
        'install the driver yourself and leave the driver stage out: '
        'make site ARGS="-e blackwell_site_stages=containers,pytorch"')
    # no driver loaded and no toolkit version: the toolkit stage's refusal of the next run, said now
    assert site_leave_out(["driver", "toolkit"], {"loaded": False}, {"versions": [], "driver": ""}).endswith(
        'make site ARGS="-e blackwell_site_stages=toolkit -e cuda_toolkit_driver_version=VERSION"')
    with_versions = site_leave_out(["driver", "toolkit"], {"loaded": False}, {"versions": ["12.8"], "driver": ""})
    with_a_driver = site_leave_out(["driver", "toolkit"], {"loaded": True}, {"versions": [], "driver": ""})
    assert "cuda_toolkit_driver_version" not in with_versions + with_a_driver


def test_the_stage_refusals_carry_their_causes():
    entries = stage_refusals_by_cause(no_packages, ["driver", "toolkit"], ALICE, "Debian", HEADERS_GONE,
                                      {"loaded": False})
    assert [cause for cause, _message in entries] == ["root", "headers"]
    assert all(message.endswith('"') for _cause, message in entries), entries


def test_the_driver_plan_gives_each_refusal_on_its_own_with_its_cause():
    driver = plan.driver_plan([RTX5090], kernel="6.1.0-99-amd64", headers=HEADERS_GONE, user=ALICE)
    assert [entry["cause"] for entry in driver["refused"]] == ["root", "headers"]
    assert driver["msg"] == "; ".join(entry["msg"] for entry in driver["refused"])  # the filter's one message
    assert [cause for cause, _message in refusals.plan_refusals("ws", driver)] == ["root", "headers"]


def test_the_answers_root_refusals_are_one_cause_with_the_probes():
    toolkit_root = [root_refusal("the cuda_toolkit role", ALICE)]  # as toolkit_plan puts it first in its problems
    reading = Reading(host="ws", user=ALICE, gpus=[], loaded={}, preflight={}, run=None, has_program=None, warn=None)
    answer = {"ok": False, "problems": toolkit_root + ["CUDA 12.6 cannot target it"], "msg": "ws: ..."}
    entries = toolkit_stage.refusal_entries(answer, reading)
    assert [cause for cause, _message in entries] == ["root", None]
    assert entries[1][1] == "ws: CUDA 12.6 cannot target it."
    pytorch = {"ok": False, "refusals": ["pytorch_keep_stacks is 0: keep at least 1.", "ws: the pytorch role changes the "
                                         "host and needs root; this play runs as uid 1000 (alice). Set become: true on "
                                         "the play (or -b / --become on the command line, with -K when sudo asks for "
                                         "a password)."]}
    assert [cause for cause, _message in pytorch_stage.refusal_entries(pytorch, reading)] == [None, "root"]
