# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""toolkit_probe: a host tree under tmp_path with real links, files and stand-in nvcc programs that
are run for real (each logs its calls, so a binary asked twice through links shows)."""
from __future__ import annotations

import os
import subprocess

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import toolkit_probe

NVCC = """#!/bin/sh
echo "$(readlink -f "$0") $1" >> "{log}"
case "$1" in
  --version) printf 'nvcc: NVIDIA (R) Cuda compiler driver\\nCuda compilation tools, release {xy}, V{full}\\n' ;;
  --list-gpu-arch) printf 'compute_%s\\n' 75 80 90 120 ;;
  *) exit 1 ;;
esac
"""


def run(argv):
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, check=False)
    return done.returncode, done.stdout, done.stderr


def toolkit(root, xy, full, log):
    directory = root / "usr" / "local" / ("cuda-" + xy) / "bin"
    directory.mkdir(parents=True)
    nvcc = directory / "nvcc"
    nvcc.write_text(NVCC.format(log=log, xy=xy, full=full))
    nvcc.chmod(0o755)
    return str(directory.parent)


@pytest.fixture
def host(tmp_path):
    root = tmp_path / "host"
    log = tmp_path / "nvcc.log"
    log.write_text("")
    dir128 = toolkit(root, "12.8", "12.8.93", log)
    dir130 = toolkit(root, "13.0", "13.0.88", log)
    (root / "etc" / "alternatives").mkdir(parents=True)
    os.symlink(dir128, str(root / "etc" / "alternatives" / "cuda"))
    os.symlink(str(root / "etc" / "alternatives" / "cuda"), str(root / "usr" / "local" / "cuda"))
    os.symlink(dir130, str(root / "usr" / "local" / "cuda-13"))
    return root, log


def calls(log):
    return [line.split(str(log.parent))[-1] for line in log.read_text().splitlines()]


def test_every_nvcc_answers_once_per_question(host):
    root, log = host
    cache = {}
    found, answers = toolkit_probe.read_nvcc(run, [], str(root), cache)
    assert [(path, text.splitlines()[-1]) for path, text in found] == [
        ("/usr/local/cuda", "Cuda compilation tools, release 12.8, V12.8.93"),
        ("/usr/local/cuda-12.8", "Cuda compilation tools, release 12.8, V12.8.93"),
        ("/usr/local/cuda-13", "Cuda compilation tools, release 13.0, V13.0.88"),
        ("/usr/local/cuda-13.0", "Cuda compilation tools, release 13.0, V13.0.88")]
    assert answers == {}
    _found, answers = toolkit_probe.read_nvcc(run, ["/usr/local/cuda-12.8", "/usr/local/cuda-13.0", "/opt/cuda-12.9"],
                                              str(root), cache)
    assert answers["/opt/cuda-12.9"] is None
    assert answers["/usr/local/cuda-13.0"]["archs"] == "compute_75\ncompute_80\ncompute_90\ncompute_120\n"
    assert sorted(calls(log)) == ["/host/usr/local/cuda-12.8/bin/nvcc --list-gpu-arch",
                                  "/host/usr/local/cuda-12.8/bin/nvcc --version",
                                  "/host/usr/local/cuda-13.0/bin/nvcc --list-gpu-arch",
                                  "/host/usr/local/cuda-13.0/bin/nvcc --version"]


def test_a_failing_nvcc_answers_with_its_error(tmp_path):
    nvcc = tmp_path / "usr" / "local" / "cuda-12.8" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("#!/bin/sh\necho 'error while loading shared libraries: libcudart.so' >&2\nexit 127\n")
    nvcc.chmod(0o755)
    found, answers = toolkit_probe.read_nvcc(run, ["/usr/local/cuda-12.8"], str(tmp_path))
    assert found == [("/usr/local/cuda-12.8", "error while loading shared libraries: libcudart.so\n")]
    assert answers["/usr/local/cuda-12.8"]["version"].startswith("error while loading")


def test_a_nvcc_that_is_not_executable_is_missing(tmp_path):
    nvcc = tmp_path / "usr" / "local" / "cuda-12.8" / "bin" / "nvcc"
    nvcc.parent.mkdir(parents=True)
    nvcc.write_text("not a program\n")
    assert toolkit_probe.read_nvcc(run, ["/usr/local/cuda-12.8"], str(tmp_path)) == ([], {"/usr/local/cuda-12.8": None})


def test_link_through_alternatives(host):
    root, _log = host
    assert toolkit_probe.read_link(str(root)) == {
        "exists": True, "islink": True, "isdir": False, "readlink": "/etc/alternatives/cuda",
        "target": "/usr/local/cuda-12.8"}
    assert toolkit_probe.real_dir("/usr/local/cuda-13", str(root)) == "/usr/local/cuda-13.0"
    assert toolkit_probe.real_dir("/opt/none", str(root)) == "/opt/none"


def test_link_absent_relative_and_a_real_directory(tmp_path):
    (tmp_path / "usr" / "local").mkdir(parents=True)
    assert toolkit_probe.read_link(str(tmp_path)) == {
        "exists": False, "islink": False, "isdir": False, "readlink": None, "target": None}
    (tmp_path / "usr" / "local" / "cuda-12.8").mkdir()
    os.symlink("cuda-12.8", str(tmp_path / "usr" / "local" / "cuda"))
    link = toolkit_probe.read_link(str(tmp_path))
    assert link["readlink"] == "cuda-12.8" and link["target"] == "/usr/local/cuda-12.8"
    os.unlink(str(tmp_path / "usr" / "local" / "cuda"))
    (tmp_path / "usr" / "local" / "cuda").mkdir()
    assert toolkit_probe.read_link(str(tmp_path))["isdir"] is True


def test_profile_file(tmp_path):
    assert toolkit_probe.read_profile(str(tmp_path)) is None
    profile = tmp_path / "etc" / "profile.d" / "cuda.sh"
    profile.parent.mkdir(parents=True)
    profile.write_text("export PATH=/usr/local/cuda/bin:$PATH\n")
    profile.chmod(0o600)
    read = toolkit_probe.read_profile(str(tmp_path))
    assert read == {"content": "export PATH=/usr/local/cuda/bin:$PATH\n", "mode": 0o600, "uid": os.getuid(),
                    "gid": os.getgid(), "regular": True}


def _program(directory, name, body):
    path = directory / name
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(0o755)
    return str(path)


def test_packages_and_alternatives_through_their_programs(tmp_path, monkeypatch):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _program(bin_dir, "dpkg-query", 'printf "cuda-toolkit-12-8\\t12.8.1-1\\tii \\n"; exit 0\n')
    monkeypatch.setenv("PATH", "%s:%s" % (bin_dir, os.environ["PATH"]))
    assert toolkit_probe.read_packages(run, "Debian") == "cuda-toolkit-12-8\t12.8.1-1\tii \n"
    _program(bin_dir, "dpkg-query", 'echo "dpkg-query: no packages found matching cuda-toolkit-[0-9]*" >&2; exit 1\n')
    assert toolkit_probe.read_packages(run, "Debian") == ""
    _program(bin_dir, "dpkg-query", 'echo "dpkg-query: error: parsing file /var/lib/dpkg/status" >&2; exit 2\n')
    with pytest.raises(RuntimeError, match="parsing file /var/lib/dpkg/status"):
        toolkit_probe.read_packages(run, "Debian")

    root = tmp_path / "root"
    assert toolkit_probe.read_alternatives(run, "Debian", str(root)) is None  # no alternatives system
    tool = root / "usr" / "bin"
    tool.mkdir(parents=True)
    _program(tool, "update-alternatives", "exit 0\n")  # only its presence is looked at under root
    _program(bin_dir, "update-alternatives", 'echo "update-alternatives: error: no alternatives for cuda" >&2; exit 2\n')
    assert toolkit_probe.read_alternatives(run, "Debian", str(root)) == {
        "status": None, "value": None, "alternatives": []}
    _program(bin_dir, "update-alternatives", 'printf "Name: cuda\\nStatus: auto\\nValue: /usr/local/cuda-13.0\\n'
                                             '\\nAlternative: /usr/local/cuda-13.0\\nPriority: 130\\n"\n')
    assert toolkit_probe.read_alternatives(run, "Debian", str(root)) == {
        "status": "auto", "value": "/usr/local/cuda-13.0", "alternatives": ["/usr/local/cuda-13.0"]}
    _program(bin_dir, "update-alternatives", "echo 'read error' >&2; exit 3\n")
    with pytest.raises(RuntimeError, match="update-alternatives --query cuda failed"):
        toolkit_probe.read_alternatives(run, "Debian", str(root))


def test_os_family_from_the_package_query_programs():
    assert toolkit_probe.os_family(lambda name: name in ("dpkg-query", "rpm")) == "Debian"
    assert toolkit_probe.os_family(lambda name: name == "rpm") == "RedHat"
    assert toolkit_probe.os_family(lambda name: False) == ""
