# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A PyTorch source build on the build host (the pytorch_source_build module, docs/domain.md section 5).

- host_resources(): the cores and the free memory (/proc/meminfo) where the options leave them at 0.
- plan_build(): MAX_JOBS, the refusal of an arch list the tree or the toolkit cannot build (before hours
  of compiling), the build's environment and its one-line report.
- build(): the build venv, the tree's requirements, `pip wheel` of the tree in the build venv with its
  output in the log, the exit status in <log>.rc, and the wheel it made; under the build's job lock
  (<log dir>/.build.lock): an earlier run's build still running is waited for, then named.

The steps run through `runner`, an object with run(argv, env=None, log=None) -> (rc, output), so unit
tests drive every rule with a fake. No Ansible import.
"""
from __future__ import annotations

import glob
import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import job_lock
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import (
    install_command, role_messages, source_build, stack_install)
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError

CMAKE_ARCH_FILE = os.path.join("cmake", "Modules_CUDA_fix", "upstream", "FindCUDA", "select_compute_arch.cmake")
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
LOCK = ".build.lock"  # beside the log: held by the build for as long as it runs (common/job_lock.py)


# A step of the build failed; the message says which and how: the planning package's one exception, under the
# name pytorch_source_build catches it by.
BuildError = PlanError


def environment(params, arch_list, jobs):
    """The build's environment: env, then flags, then what the build must get (arch list, MAX_JOBS,
    CUDA_HOME, the version, the toolkit's and the build venv's bin first on PATH); every value text."""
    out = dict(params["env"] or {})
    out.update(params["flags"] or {})
    out.update({"TORCH_CUDA_ARCH_LIST": arch_list, "MAX_JOBS": str(jobs), "CUDA_HOME": params["cuda_home"],
                "PYTORCH_BUILD_VERSION": params["version"], "PYTORCH_BUILD_NUMBER": "1",
                "PATH": "%s/bin:%s/bin:%s" % (params["cuda_home"], params["venv"], SYSTEM_PATH)})
    return dict((str(key), str(value)) for key, value in out.items())


def summary(params, arch_list, jobs):
    """"building torch <version> on <host> from <tree>: TORCH_CUDA_ARCH_LIST=... MAX_JOBS=n (why)
    CUDA_HOME=... <flags>; log <log>"."""
    flags = " ".join("%s=%s" % (key, value) for key, value in (params["flags"] or {}).items())
    return "building torch %s on %s from %s: TORCH_CUDA_ARCH_LIST=%s MAX_JOBS=%d (%s) CUDA_HOME=%s %s; log %s" % (
        params["version"], params["host"], params["tree"], arch_list, jobs["max_jobs"], jobs["reason"],
        params["cuda_home"], flags, params["log"])


def free_memory_mb(meminfo_text):
    """MiB free for a build from /proc/meminfo: MemFree + Buffers + Cached, as Ansible's facts count
    memory_mb.nocache.free; 0 when the text has none of them."""
    fields = {}
    for line in (meminfo_text or "").splitlines():
        words = line.replace(":", " ").split()
        if len(words) > 1 and words[1].isdigit():
            fields[words[0]] = int(words[1])
    return sum(fields.get(name, 0) for name in ("MemFree", "Buffers", "Cached")) // 1024


def host_resources(params, cpu_count, meminfo_text):
    """params with cpus and memory_mb read from the host where they are 0 (the cores; free memory)."""
    out = dict(params)
    out["cpus"] = params["cpus"] or cpu_count or 1
    out["memory_mb"] = params["memory_mb"] or free_memory_mb(meminfo_text)
    return out


def plan_build(params, cmake_text, nvcc_arch_output):
    """{"error": None, "arch_list", "max_jobs", "environment", "summary"}; PlanError with the refusal.

    params: the module's options; cmake_text: the tree's select_compute_arch.cmake; nvcc_arch_output:
    `nvcc --list-gpu-arch` ("" when it has no such option). Raises ValueError for MAX_JOBS inputs that
    are not numbers (source_build.max_jobs).
    """
    jobs = source_build.max_jobs(params["cpus"], params["memory_mb"], params["gib_per_job"], params["max_jobs"])
    arch_list = params["arch_list"]
    rejected = source_build.build_rejections(arch_list, cmake_text, nvcc_arch_output) if arch_list else []
    refusal = role_messages.arch_refusal(arch_list, rejected, params["tree"], params["ref"], params["cuda_home"])
    if refusal:
        raise PlanError(refusal)
    return {"error": None, "arch_list": arch_list, "max_jobs": jobs["max_jobs"],
            "environment": environment(params, arch_list, jobs["max_jobs"]), "summary": summary(params, arch_list, jobs)}


def wheels(wheelhouse, version):
    """Names of the wheels of torch `version` in the wheelhouse, sorted."""
    return sorted(os.path.basename(path) for path in glob.glob(os.path.join(wheelhouse, "torch-%s-*.whl" % version)))


def requirements_argv(params):
    """pip install of the tree's requirements.txt into the build venv, from the wheelhouse when there is one."""
    return [os.path.join(params["venv"], "bin", "python"), "-m", "pip", "install", "--disable-pip-version-check",
            "--requirement", os.path.join(params["tree"], "requirements.txt")] + list(params["pip_args"] or [])


def wheel_argv(params):
    """pip wheel of the tree in the build venv (no build isolation: the venv holds what the build needs)."""
    return [os.path.join(params["venv"], "bin", "python"), "-m", "pip", "wheel", "--disable-pip-version-check",
            "--no-build-isolation", "--no-deps", "-v", "--wheel-dir", params["wheelhouse"], params["tree"]]


def tail(path, lines=25):
    """The last lines of a file ("" when it cannot be read)."""
    try:
        with open(path) as handle:
            return "".join(handle.readlines()[-lines:])
    except (IOError, OSError):
        return ""


def build(runner, params, planned):
    """Build the wheel; returns its name. Raises PlanError when a step fails or no wheel is left.

    The log gets the output of every step; <log>.rc is removed first and written last with
    "<run_id> <exit status>" (also when a step fails), which is how a poller sees the end.
    """
    log, rc_file = params["log"], params["log"] + ".rc"
    for directory in (os.path.dirname(log), params["wheelhouse"]):
        if not os.path.isdir(directory):
            os.makedirs(directory, mode=0o755)
    lock = os.path.join(os.path.dirname(log), LOCK)
    try:  # an earlier run's build, still running in the background, keeps its tree, venv and log
        with job_lock.held(lock, "PyTorch source build in %s" % os.path.dirname(log),
                           params.get("lock_timeout", job_lock.DEFAULT_WAIT_S), "pytorch_source_build option lock_timeout"):
            return _build(runner, params, planned, log, rc_file)
    except job_lock.JobBusy as exc:
        with open(rc_file, "w") as handle:  # this run's end, for its poller
            handle.write("%s 1\n" % params["run_id"])
        raise PlanError(str(exc))


def _build(runner, params, planned, log, rc_file):
    if os.path.exists(rc_file):
        os.unlink(rc_file)
    status = 1
    try:
        with open(log, "w"):
            pass
        if not os.path.exists(os.path.join(params["venv"], "bin", "python")):
            status = runner.run([params["python"], "-m", "venv", params["venv"]], log=log)
            if status != 0:
                raise PlanError("could not create the build venv %s: %s" % (params["venv"], tail(log)))
        if os.path.exists(os.path.join(params["tree"], "requirements.txt")):
            with stack_install.private_directory() as secrets_dir:  # no password on pip's command line
                argv, proxy_env, files = install_command.pip_private(requirements_argv(dict(params, pip_args=[])),
                                                                     params["pip_args"], secrets_dir)
                stack_install.write_private(files)
                status = runner.run(argv, env=proxy_env or None, log=log)
            if status != 0:
                raise PlanError("could not install %s/requirements.txt into %s: %s" % (
                    params["tree"], params["venv"], tail(log)))
        status = runner.run(wheel_argv(params), env=planned["environment"], log=log)
    finally:
        with open(rc_file, "w") as handle:
            handle.write("%s %d\n" % (params["run_id"], status))
    found = wheels(params["wheelhouse"], params["version"])
    if status != 0 or not found:
        raise PlanError("the build of torch %s left no wheel in %s; exit status %d and the end of %s: %s" % (
            params["version"], params["wheelhouse"], status, log, tail(log)))
    return found[-1]
