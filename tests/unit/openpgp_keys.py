# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A test OpenPGP key shared by the tests of the key checks (driver/openpgp) and of the container toolkit's
repository key (containers/repo_key): made with GnuPG for them, trusted by nothing."""
from __future__ import annotations

# ed25519 primary, user id "Test Other Ed25519 <ed@example.invalid>"
ED_KEY = """-----BEGIN PGP PUBLIC KEY BLOCK-----

mDMEawIAqhYJKwYBBAHaRw8BAQdAj/E6Ydgl/IQ0QBe08NjwKwOZ+ttabJGUwCXY
qa+U4Fu0J1Rlc3QgT3RoZXIgRWQyNTUxOSA8ZWRAZXhhbXBsZS5pbnZhbGlkPoiQ
BBMWCAA4FiEEaY7juqYsimOaZEXhyXzW0iZY0Q0FAmsCAKoCGwMFCwkIBwIGFQoJ
CAsCBBYCAwECHgECF4AACgkQyXzW0iZY0Q0sJwD/SABVsKhngybMKuHzjz22HtSR
jMLNN8wYTGhM2JJaal4BANHdDLFajLdXbGq36C/r89ndTN2D1IFisaTlOSNcDA0E
=07QS
-----END PGP PUBLIC KEY BLOCK-----
"""
ED_FPR = "698EE3BAA62C8A639A6445E1C97CD6D22658D10D"
ED_NAME = "Test Other Ed25519 <ed@example.invalid>"
