# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Tools venvs as the tools role leaves them, for the tests of the preflight probe's reading of them.

venv(path) is a real venv (`python -m venv --without-pip`); wheel() writes a small wheel (a zip with its
dist-info, modules and scripts) and pip_install() installs it into a venv with pip itself (pip()), so the
dist-info directory, METADATA, RECORD and the scripts in bin/ are the ones pip writes. tools_check() runs the
tools role's own check (roles/tools/files/tools_check.py) under the venv's interpreter, as the role runs it.
"""
from __future__ import annotations

import base64
import ensurepip
import glob
import hashlib
import os
import subprocess
import sys
import sysconfig
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECK_PROGRAM = os.path.join(ROOT, "roles", "tools", "files", "tools_check.py")
NVML = "nvidia-ml-py==13.615.71"
UV = "uv==0.13.9"
# A pynvml module that hands every attribute to the stand-in of CURRENT[0] (a fake pynvml object of the tests):
# imported from a venv's site-packages, it is the NVML the tests set up.
STAND_IN_PYNVML = ("import tools_venv_fixture\n\n\ndef __getattr__(name):\n"
                   "    return getattr(tools_venv_fixture.CURRENT[0], name)\n")
CURRENT = [None]


def venv(path):
    """A venv at `path` without pip, its interpreter and its site-packages directory."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(path)], check=True)
    python = os.path.join(str(path), "bin", "python")
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    return {"path": str(path), "python": python, "site": site}


def _digest(data):
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def wheel(directory, name, version, modules=None, scripts=None):
    """The path of a pure-Python wheel of `name` `version` written into `directory`: `modules` ({module: text})
    at the top level, `scripts` ({name: text}) installed into the venv's bin/."""
    stem = "%s-%s" % (name.replace("-", "_"), version)
    files = dict(("%s.py" % module, text) for module, text in (modules or {}).items())
    files.update(("%s.data/scripts/%s" % (stem, script), text) for script, text in (scripts or {}).items())
    files["%s.dist-info/METADATA" % stem] = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version)
    files["%s.dist-info/WHEEL" % stem] = "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    record = ["%s,%s,%d" % (path, _digest(text.encode()), len(text.encode())) for path, text in sorted(files.items())]
    files["%s.dist-info/RECORD" % stem] = "\n".join(record + ["%s.dist-info/RECORD,," % stem]) + "\n"
    path = os.path.join(str(directory), "%s-py3-none-any.whl" % stem)
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in sorted(files.items()):
            info = zipfile.ZipInfo(member)
            info.external_attr = (0o100755 if ".data/scripts/" in member else 0o100644) << 16  # regular files
            archive.writestr(info, text)
    return path


def bundled_pip():
    """The pip wheel `python -m venv` would install (ensurepip's, or the one the OS ships for it), None when none."""
    places = [os.path.join(os.path.dirname(ensurepip.__file__), "_bundled"),
              sysconfig.get_config_var("WHEEL_PKG_DIR") or "", "/usr/share/python-wheels"]  # Debian keeps it there
    for place in places:
        found = sorted(glob.glob(os.path.join(place, "pip-*.whl"))) if place else []
        if found:
            return found[-1]
    return None


def pip(target):
    """The command that runs pip for the venv `target`: this interpreter's pip when it can aim at another
    interpreter (`--python`, pip 22.3+), else the venv's interpreter running the pip wheel venv would install
    (a target's Python without pip of its own, as Debian 11's in the sanity layer)."""
    try:
        import pip as own  # pylint: disable=import-outside-toplevel
        recent = tuple(int(part) for part in own.__version__.split(".")[:2]) >= (22, 3)
    except ImportError:
        recent = False
    if recent:
        return [sys.executable, "-m", "pip", "--python", target["python"]]
    wheel_path = bundled_pip()
    assert wheel_path, "no pip for %s: neither this interpreter's nor ensurepip's wheel" % target["python"]
    return [target["python"], os.path.join(wheel_path, "pip")]


def pip_install(target, *wheels):
    """Install `wheels` into the venv `target` (venv()'s) with pip, offline, no dependencies."""
    subprocess.run(pip(target) + ["install", "--quiet", "--no-index", "--no-deps", "--disable-pip-version-check",
                                  "--no-compile"] + list(wheels), check=True)


def pip_uninstall(target, *names):
    """Uninstall the distributions `names` from the venv `target` with pip."""
    subprocess.run(pip(target) + ["uninstall", "--quiet", "--yes", "--disable-pip-version-check"] + list(names),
                   check=True)


def nvml_wheel(directory, version="13.615.71", pynvml="WHO = 'venv'\n"):
    """nvidia-ml-py's wheel: its module pynvml (STAND_IN_PYNVML: the stand-in of CURRENT[0], which only the tests'
    own interpreter imports)."""
    return wheel(directory, "nvidia-ml-py", version, modules={"pynvml": pynvml})


def uv_wheel(directory, version="0.13.9"):
    """uv's wheel: the uv program in bin/ (a script that says its version)."""
    return wheel(directory, "uv", version, scripts={"uv": "#!/bin/sh\necho uv %s\n" % version})


def tools_check(target, *requirements):
    """(rc, what it prints) of the tools role's check run as the role runs it; rc None when the interpreter does
    not start (the role's 'venv not there')."""
    with open(CHECK_PROGRAM) as handle:
        text = handle.read().rstrip()
    try:
        done = subprocess.run([target["python"], "-c", text] + list(requirements), capture_output=True, text=True,
                              check=False)
    except OSError:
        return None, ""
    if done.returncode not in (0, 1):
        return None, ""
    return done.returncode, done.stdout.strip()
