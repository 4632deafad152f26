# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The secure_boot_facts module: mokutil through AnsibleModule's get_bin_path and run_command (faked), the
firmware tree in a temporary directory; the fact it sets and that it changes nothing, in check mode too."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import secure_boot
from ansible_collections.blackwell.pytorch.plugins.modules import secure_boot_facts


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A host whose firmware tree is tmp_path and whose mokutil (absent until `mokutil` is set) prints a text."""
    from ansible.module_utils import basic

    class Host:
        def __init__(self):
            self.mokutil = None  # what `mokutil --sb-state` prints; None: not installed
            self.commands = []  # the argv of each command the module ran

        def efi(self, value_byte):
            efivars = tmp_path / "efi" / "efivars"
            efivars.mkdir(parents=True)
            (efivars / secure_boot.EFIVAR_NAME).write_bytes(b"\x06\x00\x00\x00" + bytes([value_byte]))

    fake_host = Host()

    def get_bin_path(self, name, *args, **kwargs):
        return "/usr/bin/mokutil" if name == "mokutil" and fake_host.mokutil is not None else None

    def run_command(self, args, *more, **kwargs):
        fake_host.commands.append(list(args))
        return 0, fake_host.mokutil, ""

    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", get_bin_path)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    monkeypatch.setattr(secure_boot_facts, "read_secure_boot",
                        lambda mokutil_output: secure_boot.read_secure_boot(mokutil_output, str(tmp_path)))
    return fake_host


def test_mokutil_answers_first(host, run_module):
    host.mokutil = "SecureBoot enabled\n"
    host.efi(0)  # mokutil's answer wins over the variable
    status, result = run_module(secure_boot_facts, {})
    assert status == "exit" and result["changed"] is False
    assert result["ansible_facts"] == {"blackwell_secure_boot": {
        "state": "enabled", "method": "mokutil", "detail": "mokutil: SecureBoot enabled"}}
    assert host.commands == [["/usr/bin/mokutil", "--sb-state"]]


def test_without_mokutil_the_efi_variable_answers(host, run_module):
    host.efi(1)
    status, result = run_module(secure_boot_facts, {})
    assert status == "exit" and host.commands == []
    assert result["ansible_facts"]["blackwell_secure_boot"] == {
        "state": "enabled", "method": "efivars", "detail": "EFI variable SecureBoot=1"}


def test_a_hidden_firmware_is_unknown_not_an_error(host, run_module):
    status, result = run_module(secure_boot_facts, {"_ansible_check_mode": True})
    assert status == "exit" and result["changed"] is False
    assert result["ansible_facts"]["blackwell_secure_boot"] == {
        "state": "unknown", "method": "none", "detail": "firmware information is not visible here (a container?)"}


def test_the_module_takes_no_option(host, run_module):
    status, result = run_module(secure_boot_facts, {"state": "enabled"})
    # ansible-core words the refusal; the module only declares no option
    assert status == "fail" and result["msg"].startswith("Unsupported parameters for ") and ": state." in result["msg"]
    assert host.commands == []
