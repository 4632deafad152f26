# -*- coding: utf-8 -*-
from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import tempfile

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.openpgp import (
    OpenPGPError, check_key, dearmor, key_fingerprint, key_info, normalize_fingerprint, packets)
from openpgp_keys import ED_FPR, ED_KEY

# Armored public keys made with GnuPG 2.2.40 for these tests, with what
# `gpg --show-keys --with-colons` says about them. Test data only.
# rsa2048 primary (sign) + rsa2048 subkey (encrypt), user id "Test Vendor RSA <rsa@example.invalid>"
RSA_KEY = """-----BEGIN PGP PUBLIC KEY BLOCK-----

mQENBGsCAKkBCACzf8KWYJyWFFKEE1E9F1Gdgxb8dpHqLzfHA+4zPrcZwVuOe7jO
1MEtgZf2rMSUrnP83XSYmcJD6mhG3kjiUrQqOYf1J3AcSCRIkMaxZn44wJRKC3n8
N8lyjw2m4NoplD8yyrvTdI/ulHwt2WfsZRViskD402fDU6Q1tEsJSYoAU2+RCzw8
DUloz0unwwvZbUR5rD5eCV3IT56XWM8oeGDeRB3owFg6XN/08HjaO4NLJS+SAsBZ
7Jya49GwiAiqmEi56Gdnh7qlw2meKPWiFWwBLSDHs1KAJtk6f8+B0XbQyn1Q//jT
JODRg8I6nNSqeCaZecHjTTNwwyzXOxt5SvKRABEBAAG0JVRlc3QgVmVuZG9yIFJT
QSA8cnNhQGV4YW1wbGUuaW52YWxpZD6JAU4EEwEKADgWIQTgOyaDB7lpA7H+3r4T
UhJ6Eqr3qwUCawIAqQIbAwULCQgHAgYVCgkICwIEFgIDAQIeAQIXgAAKCRATUhJ6
Eqr3q+5bB/wNy4dUYdTv/PR4/+/+39JDE+Xe4+rUclr+slKXf6jmWOq+LWuaLbvg
46y0cSLBUd77Prc+EfbxUi84/EAtAy38bnln+L5QaxTVDkwXsBibnIX+6RGuzhuQ
YIQGvUTDUMjyMwgVbP48gmsd0CwMLy4VuWYkRdPg2hcpuBabt57z0KRgt2eSqyPF
xLazMHl/e1edUyItsq47TSj9PAWo6BsGgT4NNx6WqWEq9rjLBVbkgKnWe2To6DwE
CQOWI1UgOL8A0VpWHFMG3WqhOsyzieUSggLX9MgHBG6A9KPoDman5m3VWc0OpYYY
KcFRqsg8FsQh5DUcakeZ+kg4e+afVKAWuQENBGsCAKoBCAC/bgkr/Q/zO70T99si
70IxflviobwCt/Xz4N/NJfwLr21nHY62+lDLIxdA7gZlOFHYjApjgyL2pWnk07Fw
FAPxmNx10hCVMcE9BhjIfYuzaIeeSYW4KLF32ffhe7rFeEaEnHHf3Sv8uoakfJOd
oxO+FzgRVB+xcduMWoIFjCosebTAeCqpCvOrPyOHS14rXnYMwGEFg73v2BQeKFPP
wYkl/7rbxauWrjJlODAszLG864vG7Rt4Xaw2eFYbkO76/WAA6wsBoodl+09w2cT3
F0IArc4bhuqoLypkx5jBknrxRvptj4Kbt7YZP6swVG5sjJVhUMbOFpePO9K0k5Ud
XRQlABEBAAGJATYEGAEKACAWIQTgOyaDB7lpA7H+3r4TUhJ6Eqr3qwUCawIAqgIb
DAAKCRATUhJ6Eqr3q1dcB/9GINdAJel4LgEZ3HgB8kKXG3QaweW/jGVN8W8dL/XY
F5bu+FUMj3FTAUBFd1UM+SFY1LVFDOzYywx+DWr7ntUwrWojG4C7oko2CS26BphA
kzDCyHCt4tGDRRuIycm36WeRpHcuAODwaQICf726Zp8lsxl2H5QazfsxxNstjJll
J8zVb3ugBbXJ3r9c8AZ3S4Qt6vTo7sTL/0MURD52OFrtlurVEge0eboCygH89hJB
9MS+lihIG0p3yCHX3UIvad6zdzs9dZwhf+JEIwm1U6rsggJiWFRIHSZaN5zwGHB6
KNPfwJiL5A2EDjrI22lY0lpHx3MHXhj5Ul/g/Q0WaJ2n
=lbCp
-----END PGP PUBLIC KEY BLOCK-----
"""
RSA_FPR = "E03B268307B96903B1FEDEBE1352127A12AAF7AB"
RSA_SUB_FPR = "CF4320553F8FA1EC99348FC213BD8C09F7FBD17F"


EB69 = "EB69 3B30 35CD 5710 E231  E123 A4B4 6996 3BF8 63CC"  # NVIDIA's Debian/Ubuntu key (docs/domain.md)


def test_rsa_key_with_subkey():
    [key] = key_info(RSA_KEY)
    assert key == {"fingerprint": RSA_FPR, "version": 4, "algorithm": "rsa",
                   "user_ids": ["Test Vendor RSA <rsa@example.invalid>"], "subkeys": [RSA_SUB_FPR]}


def test_ed25519_key():
    [key] = key_info(ED_KEY)
    assert (key["fingerprint"], key["algorithm"], key["subkeys"]) == (ED_FPR, "eddsa", [])


def test_two_keys_in_one_file():
    assert [k["fingerprint"] for k in key_info(RSA_KEY + "\n" + ED_KEY)] == [RSA_FPR, ED_FPR]


def test_armor_headers_are_skipped():
    text = RSA_KEY.replace("-----BEGIN PGP PUBLIC KEY BLOCK-----\n",
                           "-----BEGIN PGP PUBLIC KEY BLOCK-----\nComment: vendor key\nVersion: 1\n")
    assert key_info(text)[0]["fingerprint"] == RSA_FPR


@pytest.mark.parametrize("text,error", [
    ("", "no '-----BEGIN PGP PUBLIC KEY BLOCK-----' block"),
    ("mQENBF...", "must be ASCII-armored"),
    (ED_KEY.replace("=07QS", "=AAAA"), "checksum mismatch"),
    (ED_KEY.replace("mDMEawIAqhYJ", "mDMEaw!AqhYJ"), "broken base64"),
])
def test_not_a_key(text, error):
    with pytest.raises(OpenPGPError, match=error):
        key_info(text)


def test_secret_key_refused():
    body = b"\x04" + b"\x00" * 10
    armored = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n-----END PGP PUBLIC KEY BLOCK-----\n" % (
        base64.b64encode(bytes([0xC5, len(body)]) + body).decode())
    with pytest.raises(OpenPGPError, match="secret key"):
        key_info(armored)


def test_old_format_headers_parse_like_new():
    # gpg writes old-format packets for keys; rewrite the first one in the new format
    data = dearmor(RSA_KEY)
    tag, body = next(packets(data))
    assert tag == 6
    new = bytes([0xC0 | 6, 0xFF]) + len(body).to_bytes(4, "big") + body
    assert [t for t, _b in packets(new)] == [6]
    assert key_fingerprint(next(packets(new))[1]) == RSA_FPR


def test_v6_fingerprint_is_sha256_of_the_framed_body():
    body = b"\x06" + b"\x01" * 20
    assert key_fingerprint(body) == hashlib.sha256(b"\x9b" + len(body).to_bytes(4, "big") + body).hexdigest().upper()
    assert key_fingerprint(b"\x03" + b"\x00" * 10) is None


@pytest.mark.parametrize("value,expected", [
    (EB69, "EB693B3035CD5710E231E123A4B469963BF863CC"),
    ("0xeb693b3035cd5710e231e123a4b469963bf863cc", "EB693B3035CD5710E231E123A4B469963BF863CC"),
])
def test_normalize_fingerprint(value, expected):
    assert normalize_fingerprint(value) == expected


@pytest.mark.parametrize("value", ["3BF863CC", "A4B469963BF863CC", "", None, "Z" * 40])
def test_short_ids_are_not_fingerprints(value):
    with pytest.raises(ValueError):
        normalize_fingerprint(value)


def test_check_key_accepts_pinned():
    result = check_key(RSA_KEY, [EB69, RSA_FPR.lower()])
    assert result["ok"] and result["fingerprints"] == [RSA_FPR] and result["unexpected"] == []
    assert result["msg"] == "pinned key(s): %s (Test Vendor RSA <rsa@example.invalid>)" % RSA_FPR


def test_check_key_refuses_an_extra_key_appended():
    result = check_key(RSA_KEY + ED_KEY, [RSA_FPR])
    assert not result["ok"] and result["unexpected"] == [ED_FPR]
    assert result["msg"] == ("key(s) not in the pinned list %s: %s (Test Other Ed25519 <ed@example.invalid>)"
                             % (RSA_FPR, ED_FPR))


@pytest.mark.parametrize("pinned,msg", [
    ([], "no pinned fingerprint given: refusing to trust any key"),
    (["3BF863CC"], "bad pinned fingerprint: not an OpenPGP fingerprint (40 or 64 hex digits): '3BF863CC'"),
])
def test_check_key_bad_pins(pinned, msg):
    assert check_key(RSA_KEY, pinned) == {"ok": False, "keys": [], "fingerprints": [], "unexpected": [], "msg": msg}


def test_check_key_not_a_key():
    result = check_key("<html>404</html>", [RSA_FPR])
    assert not result["ok"] and result["msg"].startswith("not a usable OpenPGP public key: no ")


@pytest.mark.skipif(shutil.which("gpg") is None, reason="gpg is not installed on this machine")
def test_agrees_with_gpg_on_a_fresh_key():
    home = tempfile.mkdtemp()
    try:
        subprocess.run(["gpg", "--homedir", home, "--batch", "--passphrase", "", "--quick-gen-key",
                        "Fresh <fresh@example.invalid>", "ed25519", "sign", "never"], check=True, capture_output=True)
        armored = subprocess.run(["gpg", "--homedir", home, "--armor", "--export"], check=True,
                                 capture_output=True).stdout.decode()
        colons = subprocess.run(["gpg", "--homedir", home, "--with-colons", "--list-keys"], check=True,
                                capture_output=True).stdout.decode()
    finally:
        subprocess.run(["gpgconf", "--homedir", home, "--kill", "all"], capture_output=True, check=False)
        shutil.rmtree(home, ignore_errors=True)
    expected = [line.split(":")[9] for line in colons.splitlines() if line.startswith("fpr:")]
    assert [k["fingerprint"] for k in key_info(armored)] == expected
