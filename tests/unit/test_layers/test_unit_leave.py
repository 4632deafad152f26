# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Each test once per `make test` (tests/unit/conftest.py): a run with BLACKWELL_TEST_RECORD_PASSED writes the
tests that passed, a run with BLACKWELL_TEST_UNIT_LEAVE leaves exactly those out, parametrized ones included
(their key holds the parameters' indices, which pytest 6 and 8 agree on), and runs every test not on the list.
Real pytest runs of one parametrized test file of the suite."""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
FILE = "tests/unit/plugins/module_utils/planning/test_plan_inputs.py"


def pytest(tmp_path, **env):
    clean = dict((key, value) for key, value in os.environ.items() if not key.startswith("BLACKWELL_TEST_"))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", FILE],
                          cwd=ROOT, env=dict(clean, **env), capture_output=True, text=True, timeout=120, check=False)
    return done.returncode, done.stdout.strip().splitlines()[-1], done.stderr


def test_the_tests_one_run_passed_are_left_out_of_the_next_and_the_others_run(tmp_path):
    record = tmp_path / "passed"
    rc, last, _ = pytest(tmp_path, BLACKWELL_TEST_RECORD_PASSED=str(record))
    assert rc == 0, last
    keys = record.read_text().splitlines()
    total = int(last.split()[0])  # "N passed in ..."
    assert len(keys) == len(set(keys)) == total
    assert all(key.startswith(FILE + "::test_") for key in keys)
    assert any("[" in key for key in keys)  # parametrized tests carry their parameters' indices
    rc, last, _ = pytest(tmp_path, BLACKWELL_TEST_UNIT_LEAVE=str(record))
    assert rc == 5 and last.startswith("%d deselected" % total), last  # 5: no test left to run
    half = tmp_path / "half"
    half.write_text("".join(key + "\n" for key in keys[::2]))
    rc, last, _ = pytest(tmp_path, BLACKWELL_TEST_UNIT_LEAVE=str(half))
    assert rc == 0 and last.startswith("%d passed, %d deselected" % (total - len(keys[::2]), len(keys[::2]))), last


def test_a_missing_or_empty_list_stops_the_run_instead_of_running_nothing_or_everything(tmp_path):
    rc, _, err = pytest(tmp_path, BLACKWELL_TEST_UNIT_LEAVE=str(tmp_path / "absent"))
    assert rc == 4 and "cannot read the tests the targets' Python passed" in err, err
    (tmp_path / "empty").write_text("")
    rc, _, err = pytest(tmp_path, BLACKWELL_TEST_UNIT_LEAVE=str(tmp_path / "empty"))
    assert rc == 4 and "lists no test" in err, err
