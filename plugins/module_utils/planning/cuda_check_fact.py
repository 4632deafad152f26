# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The blackwell_cuda_check fact of a host whose pytorch stage is already as asked.

On such a host the role's change path, and with it the private _common role's cuda_check entry point, is
skipped. The fingerprint pytorch_plan took to find that the stored torch_cuda_check result stands is the one
that entry point would take, so the fact it would publish is built here from it: the verify role later in the
play decides its stored verify.json from this fact (module_utils/verify/decision.py) instead of fingerprinting
the stack a second time. None when there is no stored check or an output directory cannot take results (the
verify role's own fingerprint call then refuses that directory, as it always did). Pure, no Ansible import.
"""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.results.fingerprint import decide

VERIFY_FILE = "verify.json"


def verify_results(check_results):
    """The verify role's verify.json beside cuda_check.json (both live in verify_results_dir)."""
    return os.path.join(os.path.dirname(check_results), VERIFY_FILE)


def cuda_check_fact(check, python, current, stored, verify_stored, dir_problems, gpus, textfile=None):
    """The fact the _common role's cuda_check entry point publishes, for a stored check that stands.

    check: pytorch_plan's check options ({"results": cuda_check.json, "cuda_home", "force", "alias": the
    interpreter under the `current` link, "output_dirs": {variable: path}}); python: the stack's interpreter;
    current: the stack's fingerprint now (results.fingerprint.fingerprint, no settings); stored: cuda_check.json
    as loaded; verify_stored: verify.json as loaded (None when absent), or results.stored.read()'s (document,
    problem); dir_problems: output_dirs.problems() of check["output_dirs"]; gpus: results.fingerprint.gpu_models();
    textfile: results.stored.textfile() of the textfile directory (what stack_fingerprint returns as `textfile`)."""
    if dir_problems or not isinstance(stored, dict) or not check.get("results"):
        return None
    force = bool(check.get("force"))
    verify_path = verify_results(check["results"])
    verify_stored, problem = verify_stored if isinstance(verify_stored, tuple) else (verify_stored, None)
    reuse, reason, changed = decide(verify_stored, current, force, problem)
    return {"result": dict(stored.get("result") or {}, reused=True), "reused": True, "results": check["results"],
            "python": python, "pythons": [path for path in (python, check.get("alias")) if path],
            "cuda_home": check.get("cuda_home") or "/usr/local/cuda", "force": force,
            "output_dirs": dict(check.get("output_dirs") or {}), "fingerprint": current, "gpus": list(gpus or []),
            "verify": {"results": verify_path, "stored": verify_stored, "reuse": reuse, "reason": reason,
                       "changed_components": changed},
            "textfile": dict(textfile or {})}
