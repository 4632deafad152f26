# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""OpenPGP filter of the nvidia_driver and cuda_toolkit roles (the vendor repository key): a thin shell
over module_utils/driver/openpgp.py, documented in openpgp_key_check.yml beside this file."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_list, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

openpgp = module_utils("driver.openpgp")


def openpgp_key_check(key_text, pinned):
    """Whether an armored public key may be trusted: every primary key's fingerprint pinned."""
    return openpgp.check_key(text(key_text), as_list(pinned, "pinned", "openpgp_key_check"))


class FilterModule(object):
    """blackwell.pytorch OpenPGP filters."""

    def filters(self):
        return {"openpgp_key_check": openpgp_key_check}
