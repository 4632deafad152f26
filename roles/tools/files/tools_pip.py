# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pip of the tools venv, with what must not be on a command line read from the standard input.

The arguments are pip's (install ..., with no credential: the torch_pip_private filter took them out); the
standard input is JSON {"requirements": text, "env": {name: value}}: the index URLs that carry a user name or
password, as requirements lines pip reads from a pipe (--requirement /dev/stdin), and PIP_PROXY when the proxy
carries a password, added to pip's environment. Every local user reads a command line in ps; a pipe and a
process's environment only its user and root do. The tools role runs this text with `python -c` under the venv's
interpreter (Python 3.9+, the standard library only); pip's exit status is its own.
"""
import json
import os
import subprocess
import sys

request = json.loads(sys.stdin.read() or "{}")
requirements = request.get("requirements") or ""
argv = [sys.executable, "-m", "pip"] + sys.argv[1:] + (["--requirement", "/dev/stdin"] if requirements else [])
env = dict(os.environ, **(request.get("env") or {}))
sys.exit(subprocess.run(argv, input=requirements.encode("utf-8"), env=env, check=False).returncode)
