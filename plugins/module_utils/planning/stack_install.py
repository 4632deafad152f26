# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Install a planned stack: its venv, the one install call (uv or pip) with exact pins, pip check, the
imports, the marker.

The steps run through `runner`, an object with run(argv, log=None, env=None) -> (rc, stdout, stderr)
(env: the whole environment of the command, None for the module's own) and probe(python, names,
pip_check) -> the stack probe's result or an error text, so unit tests drive every rule with a fake. No Ansible import.
"""
from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.install_check import build_problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.install_command import install_command
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.lifecycle import (
    MARKER, VENVS, marker_text, verify_problems)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.resolve import installed_mismatches
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.stack_space import (
    disk_full, disk_full_message, space_refusal)


class StackError(Exception):
    """A step failed; the message names the stack and what broke."""


def stack_paths(root, stack):
    """(directory, interpreter) of a stack under root."""
    directory = os.path.join(root, VENVS, stack)
    return directory, os.path.join(directory, "bin", "python")


def installed_versions(pip_list_json):
    """{name: version} from `pip list --format=json`."""
    return dict((item["name"], item["version"]) for item in json.loads(pip_list_json or "[]"))


def install(runner, root, stack, python, expected, pip_args, record, check_mode=False, log=None, build=None,
            min_free_gib=0, installer=None):
    """Bring venvs/<stack> to the plan. Returns a result dict; raises StackError on a broken stack.

    installer: {"name": "uv" | "pip", "uv": path of uv, "cache_dir": uv's cache, "environ": the module's
    environment}; None is pip. The venv is made by `python -m venv` for both (it keeps its pip: pip list,
    pip check and a user's pip work in every stack); uv installs into it (install_command.uv_command).

    min_free_gib: free space the filesystem of a venv to be made must have first (else refused before
    anything is created); a step that runs out of disk all the same is reported as a full disk.

    build: install_check.expected_build() of the plan; the installed torch's label, CUDA and kernels
    are checked against it before the marker is written (a stack without a marker never becomes
    current). A venv this call created is removed again when any step fails; an existing one is kept.
    result: stack, python, created (venv made), installed (the pip call ran), missing (what
    differed before), versions (what the imports report), marker (written or would be), changed.
    """
    directory, stack_python = stack_paths(root, stack)
    result = {"stack": stack, "python": stack_python, "created": False, "installed": False,
              "missing": [], "versions": {}, "marker": False, "changed": False}
    if not os.path.exists(stack_python):
        result["created"] = True
        result["missing"] = sorted("%s missing (want %s)" % item for item in expected.items())
        refusal = space_refusal(directory, stack, min_free_gib) if min_free_gib else None
        if refusal:
            raise StackError(refusal)
        if check_mode:
            result["installed"] = result["marker"] = result["changed"] = True
            return result
    try:
        return _install(runner, stack, python, expected, pip_args, record, check_mode, log, build, result, directory,
                        installer or {"name": "pip"})
    except (StackError, OSError) as exc:  # OSError: a directory or the marker could not be written
        text = str(exc) if isinstance(exc, StackError) else "%s: %s" % (stack, exc)
        if result["created"] and not check_mode and os.path.isdir(directory):
            shutil.rmtree(directory, ignore_errors=True)
            text = text.replace("%s kept" % directory, "%s removed" % directory)
        if disk_full(text):
            text = disk_full_message(stack, directory, text)
        raise StackError(text)


def _install(runner, stack, python, expected, pip_args, record, check_mode, log, build, result, directory, installer):
    stack_python = result["python"]
    if result["created"]:
        os.makedirs(os.path.dirname(directory), mode=0o755, exist_ok=True)
        _run(runner, [python, "-m", "venv", directory], "create the venv %s" % directory)
    else:
        rc, out, err = runner.run([stack_python, "-m", "pip", "list", "--format=json", "--disable-pip-version-check"])
        if rc != 0:
            raise StackError("%s: pip list failed: %s" % (stack, (err or out).strip()[-500:]))
        result["missing"] = installed_mismatches(expected, installed_versions(out))
    if result["missing"]:
        result["installed"] = True
        if check_mode:
            result["changed"] = result["marker"] = True
            return result
        with private_directory() as secrets_dir:  # no password on the command line: install_command
            argv, env, files = install_command(installer["name"], stack_python, pip_args, installer.get("uv", ""),
                                               installer.get("cache_dir", ""), installer.get("environ"), secrets_dir)
            write_private(files)
            if env is None:  # pip: the module's environment, as it always ran
                rc, out, err = runner.run(argv, log=log)
            else:
                try:
                    rc, out, err = runner.run(argv, log=log, env=env)
                finally:
                    if installer["name"] == "uv":
                        tighten_locks([directory, installer.get("cache_dir", "")])
        if rc != 0:
            raise StackError("%s: %s install failed (%s kept, current not moved): %s" % (
                stack, "uv pip" if installer["name"] == "uv" else "pip", directory, (err or out).strip()[-1500:]))
    found = runner.probe(stack_python, sorted(expected), True)
    if not isinstance(found, dict):
        raise StackError("%s: the stack's interpreter could not be probed (%s kept, current not moved): %s"
                         % (stack, directory, found))
    result["versions"] = found.get("versions", {})
    problems = verify_problems(found, installed_mismatches(expected, result["versions"]))
    problems += build_problems(build, found.get("torch_build"))
    if problems:
        raise StackError("%s is not consistent (%s kept, current not moved): %s" % (stack, directory, "; ".join(problems)))
    marker = os.path.join(directory, MARKER)
    text = marker_text(record)
    if not os.path.exists(marker) or _read(marker) != text:
        result["marker"] = True
        if not check_mode:
            with open(marker, "w") as handle:
                handle.write(text)
            os.chmod(marker, 0o644)
    result["changed"] = result["created"] or result["installed"] or result["marker"]
    return result


@contextlib.contextmanager
def private_directory():
    """A directory only this user can enter (mode 0700, under the temp dir), removed with what it holds."""
    path = tempfile.mkdtemp(prefix="blackwell-pytorch-")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def write_private(files):
    """Write {path: text}, each file mode 0600 from its creation (it holds credentials)."""
    for path, text in files.items():
        with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as handle:
            handle.write(text)


def tighten_locks(tops):
    """uv leaves its lock files (<venv>/.lock, <cache>/.lock, the cache index's *.lock) writable by everyone
    (0666): make them 0644 like every other file of the stacks. The unpacked wheels (archive-v*) hold none.
    Returns the paths changed."""
    changed = []
    for top in tops:
        for folder, dirs, names in os.walk(top) if top else ():
            dirs[:] = [name for name in dirs if not name.startswith("archive-v")]
            for name in names:
                path = os.path.join(folder, name)
                if name.endswith(".lock") and not os.path.islink(path) and os.stat(path).st_mode & 0o022:
                    os.chmod(path, 0o644)
                    changed.append(path)
    return changed


def _read(path):
    with open(path) as handle:
        return handle.read()


def _run(runner, argv, what):
    rc, out, err = runner.run(argv)
    if rc != 0:
        raise StackError("could not %s: %s" % (what, (err or out).strip()[-500:]))
    return out
