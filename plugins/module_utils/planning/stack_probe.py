# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Child code the pytorch_stack module runs with a stack's own interpreter.

main(argv, emit): argv[0] is a comma-separated list of packages (torch,torchvision,...);
argv[1] is "check" to run `pip check` too. Emits {"pip_check": text of a failing pip check
or "", "versions": {name: __version__}, "errors": {name: "Type: message"}, and when torch imports
"torch_build": {"version", "cuda" (torch.version.cuda), "arch_flags" (torch._C._cuda_getArchFlags())}}.
Runs in the stack's Python (3.9+), shipped by common.child_program after common.error_text. No Ansible import.
"""
from __future__ import annotations

import importlib
import subprocess
import sys

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.error_text import err_text


def probe(names, pip_check):
    out = {"pip_check": "", "versions": {}, "errors": {}}
    if pip_check:
        check = subprocess.run([sys.executable, "-m", "pip", "check", "--disable-pip-version-check"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, check=False)
        out["pip_check"] = check.stdout.strip() if check.returncode else ""
    for name in names:
        try:
            module = importlib.import_module(name)
            out["versions"][name] = str(module.__version__)
        except BaseException as exc:  # a broken wheel raises anything, even SystemExit
            out["errors"][name] = err_text(exc)
            continue
        if name == "torch":
            out["torch_build"] = torch_build(module)
    return out


def torch_build(torch):
    """{"version", "cuda", "arch_flags"} of an imported torch, read without a GPU."""
    try:
        flags = str(torch._C._cuda_getArchFlags() or "")
    except BaseException:  # a CPU build has no such function
        flags = ""
    return {"version": str(torch.__version__), "cuda": getattr(getattr(torch, "version", None), "cuda", None),
            "arch_flags": flags}


def main(argv, emit):
    names = [name for name in (argv[0] if argv else "").split(",") if name]
    emit(probe(names, len(argv) > 1 and argv[1] == "check"))
