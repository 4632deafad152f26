# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Secure Boot state from `mokutil --sb-state` or the EFI SecureBoot variable."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable

# efivarfs file of the global SecureBoot variable.
EFIVAR_NAME = "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c"


def parse_mokutil(text: str) -> tuple[str, str]:
    """`mokutil --sb-state` output -> (state, detail)."""
    lowered = (text or "").lower()
    if "secureboot enabled" in lowered:
        return "enabled", "mokutil: SecureBoot enabled"
    if "secureboot disabled" in lowered:
        return "disabled", "mokutil: SecureBoot disabled"
    if "not supported" in lowered or "doesn't support" in lowered:
        return "disabled", "mokutil: %s" % (text or "").strip().splitlines()[0]
    return "unknown", "mokutil said: %s" % ((text or "").strip() or "nothing")


def parse_efivar(data: bytes | None) -> tuple[str, str]:
    """efivarfs content (4 attribute bytes, then the value byte) -> (state, detail)."""
    if data is None or len(data) < 5:
        return "unknown", "EFI SecureBoot variable unreadable or too short"
    value = bytearray(data)[4]
    if value == 1:
        return "enabled", "EFI variable SecureBoot=1"
    if value == 0:
        return "disabled", "EFI variable SecureBoot=0"
    return "unknown", "EFI variable SecureBoot=%d" % value


def secure_boot_state(mokutil_output: str | None = None, efivar_data: bytes | None = None, efi_dir_exists: bool = False,
                      firmware_dir_entries: Iterable[str] = ()) -> dict[str, str]:
    """Decide the Secure Boot state from what could be read.

    Order: mokutil output when mokutil ran; the EFI variable when the firmware is EFI;
    legacy BIOS boot (no /sys/firmware/efi while /sys/firmware shows other entries) means
    Secure Boot cannot be on; an empty or hidden /sys/firmware (containers) means unknown.
    Returns {"state": enabled|disabled|unknown, "method": ..., "detail": ...}.
    """
    if mokutil_output is not None:
        state, detail = parse_mokutil(mokutil_output)
        if state != "unknown":
            return {"state": state, "method": "mokutil", "detail": detail}
    if efi_dir_exists:
        if efivar_data is None:
            return {"state": "disabled", "method": "efivars",
                    "detail": "EFI boot without a SecureBoot variable"}
        state, detail = parse_efivar(efivar_data)
        return {"state": state, "method": "efivars", "detail": detail}
    if firmware_dir_entries:
        return {"state": "disabled", "method": "bios",
                "detail": "legacy BIOS boot: Secure Boot does not apply"}
    return {"state": "unknown", "method": "none",
            "detail": "firmware information is not visible here (a container?)"}


def _read_bytes(path):
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except (IOError, OSError):
        return None


def read_secure_boot(mokutil_output: str | None = None, firmware_dir: str = "/sys/firmware") -> dict[str, str]:
    """Read the firmware's view (EFI variable, BIOS or hidden) and decide with secure_boot_state.

    mokutil_output is what `mokutil --sb-state` printed (None when mokutil is not installed).
    """
    efi_dir = os.path.join(firmware_dir, "efi")
    try:
        entries = os.listdir(firmware_dir)
    except OSError:
        entries = []
    return secure_boot_state(
        mokutil_output=mokutil_output,
        efivar_data=_read_bytes(os.path.join(efi_dir, "efivars", EFIVAR_NAME)),
        efi_dir_exists=os.path.isdir(efi_dir),
        firmware_dir_entries=entries,
    )


def run_mokutil(get_bin_path: Callable[[str], str | None],
                run_command: Callable[..., tuple[int, str, str]] | None) -> str | None:
    """What `mokutil --sb-state` printed (stdout and stderr), or None when mokutil is not installed.

    get_bin_path and run_command are AnsibleModule's methods (passed in, so this stays testable).
    """
    mokutil = get_bin_path("mokutil")
    if not mokutil:
        return None
    _rc, out, err = run_command([mokutil, "--sb-state"])
    return (out or "") + (err or "")
