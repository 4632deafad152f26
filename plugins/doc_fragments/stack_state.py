# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment(object):
    # What a module reads to answer whether the pytorch stage is already as asked (pytorch_plan's converged):
    # the stacks' root and keep count, the user, an adopted environment, the profile and the stored check.
    DOCUMENTATION = r"""
options:
  root:
    description: The stacks' root (C(pytorch_root)); empty answers RV(converged=false).
    type: path
    default: ""
    version_added: 0.4.0
  keep:
    description: How many stacks the role keeps (C(pytorch_keep_stacks)); below 1 is refused.
    type: int
    default: 2
    version_added: 0.4.0
  user:
    description: The user the play runs as, C(uid) and C(name) (C(blackwell_preflight.user)); a uid other than 0 is refused.
    type: dict
    default: {}
    version_added: 0.4.0
  adopt_path:
    description: An existing environment the role adopts (C(pytorch_adopt_path)); empty for none.
    type: path
    default: ""
    version_added: 0.4.0
  profile_path:
    description: The login-shell profile the role writes (C(pytorch_profile_path)); empty for none.
    type: path
    default: ""
    version_added: 0.4.0
  cuda_module_loading:
    description: C(CUDA_MODULE_LOADING) in O(profile_path) (C(pytorch_cuda_module_loading)).
    type: str
    default: LAZY
    version_added: 0.4.0
  cuda_alloc_conf:
    description: C(PYTORCH_CUDA_ALLOC_CONF) in O(profile_path) (C(pytorch_cuda_alloc_conf)).
    type: str
    default: ""
    version_added: 0.4.0
  allow_tf32:
    description: Whether O(profile_path) turns on TF32 matmuls (C(pytorch_allow_tf32)).
    type: bool
    default: false
    version_added: 0.4.0
  check_results:
    description: The stored torch_cuda_check result (C(cuda_check.json) of the verify role's results directory); empty for none.
    type: path
    default: ""
    version_added: 0.4.0
  check_code:
    description: Digest of the verification code (the C(blackwell.pytorch.verify_code) lookup's C(digest)); part of the fingerprint.
    type: str
    default: ""
    version_added: 0.4.0
  check_cuda_home:
    description: The toolkit whose version is part of the fingerprint (C(verify_cuda_home)).
    type: path
    default: /usr/local/cuda
    version_added: 0.4.0
  check_force:
    description: Never count the stored check as valid (C(verify_force)).
    type: bool
    default: false
    version_added: 0.4.0
  check_alias:
    description: >-
      The interpreter under the C(current) link (the verify role's C(verify_python) by default); named in RV(cuda_check)
      beside the stack's own, so the verify role takes that fact for either. Empty, C(<root>/current/bin/python).
    type: path
    default: ""
    version_added: 0.5.0
  check_output_dirs:
    description: >-
      The verify role's output directories ({variable name: path}) as the private C(_common) role's cuda_check entry
      point checks them; RV(cuda_check) is null when one cannot take results.
    type: dict
    default: {}
    version_added: 0.5.0
  check_collection_version:
    description: The collection's version, kept in the fingerprint of RV(cuda_check) for display (not compared).
    type: str
    default: ""
    version_added: 0.5.0
"""
