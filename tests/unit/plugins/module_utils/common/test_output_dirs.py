from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import tempfile

import pytest

from ansible_collections.blackwell.pytorch.plugins.filter.verify import FilterModule
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import output_dirs

F = FilterModule().filters()


def test_textfile_dir_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "textfile").write_text("x")
    assert output_dirs.problems({"verify_prometheus_textfile_dir": str(tmp_path / "textfile")}) == [
        "verify_prometheus_textfile_dir: %s is a file, not a directory" % (tmp_path / "textfile")]


def test_a_file_among_the_parents_is_refused(tmp_path):
    (tmp_path / "srv").write_text("x")
    path = tmp_path / "srv" / "blackwell" / "results"
    assert output_dirs.problem("verify_results_dir", str(path)) == (
        "verify_results_dir: %s cannot be created: %s is a file, not a directory" % (path, tmp_path / "srv"))


def test_existing_and_creatable_directories_and_empty_paths_pass(tmp_path):
    (tmp_path / "exists").mkdir()
    assert output_dirs.problems({"a": str(tmp_path / "exists"), "b": str(tmp_path / "new" / "deeper"), "c": "",
                                 "d": None}) == []


def test_relative_paths_and_dangling_links_are_refused(tmp_path):
    os.symlink(str(tmp_path / "gone"), str(tmp_path / "link"))
    assert output_dirs.problems({"fleet_report_dir": "reports", "x": str(tmp_path / "link" / "sub")}) == [
        "fleet_report_dir must be an absolute path on the controller, got 'reports' (relative to what? it would "
        "depend on the directory ansible-playbook is started from): give the full path, e.g. "
        "-e fleet_report_dir=/srv/blackwell/reports.",
        "x: %s cannot be created: %s is a dangling symbolic link, not a directory" % (
            tmp_path / "link" / "sub", tmp_path / "link")]


CHECK = ("import sys; sys.path.insert(0, sys.argv[1]); from output_dirs import problems; "
         "print('\\n'.join(problems({'verify_results_dir': sys.argv[2], 'fleet_report_dir': sys.argv[3]})))")


def test_directory_the_user_cannot_write_is_refused():
    """Mode 0555 directories; as root (whom modes do not stop) the check runs as nobody, in a child
    process of the system's python3 with a copy of output_dirs.py (it imports nothing of Ansible)."""
    base = tempfile.mkdtemp(prefix="output-dirs-")
    try:
        shutil.copy(output_dirs.__file__, os.path.join(base, "output_dirs.py"))
        results = os.path.join(base, "results")
        os.mkdir(results)
        os.chmod(results, 0o555)
        os.chmod(base, 0o555)
        python = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
        argv = [python, "-c", CHECK, base, results,
                os.path.join(base, "reports", "fleet")]
        if os.geteuid() == 0:
            done = subprocess.run(argv, user=65534, cwd="/", capture_output=True, text=True, check=True)
            user = "uid 65534 (%s)" % pwd.getpwuid(65534).pw_name
        else:
            done = subprocess.run(argv, capture_output=True, text=True, check=True)
            user = "uid %d (%s)" % (os.geteuid(), pwd.getpwuid(os.geteuid()).pw_name)
        assert done.stdout.splitlines() == [
            "fleet_report_dir: %s cannot be created: %s is not writable by %s" % (
                os.path.join(base, "reports", "fleet"), base, user),
            "verify_results_dir: %s is not writable by %s" % (results, user)]
    finally:
        os.chmod(base, 0o755)
        shutil.rmtree(base)


def test_filter_is_a_shell(tmp_path):
    (tmp_path / "f").write_text("x")
    dirs = {"fleet_report_dir": str(tmp_path / "f")}
    assert F["output_dir_errors"](dirs) == output_dirs.problems(dirs) and len(F["output_dir_errors"](dirs)) == 1
    with pytest.raises(Exception, match="output_dir_errors: dirs must be a mapping, got str"):
        F["output_dir_errors"]("x")


@pytest.mark.parametrize("name, filename", [
    ("verify_results_dir", "verify.json"), ("verify_results_dir", "cuda_check.json"),
    ("verify_prometheus_textfile_dir", "blackwell_pytorch_verify.prom"),
    ("verify_prometheus_textfile_dir", "blackwell_pytorch_health.prom")])
def test_a_result_file_that_is_a_directory_is_refused_before_the_work(tmp_path, name, filename):
    # verify.json as a directory failed with "[Errno 21] Is a directory" only after the whole benchmark
    (tmp_path / filename).mkdir()
    assert output_dirs.problems({name: str(tmp_path)}) == [
        "%s: %s is a directory, not a file: remove it (the results are written there), or set %s to another directory"
        % (name, tmp_path / filename, name)]
    (tmp_path / filename).rmdir()
    (tmp_path / filename).write_text("{}")  # a file there is replaced
    assert output_dirs.problems({name: str(tmp_path)}) == []


def test_result_files_name_what_the_collection_writes():
    from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import TEXTFILE
    from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.cuda_check_fact import VERIFY_FILE
    assert VERIFY_FILE in output_dirs.RESULT_FILES["verify_results_dir"]
    assert TEXTFILE in output_dirs.RESULT_FILES["verify_prometheus_textfile_dir"]
    with open(os.path.join(os.path.dirname(__file__), *[".."] * 5, "roles", "verify", "tasks", "benchmark.yml")) as handle:
        assert "- name: blackwell_pytorch_verify.prom" in handle.read()
