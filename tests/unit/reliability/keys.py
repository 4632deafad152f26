# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The armored test keys of test_openpgp.py (made with GnuPG for those tests), for the reliability plays."""
from __future__ import annotations

import importlib.util
import os

_PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "plugins", "module_utils", "driver",
                     "test_openpgp.py")
_SPEC = importlib.util.spec_from_file_location("openpgp_test_keys", _PATH)
_MODULE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_MODULE)

RSA_KEY, RSA_FPR, ED_KEY, ED_FPR = _MODULE.RSA_KEY, _MODULE.RSA_FPR, _MODULE.ED_KEY, _MODULE.ED_FPR
