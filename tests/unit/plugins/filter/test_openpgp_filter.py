from __future__ import annotations

import base64
import hashlib

import pytest
from ansible.errors import AnsibleFilterError

from ansible_collections.blackwell.pytorch.plugins.filter.openpgp import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.openpgp import _crc24, check_key
from shells import assert_each_argument_matters

F = FilterModule().filters()


def _mpi(value):
    data = value.to_bytes((value.bit_length() + 7) // 8, "big")
    return value.bit_length().to_bytes(2, "big") + data


def _armored_key(modulus, user_id):
    """A v4 RSA public key packet and a user id, armored (enough for the fingerprint check), and its fingerprint."""
    body = b"\x04" + (1700000000).to_bytes(4, "big") + b"\x01" + _mpi(modulus) + _mpi(65537)
    uid = user_id.encode()
    data = bytes([0x98, len(body)]) + body + bytes([0xB4, len(uid)]) + uid
    crc = base64.b64encode(_crc24(data).to_bytes(3, "big")).decode()
    armored = "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n%s\n=%s\n-----END PGP PUBLIC KEY BLOCK-----\n" % (
        base64.b64encode(data).decode(), crc)
    return {"armored": armored, "fingerprint": hashlib.sha1(b"\x99" + len(body).to_bytes(2, "big") + body).hexdigest().upper()}


_VENDOR = _armored_key((1 << 1023) + 12345, "Test Vendor <vendor@example.invalid>")
_OTHER = _armored_key((1 << 1023) + 54321, "Other <other@example.invalid>")
KEY = _VENDOR["armored"]
FINGERPRINT = _VENDOR["fingerprint"]
OTHER_KEY = _OTHER["armored"]
OTHER_FINGERPRINT = _OTHER["fingerprint"]


def test_pinned_key_passes_through_the_shell():
    result = assert_each_argument_matters(F["openpgp_key_check"], {"key_text": KEY, "pinned": [FINGERPRINT]},
                                          {"key_text": OTHER_KEY, "pinned": [OTHER_FINGERPRINT]})
    assert result == check_key(KEY, [FINGERPRINT])
    assert result["ok"] and result["fingerprints"] == [FINGERPRINT]
    assert result["keys"][0]["user_ids"] == ["Test Vendor <vendor@example.invalid>"]


def test_an_unpinned_key_is_not_trusted():
    result = F["openpgp_key_check"](OTHER_KEY, [FINGERPRINT])
    assert not result["ok"] and result["unexpected"] == [OTHER_FINGERPRINT]


def test_none_means_empty():
    assert F["openpgp_key_check"](None, [FINGERPRINT])["msg"].startswith("not a usable OpenPGP public key")
    assert F["openpgp_key_check"](KEY, None)["msg"] == "no pinned fingerprint given: refusing to trust any key"


def test_pinned_must_be_a_list():
    with pytest.raises(AnsibleFilterError, match="^openpgp_key_check: pinned must be a list, got str$"):
        F["openpgp_key_check"](KEY, FINGERPRINT)
