# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A host already as asked for a pytorch plan, in files under a test's directory: the plan's stack under
<root>/venvs with its packages and marker, `current` pointing to it, and a passed torch_cuda_check result stored
against the stack's fingerprint. Returns pytorch_plan's check options for it."""
from __future__ import annotations

import json
import os
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import converged, lifecycle
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import fingerprint


def make(tmp_path, plan, code="c0de", python=sys.executable):
    """(check options, the stack's python, its fingerprint) for `plan` made current under tmp_path/pytorch, its
    marker recording `python` (pytorch_python) as the interpreter that made it."""
    root, cuda, results = tmp_path / "pytorch", tmp_path / "cuda", tmp_path / "results"
    cuda.mkdir()
    results.mkdir()
    stack = root / "venvs" / plan["stack"]
    site = stack / "lib" / "python3.12" / "site-packages"
    site.mkdir(parents=True)
    (stack / "bin").mkdir()
    for name, version in plan["expected"].items():
        (site / ("%s-%s.dist-info" % (name, version))).mkdir()
    (stack / lifecycle.MARKER).write_text(lifecycle.marker_text(converged.stack_record(plan, python)))
    os.symlink("venvs/%s" % plan["stack"], str(root / "current"))
    stack_python = str(stack / "bin" / "python")
    current = fingerprint.fingerprint(stack_python, str(cuda), "", code=code)
    (results / "cuda_check.json").write_text(json.dumps({"schema": fingerprint.SCHEMA, "passed": True, "written": "T",
                                                         "fingerprint": current, "result": {"build": {}}}))
    check = dict(root=str(root), check_results=str(results / "cuda_check.json"), check_code=code,
                 check_cuda_home=str(cuda), check_alias=str(root / "current" / "bin" / "python"),
                 check_output_dirs={"verify_results_dir": str(results)}, check_collection_version="0.5.0")
    return check, stack_python, current
