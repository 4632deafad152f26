# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A module's main() as Ansible calls it, outside a test function (for fixtures shared by several rows)."""
from __future__ import annotations

import json

import pytest


class _Done(Exception):
    def __init__(self, status, result):
        super().__init__(status)
        self.status, self.result = status, result


def run_module_once(module, args):
    """main() of `module` with `args` -> ("exit" | "fail", payload)."""
    from ansible.module_utils import basic
    from ansible.module_utils.common.text.converters import to_bytes

    def exit_json(self, **kwargs):
        raise _Done("exit", kwargs)

    def fail_json(self, msg, **kwargs):
        raise _Done("fail", dict(kwargs, msg=msg))

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(basic, "_ANSIBLE_ARGS", to_bytes(json.dumps({"ANSIBLE_MODULE_ARGS": args})))
        if hasattr(basic, "_ANSIBLE_PROFILE"):
            patch.setattr(basic, "_ANSIBLE_PROFILE", "legacy")
        patch.setattr(basic.AnsibleModule, "exit_json", exit_json)
        patch.setattr(basic.AnsibleModule, "fail_json", fail_json)
        try:
            module.main()
        except _Done as done:
            return done.status, done.result
    raise AssertionError("module returned without exit_json or fail_json")
