# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the cuda_toolkit role reads on a host, read once (the cuda_toolkit_state module).

The installed cuda-toolkit-X-Y packages, every nvcc under /usr/local that answers (its release;
the requested toolkits' GPU architectures too), the cuda alternative or the plain
/usr/local/cuda link, and /etc/profile.d/cuda.sh. `run(argv)` -> (rc, stdout, stderr) runs a
command (AnsibleModule.run_command in the module, subprocess in the tests); `root` prefixes
every path read (tests use a directory of their own). Parsing is pure; toolkit_state.py decides.
"""
from __future__ import annotations

import glob
import os
import re
import stat

# The package query of each OS family: "name<TAB>version<TAB>status" lines (driver.policy's format).
PACKAGE_QUERY = {
    "Debian": ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n", "cuda-toolkit-[0-9]*"],
    "RedHat": ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "cuda-toolkit-[0-9]*"],
}
# The alternatives system of each OS family: its program, the query of the cuda alternative and
# the patterns of its answer (status auto/manual, the selected path, the registered paths).
ALTERNATIVES = {
    "Debian": {"tool": "/usr/bin/update-alternatives", "query": ["update-alternatives", "--query", "cuda"],
               "status": r"^Status: (\S+)", "value": r"^Value: (\S+)", "list": r"^Alternative: (\S+)"},
    "RedHat": {"tool": "/usr/sbin/alternatives", "query": ["alternatives", "--display", "cuda"],
               "status": r"status is (\w+)", "value": r"link currently points to (\S+)", "list": r"^(/\S+) - priority"},
}
CUDA_LINK = "/usr/local/cuda"
PROFILE = "/etc/profile.d/cuda.sh"
_TOOLKIT_GLOBS = ("/usr/local/cuda", "/usr/local/cuda-[0-9]*")


def os_family(has_program):
    """"Debian" where dpkg-query is, else "RedHat" where rpm is, else "" (has_program(name) -> bool)."""
    for family in ("Debian", "RedHat"):
        if has_program(PACKAGE_QUERY[family][0]):
            return family
    return ""


def parse_alternatives(text, os_family):
    """The cuda alternative's query answer -> {"status", "value", "alternatives": [paths]}.

    Empty text (no such alternative) gives {"status": None, "value": None, "alternatives": []}.
    """
    patterns = ALTERNATIVES[os_family]

    def first(pattern):
        found = re.findall(pattern, text or "", re.M)
        return found[0] if found else None

    return {"status": first(patterns["status"]), "value": first(patterns["value"]),
            "alternatives": re.findall(patterns["list"], text or "", re.M)}


def _at(root, path):
    return os.path.join(root, path.lstrip("/")) if root else path


def _strip(root, path):
    """The host path of a path under root (root's own prefix taken off)."""
    if not root:
        return path
    rel = os.path.relpath(path, root)
    return "/" + rel if rel != "." else "/"


def _executable(path):
    return os.path.isfile(path) and os.access(path, os.X_OK)


def read_link(root=""):
    """/usr/local/cuda: {"exists", "islink", "isdir" (a real directory), "readlink", "target" (real path)}."""
    path = _at(root, CUDA_LINK)
    islink = os.path.islink(path)
    raw = os.readlink(path) if islink else None
    if raw and root and os.path.isabs(raw):
        raw = _strip(root, raw)
    return {"exists": os.path.lexists(path), "islink": islink, "isdir": os.path.isdir(path) and not islink,
            "readlink": raw, "target": _strip(root, os.path.realpath(path)) if os.path.lexists(path) else None}


def real_dir(path, root=""):
    """The real path of a toolkit directory on the host (links followed); the path itself when it is not there."""
    return _strip(root, os.path.realpath(_at(root, path)))


def read_profile(root=""):
    """/etc/profile.d/cuda.sh: None when absent, else {"content", "mode", "uid", "gid", "regular"}."""
    path = _at(root, PROFILE)
    if not os.path.lexists(path):
        return None
    info = os.lstat(path)
    regular = stat.S_ISREG(info.st_mode)
    content = None
    if regular:
        with open(path, "rb") as handle:
            content = handle.read().decode("utf-8", "replace")
    return {"content": content, "mode": stat.S_IMODE(info.st_mode), "uid": info.st_uid, "gid": info.st_gid,
            "regular": regular}


def _nvcc_answer(run, path, argument):
    rc, out, err = run([path, argument])
    return (out or "") + ("" if rc == 0 else (err or ""))


def read_nvcc(run, wanted_dirs, root="", cache=None):
    """Ask every nvcc under /usr/local for its release, and the wanted toolkits' for their GPU architectures.

    wanted_dirs: the directories of the requested toolkits (their nvcc is asked for
    --list-gpu-arch too). Each binary runs once per question however many links lead to it
    (cache: {(real path, question): answer}, shared between calls).
    Returns (found, answers): found is [(dir, its nvcc --version text)] for every toolkit
    directory with an executable nvcc; answers maps each wanted directory to {"version", "archs"}
    texts, or None where its nvcc is not executable.
    """
    asked = {} if cache is None else cache

    def ask(nvcc, argument):
        key = (os.path.realpath(nvcc), argument)
        if key not in asked:
            asked[key] = _nvcc_answer(run, nvcc, argument)
        return asked[key]

    dirs = []
    for pattern in _TOOLKIT_GLOBS:
        dirs.extend(sorted(glob.glob(_at(root, pattern))))
    found = []
    for directory in dirs:
        nvcc = os.path.join(directory, "bin", "nvcc")
        if _executable(nvcc):
            found.append((_strip(root, directory), ask(nvcc, "--version")))
    answers = {}
    for directory in wanted_dirs:
        nvcc = os.path.join(_at(root, directory), "bin", "nvcc")
        answers[directory] = ({"version": ask(nvcc, "--version"), "archs": ask(nvcc, "--list-gpu-arch")}
                              if _executable(nvcc) else None)
    return found, answers


def read_packages(run, os_family):
    """The installed cuda-toolkit-X-Y package lines; raises RuntimeError when the query fails (rc > 1)."""
    argv = PACKAGE_QUERY[os_family]
    rc, out, err = run(argv)
    if rc > 1:  # 1: no such package
        raise RuntimeError("%s failed (rc %d): %s" % (" ".join(argv), rc, (err or out or "").strip()))
    return out or ""


def read_alternatives(run, os_family, root=""):
    """The cuda alternative parsed, or None when the host has no alternatives system.

    Raises RuntimeError when the query fails otherwise than "no such alternative" (rc 2).
    """
    table = ALTERNATIVES[os_family]
    if not _executable(_at(root, table["tool"])):
        return None
    rc, out, err = run(table["query"])
    if rc > 2:
        raise RuntimeError("%s failed (rc %d): %s" % (" ".join(table["query"]), rc, (err or out or "").strip()))
    return parse_alternatives(out if rc == 0 else "", os_family)
