# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_run
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError

NEW_CMAKE = 'if(arch_name MATCHES "^([0-9]+\\\\.[0-9]a?(\\\\([0-9]+\\\\.[0-9]\\\\))?)$")\n'
OLD_CMAKE = ('if(arch_name MATCHES "^([0-9]\\\\.[0-9](\\\\([0-9]\\\\.[0-9]\\\\))?)$")\n'
             'if(${arch_name} STREQUAL "Ampere")\n')
NVCC_128 = "".join("compute_%s\n" % code for code in (75, 80, 86, 89, 90, 100, 120))


def params(tmp_path=None, **changes):
    where = str(tmp_path) if tmp_path else "/opt/pytorch"
    base = {"tree": where + "/src", "ref": "v2.9.1", "version": "2.9.1+src", "python": "/usr/bin/python3",
            "venv": where + "/build/venv", "wheelhouse": where + "/wheelhouse", "log": where + "/build/torch-2.9.1-src.log",
            "run_id": "17.5", "arch_list": "8.9;12.0", "cuda_home": "/usr/local/cuda", "cpus": 2, "memory_mb": 6144,
            "gib_per_job": 4.0, "max_jobs": 0, "flags": {"USE_CUDA": "1", "USE_NCCL": "0"},
            "env": {"TORCH_NVCC_FLAGS": "-Xfatbin -compress-all", "USE_NCCL": "1"}, "pip_args": [], "host": "ws-1"}
    base.update(changes)
    return base


def refusal(function, *args, **kwargs):
    """The message of the PlanError `function` raises (it must raise one)."""
    with pytest.raises(PlanError) as refused:
        function(*args, **kwargs)
    return str(refused.value)


def test_plan_build_environment_and_summary():
    planned = source_run.plan_build(params(), NEW_CMAKE, NVCC_128)
    assert planned["error"] is None and planned["max_jobs"] == 1 and planned["arch_list"] == "8.9;12.0"
    assert planned["environment"] == {
        "TORCH_NVCC_FLAGS": "-Xfatbin -compress-all", "USE_CUDA": "1", "USE_NCCL": "0",  # flags over env
        "TORCH_CUDA_ARCH_LIST": "8.9;12.0", "MAX_JOBS": "1", "CUDA_HOME": "/usr/local/cuda",
        "PYTORCH_BUILD_VERSION": "2.9.1+src", "PYTORCH_BUILD_NUMBER": "1",
        "PATH": "/usr/local/cuda/bin:/opt/pytorch/build/venv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
    assert planned["summary"] == (
        "building torch 2.9.1+src on ws-1 from /opt/pytorch/src: TORCH_CUDA_ARCH_LIST=8.9;12.0 MAX_JOBS=1 "
        "(2 cores, 6144 MiB available / 4 GiB per job = 1: MAX_JOBS=1) CUDA_HOME=/usr/local/cuda USE_CUDA=1 "
        "USE_NCCL=0; log /opt/pytorch/build/torch-2.9.1-src.log")
    assert source_run.plan_build(params(max_jobs=3), NEW_CMAKE, "")["environment"]["MAX_JOBS"] == "3"


def test_plan_build_refuses_what_the_tree_or_the_toolkit_cannot_build():
    assert refusal(source_run.plan_build, params(), OLD_CMAKE, NVCC_128) == (
        "TORCH_CUDA_ARCH_LIST=8.9;12.0 cannot be built from /opt/pytorch/src (v2.9.1) with /usr/local/cuda: 12.0: "
        "12.0 does not match the tree's pattern ^([0-9]\\.[0-9](\\([0-9]\\.[0-9]\\))?)$ and is not one of its names "
        "(Ampere). Use a newer PyTorch ref (or toolkit), or set pytorch_build_arch_list.")
    assert "nvcc --list-gpu-arch has no compute_120" in refusal(source_run.plan_build, params(), NEW_CMAKE, "compute_89\n")
    assert refusal(source_run.plan_build, params(arch_list=""), NEW_CMAKE, "").startswith(
        "no GPU with a known compute capability on any host of the play")
    with pytest.raises(ValueError, match="gib_per_job must be more than 0"):
        source_run.plan_build(params(gib_per_job=0), NEW_CMAKE, "")


def test_argvs():
    p = params(pip_args=["--no-index", "--find-links", "/srv/wheels"])
    assert source_run.requirements_argv(p) == [
        "/opt/pytorch/build/venv/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--requirement",
        "/opt/pytorch/src/requirements.txt", "--no-index", "--find-links", "/srv/wheels"]
    assert source_run.wheel_argv(p) == [
        "/opt/pytorch/build/venv/bin/python", "-m", "pip", "wheel", "--disable-pip-version-check",
        "--no-build-isolation", "--no-deps", "-v", "--wheel-dir", "/opt/pytorch/wheelhouse", "/opt/pytorch/src"]


class FakeRunner(object):
    """Records the steps; the venv step makes bin/python, the build step writes `wheel` and exits `rc`."""

    def __init__(self, p, wheel="torch-2.9.1+src-py3-none-any.whl", rc=0):
        self.p, self.wheel, self.rc, self.calls = p, wheel, rc, []

    def run(self, argv, env=None, log=None):
        self.calls.append((argv, env))
        with open(log, "a") as handle:
            handle.write("step %d\n" % len(self.calls))
        if argv[1:3] == ["-m", "venv"]:
            os.makedirs(os.path.join(argv[3], "bin"))
            open(os.path.join(argv[3], "bin", "python"), "w").close()
        if "wheel" in argv:
            if self.wheel:
                open(os.path.join(self.p["wheelhouse"], self.wheel), "w").close()
            return self.rc
        return 0


def test_build_runs_the_steps_and_names_the_wheel(tmp_path):
    p = params(tmp_path)
    os.makedirs(p["tree"])
    open(os.path.join(p["tree"], "requirements.txt"), "w").close()
    os.makedirs(os.path.dirname(p["log"]))
    open(p["log"] + ".rc", "w").close()
    planned = source_run.plan_build(p, NEW_CMAKE, "")
    runner = FakeRunner(p)
    assert source_run.build(runner, p, planned) == "torch-2.9.1+src-py3-none-any.whl"
    assert [argv[:3] for argv, env in runner.calls] == [
        ["/usr/bin/python3", "-m", "venv"], [p["venv"] + "/bin/python", "-m", "pip"], [p["venv"] + "/bin/python", "-m", "pip"]]
    assert runner.calls[1][1] is None and runner.calls[2][1] == planned["environment"]
    with open(p["log"]) as handle:
        assert handle.read() == "step 1\nstep 2\nstep 3\n"
    with open(p["log"] + ".rc") as handle:
        assert handle.read() == "17.5 0\n"
    # a second build: the venv is there, no requirements file; the newest name of the version wins
    os.unlink(os.path.join(p["tree"], "requirements.txt"))
    runner = FakeRunner(p, wheel="torch-2.9.1+src-py3-none-linux_x86_64.whl")
    assert source_run.build(runner, p, planned) == "torch-2.9.1+src-py3-none-linux_x86_64.whl"
    assert len(runner.calls) == 1
    assert source_run.wheels(p["wheelhouse"], "2.9.1+src") == [
        "torch-2.9.1+src-py3-none-any.whl", "torch-2.9.1+src-py3-none-linux_x86_64.whl"]


def test_a_failed_build_says_so_and_still_ends_the_poll(tmp_path):
    p = params(tmp_path)
    os.makedirs(p["tree"])
    runner = FakeRunner(p, wheel=None, rc=2)
    with pytest.raises(PlanError) as failed:
        source_run.build(runner, p, source_run.plan_build(p, NEW_CMAKE, ""))
    assert str(failed.value) == "the build of torch 2.9.1+src left no wheel in %s; exit status 2 and the end of %s: " \
        "step 1\nstep 2\n" % (p["wheelhouse"], p["log"])
    with open(p["log"] + ".rc") as handle:
        assert handle.read() == "17.5 2\n"


def test_the_build_venvs_pip_gets_no_password_on_its_command_line(tmp_path):
    p = params(tmp_path, pip_args=["--index-url", "https://lab:s3cret@mirror.lab/simple", "--proxy",
                                   "http://p:pw0@proxy.lab:3128", "--trusted-host", "mirror.lab"])
    os.makedirs(p["tree"])
    open(os.path.join(p["tree"], "requirements.txt"), "w").close()
    seen = {}

    class Reading(FakeRunner):
        def run(self, argv, env=None, log=None):
            if "--requirement" in argv[-2:]:  # the private file is there while pip runs, mode 0600
                seen["file"] = (open(argv[-1]).read(), oct(os.stat(argv[-1]).st_mode & 0o777), argv[-1])
            return FakeRunner.run(self, argv, env, log)

    runner = Reading(p)
    source_run.build(runner, p, source_run.plan_build(p, NEW_CMAKE, ""))
    argv, env = runner.calls[1]
    assert argv == [p["venv"] + "/bin/python", "-m", "pip", "install", "--disable-pip-version-check", "--requirement",
                    p["tree"] + "/requirements.txt", "--trusted-host", "mirror.lab", "--requirement", seen["file"][2]]
    assert seen["file"][:2] == ("--index-url https://lab:s3cret@mirror.lab/simple\n", "0o600")
    assert env == dict.fromkeys(("https_proxy", "http_proxy", "HTTPS_PROXY", "HTTP_PROXY"), "http://p:pw0@proxy.lab:3128")
    assert not os.path.exists(seen["file"][2])  # removed with its private directory after the call


MEMINFO = ("MemTotal:       24683656 kB\nMemFree:        19215608 kB\nMemAvailable:   23872784 kB\n"
           "Buffers:          101364 kB\nCached:          2028896 kB\nSwapCached:            0 kB\nHugePages_Total:       0\n")


def test_free_memory_counts_free_buffers_and_cache_as_the_facts_do():
    assert source_run.free_memory_mb(MEMINFO) == (19215608 + 101364 + 2028896) // 1024 == 20845
    assert source_run.free_memory_mb("MemFree: 2048 kB\n") == 2
    assert source_run.free_memory_mb("") == source_run.free_memory_mb("garbage\nMemFree:\n") == 0


def test_host_resources_fill_only_what_the_options_leave_at_zero():
    given = {"cpus": 0, "memory_mb": 0, "tree": "/t"}
    assert source_run.host_resources(given, 16, MEMINFO) == {"cpus": 16, "memory_mb": 20845, "tree": "/t"}
    assert source_run.host_resources(dict(given, cpus=4, memory_mb=6144), 16, MEMINFO) == dict(
        given, cpus=4, memory_mb=6144)
    assert source_run.host_resources(dict(given, memory_mb=6144), None, "")["memory_mb"] == 6144
    assert source_run.host_resources(given, None, "")["cpus"] == 1
    assert given["cpus"] == 0  # the options are not changed in place
