from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.secure_boot import (
    parse_efivar, parse_mokutil, secure_boot_state)


@pytest.mark.parametrize("text,state", [
    ("SecureBoot enabled\n", "enabled"), ("SecureBoot disabled\nPlatform is in Setup Mode\n", "disabled"),
    ("This system doesn't support Secure Boot\n", "disabled"),
    ("EFI variables are not supported on this system\n", "disabled"), ("", "unknown"),
])
def test_mokutil(text, state):
    assert parse_mokutil(text)[0] == state


@pytest.mark.parametrize("data,state", [
    (b"\x06\x00\x00\x00\x01", "enabled"), (b"\x06\x00\x00\x00\x00", "disabled"),
    (b"\x06\x00", "unknown"), (None, "unknown"),
])
def test_efivar(data, state):
    assert parse_efivar(data)[0] == state


def test_order_and_fallbacks():
    assert secure_boot_state("SecureBoot enabled\n", None, True, ["efi"])["method"] == "mokutil"
    assert secure_boot_state(None, b"\x06\x00\x00\x00\x01", True, ["efi"]) == {
        "state": "enabled", "method": "efivars", "detail": "EFI variable SecureBoot=1"}
    assert secure_boot_state(None, None, True, ["efi"])["state"] == "disabled"
    assert secure_boot_state(None, None, False, ["acpi", "dmi"])["method"] == "bios"
    assert secure_boot_state(None, None, False, []) == {
        "state": "unknown", "method": "none",
        "detail": "firmware information is not visible here (a container?)"}
    # mokutil that cannot tell falls through to the EFI variable
    assert secure_boot_state("garbage", b"\x06\x00\x00\x00\x00", True, ["efi"])["method"] == "efivars"


def test_read_secure_boot_from_the_firmware_tree(tmp_path):
    from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.secure_boot import (
        read_secure_boot, run_mokutil)
    assert read_secure_boot(None, str(tmp_path / "absent"))["method"] == "none"
    (tmp_path / "acpi").mkdir()
    assert read_secure_boot(None, str(tmp_path))["method"] == "bios"
    assert read_secure_boot("SecureBoot enabled\n", str(tmp_path))["state"] == "enabled"
    assert run_mokutil(lambda name: None, None) is None
    assert run_mokutil(lambda name: "/usr/bin/" + name,
                       lambda argv: (0, "SecureBoot disabled\n", "")) == "SecureBoot disabled\n"
