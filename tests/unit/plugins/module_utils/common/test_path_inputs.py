# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""common/path_inputs.py over real files: a path option that is relative, a file where a directory is due, a
directory where a file is due, or below a file, is refused naming the variable, the value and what to set."""
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.path_inputs import (
    ABSOLUTE, DIRECTORY, FILE, path_problem, path_problems, relative_problem)


@pytest.mark.parametrize("value,example,shown", [
    ("opt/pytorch", "/opt/pytorch", "/opt/pytorch"),
    ("opt", "", "/opt"),
    ("./venvs/../stacks", "", "/stacks"),
])
def test_a_relative_path_is_refused_naming_the_variable_and_the_absolute_form(value, example, shown):
    assert relative_problem("pytorch_root", value, example) == (
        "pytorch_root must be an absolute path on the target, got %r (relative to what? it would depend on the "
        "directory the module runs in): give the full path, e.g. -e pytorch_root=%s." % (value, shown))
    for kind in (DIRECTORY, FILE, ABSOLUTE):
        assert path_problem("pytorch_root", value, kind, example) == relative_problem("pytorch_root", value, example)


@pytest.mark.parametrize("value", ["", None, "   "])
def test_an_empty_path_is_an_option_left_off(value):
    assert path_problem("pytorch_pip_cache_dir", value, DIRECTORY, "/var/cache/pip") is None


def test_a_file_where_a_directory_is_due_is_refused(tmp_path):
    afile = tmp_path / "pytorch"
    afile.write_text("not a directory\n")
    assert path_problem("pytorch_root", str(afile), DIRECTORY, "/opt/pytorch") == (
        "pytorch_root %s is a file, not a directory: give a directory (or a path that is not there yet), "
        "e.g. -e pytorch_root=/opt/pytorch." % afile)


def test_a_directory_where_a_file_is_due_is_refused_saying_what_is_expected(tmp_path):
    assert path_problem("pytorch_python", str(tmp_path) + "/", FILE, "/usr/bin/python3",
                        what="the interpreter itself (Python 3.10 or newer)") == (
        "pytorch_python %s is a directory, not a file: give the interpreter itself (Python 3.10 or newer), "
        "e.g. -e pytorch_python=/usr/bin/python3." % tmp_path)
    assert path_problem("cuda_toolkit_install_log", str(tmp_path), FILE, "") == (
        "cuda_toolkit_install_log %s is a directory, not a file: give the file itself." % tmp_path)


def test_a_path_below_a_file_cannot_be_created_and_is_refused(tmp_path):
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    for kind, name in ((DIRECTORY, "pytorch_uv_cache_dir"), (FILE, "pytorch_profile_path")):
        assert path_problem(name, str(afile / "a" / "b"), kind, "/x") == (
            "%s %s cannot be created: %s is a file, not a directory: give a path under a directory, "
            "e.g. -e %s=/x." % (name, afile / "a" / "b", afile, name))


def test_good_paths_pass(tmp_path):
    (tmp_path / "python3").write_text("")
    os.symlink(str(tmp_path), str(tmp_path / "link"))  # a link to a directory is a directory
    assert path_problems([
        ("pytorch_root", str(tmp_path / "not" / "yet"), DIRECTORY, "/opt/pytorch"),  # created where it can be
        ("pytorch_root", str(tmp_path / "link"), DIRECTORY, "/opt/pytorch"),
        ("pytorch_python", str(tmp_path / "python3"), FILE, "/usr/bin/python3", "the interpreter itself"),
        ("pytorch_profile_path", str(tmp_path / "profile.sh"), FILE, "/etc/profile.d/pytorch.sh"),
        ("pytorch_wheelhouse", str(tmp_path / "python3"), ABSOLUTE, "/srv/wheelhouse"),  # its kind: checked where used
        ("/", "/", DIRECTORY, ""),
    ]) == []


def test_every_problem_is_given_in_order(tmp_path):
    (tmp_path / "afile").write_text("x\n")
    found = path_problems([("pytorch_root", "opt", DIRECTORY, "/opt/pytorch"),
                           ("pytorch_python", str(tmp_path), FILE, "/usr/bin/python3"),
                           ("pytorch_cuda_home", str(tmp_path / "afile"), DIRECTORY, "/usr/local/cuda")])
    assert [message.split(" ")[0] for message in found] == ["pytorch_root", "pytorch_python", "pytorch_cuda_home"]
