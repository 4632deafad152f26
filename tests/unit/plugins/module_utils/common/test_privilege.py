# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.privilege import (
    changing_stages, root_refusal, stages_root_refusal)

ALICE = {"uid": 1000, "name": "alice"}
ROOT = {"uid": 0, "name": "root"}


def test_non_root_refused_naming_become():
    assert stages_root_refusal(["driver", "toolkit", "pytorch", "verify"], ALICE) == (
        "the driver, toolkit and pytorch stages change the host and need root; this play runs as uid 1000 "
        "(alice). Run the play with become (become: true on the play), -K where sudo asks for a password: "
        'make site ARGS="-b -K"')
    # a role alone (not site.yml) keeps the roles' sentence
    assert root_refusal("the nvidia_driver role", ALICE).endswith(
        "Set become: true on the play (or -b / --become on the command line, with -K when sudo asks for a password)")


def test_one_role_alone_speaks_in_the_singular():
    assert root_refusal("the nvidia_driver role", ALICE).startswith(
        "the nvidia_driver role changes the host and needs root; this play runs as uid 1000 (alice).")
    assert stages_root_refusal(["pytorch"], ALICE).startswith("the pytorch stage changes the host and needs root")


def test_root_and_an_unknown_uid_are_not_refused():
    assert stages_root_refusal(["driver"], ROOT) == ""
    assert stages_root_refusal(["driver"], {"uid": "0"}) == ""
    assert root_refusal("the cuda_toolkit role", None) == ""
    assert root_refusal("the cuda_toolkit role", {}) == ""


def test_stages_that_change_nothing_run_as_any_user():
    assert stages_root_refusal(["verify"], ALICE) == ""
    assert stages_root_refusal([], ALICE) == ""
    assert changing_stages([" pytorch", "verify", "driver"]) == ["driver", "pytorch"]


def test_a_user_without_a_name_is_named_by_the_uid_text():
    assert "runs as uid 4242 (unknown user)" in root_refusal("the tools role", {"uid": 4242, "name": ""})
