# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The `run(argv)` the stage answers take, as the preflight probe's own: a real command, (rc, stdout, stderr), rc 127
when its program is absent. Shared by the tests of the probe's driver, toolkit and PyTorch questions."""
from __future__ import annotations

import shutil
import subprocess


def run(argv):
    """A real command; 127 when its program is absent (as the probe's own run)."""
    if not shutil.which(argv[0]):
        return 127, "", "%s: command not found" % argv[0]
    done = subprocess.run(argv, capture_output=True, text=True, env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, check=False)
    return done.returncode, done.stdout, done.stderr
