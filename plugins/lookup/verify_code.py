# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
name: verify_code
version_added: 0.3.0
short_description: The digest of this collection's verification code, read on the controller
description:
  - "Hashes the files of the installed collection that produce and judge a verification result: the modules
    M(blackwell.pytorch.torch_benchmark), M(blackwell.pytorch.torch_cuda_check) and
    M(blackwell.pytorch.stack_fingerprint) and every C(module_utils) package they import, followed through
    those packages' own imports (the set is derived from the code, not listed)."
  - The answer is computed once per process and kept; the verify role passes it to
    M(blackwell.pytorch.stack_fingerprint) as O(blackwell.pytorch.stack_fingerprint#module:code), so a stored
    result is not reused across any change of that code, whatever the collection's version says.
  - Logic in C(plugins/plugin_utils/code_digest.py).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
options: {}
"""

EXAMPLES = r"""
- name: The verification code's digest and the collection's version
  ansible.builtin.debug:
    msg: "{{ query('blackwell.pytorch.verify_code') | first }}"
"""

RETURN = r"""
_raw:
  description: One element.
  type: list
  elements: dict
  contains:
    digest: {description: "sha256 over each file's path and content.", type: str}
    files: {description: "The hashed files, relative to the collection's root.", type: list, elements: str}
    packages: {description: "The module_utils packages among them.", type: list, elements: str}
    collection_version: {description: "The collection's version (C(MANIFEST.json), else C(galaxy.yml)).", type: str}
"""

import os

from ansible.errors import AnsibleLookupError
from ansible.plugins.lookup import LookupBase

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.code_digest import cached

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class LookupModule(LookupBase):
    """The verification code's digest of the collection this plugin belongs to."""

    def run(self, terms, variables=None, **kwargs):
        if terms:
            raise AnsibleLookupError("verify_code takes no terms, got %r" % (terms,))
        try:
            return [cached(COLLECTION_ROOT)]
        except OSError as err:
            raise AnsibleLookupError("verify_code: cannot read the verification code under %s: %s"
                                     % (COLLECTION_ROOT, err))
