# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""program_run.runner: the found program run in the C locale, rc 127 for an absent one (real programs)."""
from __future__ import annotations

import os
import shutil
import subprocess

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.program_run import runner


def run_command(argv, environ_update=None):
    env = dict(os.environ, **(environ_update or {}))
    done = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    return done.returncode, done.stdout, done.stderr


def test_the_found_program_runs_in_the_c_locale():
    rc, out, _err = runner(shutil.which, run_command)(["sh", "-c", 'echo "$LC_ALL $0"'])
    assert rc == 0 and out.split()[0] == "C" and out.split()[1].endswith("/sh")


def test_an_absent_program_is_rc_127_and_named():
    assert runner(shutil.which, run_command)(["blackwell-no-such-program", "-x"]) == (
        127, "", "blackwell-no-such-program: command not found")
