# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the pytorch_stack module runs on the host: commands, the stack probe child, adoption.

Runner wraps an AnsibleModule (run_command) for the steps of stack_install.install(); the installer's
(pip's or uv's) output goes to a log file while it runs, so a poller can report progress. The probe runs
planning.stack_probe (after common.error_text, which it imports) in the stack's interpreter through
common.child_program.
"""
from __future__ import annotations

import os
import subprocess

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_program import child_program
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import error_text, py_env
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.child_run import run_child
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, stack_probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_install import StackError

# The stack probe child's modules, dependencies first.
PROBE_MODULES = (error_text, stack_probe)


def probe(python, names, pip_check, timeout):
    """The stack probe's result dict, or the text of why it gave none."""
    ran = run_child(python, child_program(PROBE_MODULES, stack_probe, "stack probe"),
                    [",".join(names), "check" if pip_check else "no-check"], timeout=timeout)
    if ran["status"] == "ok":
        return ran["result"]
    return ran["error"] or ran["stderr_tail"] or ran["status"]


def adopted_before(root, path, python):
    """The stack name when venvs/<stack> already links to `path` and the torch installed there (read
    from its files) still names that stack; None otherwise. An adoption is only recorded after
    torch imported there, so a second run need not import it again."""
    version = py_env.torch_version(python)
    try:
        stack = lifecycle.adopt_name(version) if version else None
    except ValueError:
        return None
    link = os.path.join(root, lifecycle.VENVS, stack) if stack else None
    if link and os.path.islink(link) and os.readlink(link) == path:
        return stack
    return None


def _under(path, top):
    return path == top or path.startswith(top.rstrip(os.sep) + os.sep)


def _hops(path, limit=40):
    """`path` and every link it leads through, each absolute (a loop stops at `limit`)."""
    hops = [os.path.normpath(os.path.abspath(path))]
    while os.path.islink(hops[-1]) and len(hops) < limit:
        hops.append(os.path.normpath(os.path.join(os.path.dirname(hops[-1]), os.readlink(hops[-1]))))
    return hops


def adopt_refusal(root, path, realpath=os.path.realpath):
    """Why `path` cannot be adopted under `root`, or None: the root's own links (current, previous, venvs/<stack>),
    anything inside the root and any link that leads into it. Adopting <root>/current replaced the stack's link
    with a link to current: a loop, current broken ("Too many levels of symbolic links")."""
    top, real_top = os.path.normpath(os.path.abspath(root)), realpath(root)
    hops, real = _hops(path), realpath(path)
    inside = [hop for hop in hops if _under(hop, top)
              or _under(os.path.join(realpath(os.path.dirname(hop)), os.path.basename(hop)), real_top)]
    if not inside and not _under(real, real_top):
        return None
    relative = os.path.relpath(hops[0], top) if _under(hops[0], top) else None
    if relative in lifecycle.LINKS:
        what = "the role's own link %s (it points at %s)" % (relative, real)
    elif relative is not None:
        what = "inside pytorch_root %s" % root
    else:
        what = "a link into pytorch_root %s (through %s)" % (root, (inside or [real])[0])
    head = ("pytorch_adopt_path %s is %s: adopting it would link the stack to the role's own links (a symbolic link "
            "loop; current broken). Nothing was changed. " % (path, what))
    if not _under(real, real_top):
        return head + "Pass the environment itself, the real venv path: -e pytorch_adopt_path=%s" % real
    parts = os.path.relpath(real, real_top).split(os.sep)
    stack = parts[1] if len(parts) > 1 and parts[0] == lifecycle.VENVS else ""
    return head + ("It is the stack %s of this root already: nothing to adopt (leave pytorch_adopt_path unset; "
                   "pytorch_version picks the stack). To adopt another environment pass its real venv path, "
                   "outside pytorch_root: -e pytorch_adopt_path=/opt/torch/.venv" % (stack or real))


def adopt(root, path, check_mode, timeout=300):
    """Link `path` in as venvs/<stack>, the name from its torch version. Returns stack, python, changed.
    Refuses the root's own links and paths into the root first (adopt_refusal)."""
    refusal = adopt_refusal(root, path)
    if refusal:
        raise StackError(refusal)
    python = os.path.join(path, "bin", "python3")
    if not os.path.exists(python):
        raise StackError("pytorch_adopt_path %s has no bin/python3." % path)
    stack = adopted_before(root, path, python)
    if stack:
        return {"stack": stack, "python": python, "changed": False}
    found = probe(python, ["torch"], False, timeout)
    if not isinstance(found, dict) or found["errors"]:
        why = found["errors"]["torch"] if isinstance(found, dict) else found
        raise StackError("pytorch_adopt_path %s: torch does not import there: %s" % (path, why))
    stack = lifecycle.adopt_name(found["versions"]["torch"])
    link = os.path.join(root, lifecycle.VENVS, stack)
    changed = not (os.path.islink(link) and os.readlink(link) == path)
    if changed and not check_mode:
        os.makedirs(os.path.dirname(link), mode=0o755, exist_ok=True)
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink(path, link)
    return {"stack": stack, "python": python, "changed": changed}


def open_log(path):
    """The log for writing, emptied, mode 0600 whatever the umask and whatever it had: pip's output names
    the index URLs it reads."""
    handle = os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w")
    os.fchmod(handle.fileno(), 0o600)
    return handle


class Runner(object):
    """The host side of stack_install.install() for one module run."""

    def __init__(self, module, timeout):
        self.module = module
        self.timeout = timeout

    def run(self, argv, log=None, env=None):
        """(rc, stdout, stderr); with a log, the output goes there and stdout is its end. env: the command's
        whole environment (uv's, without the caller's UV_* settings), None for the module's."""
        try:
            if not log and env is None:
                return self.module.run_command(argv, handle_exceptions=False)
            if not log:
                done = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      universal_newlines=True, check=False)
                return done.returncode, done.stdout, done.stderr
            with open_log(log) as handle:
                rc = subprocess.call(argv, stdout=handle, stderr=subprocess.STDOUT, env=env)
        except OSError as exc:  # no such interpreter
            return 127, "", str(exc)
        with open(log) as handle:
            return rc, handle.read()[-4000:], ""

    def probe(self, python, names, pip_check):
        return probe(python, names, pip_check, self.timeout)

    def adopt(self, root, path, check_mode):
        return adopt(root, path, check_mode, self.timeout)
