#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: pytorch_source_build
short_description: Build a torch wheel from a PyTorch source tree, after checking that the tree and the toolkit can
version_added: 0.2.0
description:
  - Checks before hours of compiling that the tree's C(select_compute_arch.cmake) and C(<cuda_home>/bin/nvcc
    --list-gpu-arch) accept every entry of O(arch_list), and works out C(MAX_JOBS) from O(cpus) and
    O(memory_mb) (O(gib_per_job) per job) unless O(max_jobs) is set. A rejected entry fails with the entries,
    the tree, O(ref) and the way out.
  - Then creates the build venv O(venv) with O(python) (unless it is there), installs the tree's
    C(requirements.txt) into it, and runs C(pip wheel --no-build-isolation --no-deps) of the tree with
    O(flags), O(env), C(TORCH_CUDA_ARCH_LIST), C(MAX_JOBS), C(CUDA_HOME) and C(PYTORCH_BUILD_VERSION=<version>)
    into O(wheelhouse). Every step's output goes to O(log); C(<log>.rc) holds O(run_id) and the exit status at
    the end. Run it with C(async) and follow the log (M(blackwell.pytorch.job_follow) does both); a build takes hours.
  - In check mode only the checks run (nothing is written), and RV(summary) says what would be built.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: none
options:
  tree:
    description: The PyTorch source tree.
    type: path
    required: true
  ref:
    description: The tree's git ref, for messages.
    type: str
    default: ""
  version:
    description: The version the wheel gets (C(PYTORCH_BUILD_VERSION), V(2.9.1+src)).
    type: str
    required: true
  python:
    description: Interpreter that creates the build venv.
    type: path
    required: true
  venv:
    description: The build venv.
    type: path
    required: true
  wheelhouse:
    description: Directory the wheel is written to.
    type: path
    required: true
  log:
    description: File that receives the output of every step.
    type: path
    required: true
  run_id:
    description: What C(<log>.rc) starts with, so that a poller tells this run's end from an earlier one's.
    type: str
    default: ""
  arch_list:
    description: C(TORCH_CUDA_ARCH_LIST) (V(8.9;12.0)); empty is refused (no GPU to build for).
    type: str
    default: ""
  cuda_home:
    description: The toolkit the build uses (C(CUDA_HOME)).
    type: path
    default: /usr/local/cuda
  cpus:
    description: Cores to plan C(MAX_JOBS) with; V(0) counts the host's.
    type: int
    default: 0
  memory_mb:
    description: Available memory to plan C(MAX_JOBS) with, MiB; V(0) reads the host's free memory
      (C(/proc/meminfo) C(MemFree + Buffers + Cached), as C(ansible_facts.memory_mb.nocache.free) counts it).
    type: int
    default: 0
  gib_per_job:
    description: Memory one compile job needs, GiB.
    type: float
    default: 4
  max_jobs:
    description: C(MAX_JOBS) as given; 0 works it out from O(cpus) and O(memory_mb).
    type: int
    default: 0
  flags:
    description: C(USE_*) switches of the build.
    type: dict
    default: {}
  env:
    description: More environment for the build (C(TORCH_NVCC_FLAGS), ...).
    type: dict
    default: {}
  pip_args:
    description:
      - Arguments after C(pip install --requirement <tree>/requirements.txt) (wheelhouse, trusted hosts, proxy).
      - An index or find-links URL with a password goes to pip through a requirements file (mode 0600, in a private
        directory), a proxy with one through the proxy variables, never on pip's command line, which every local
        user sees in C(ps).
    type: list
    elements: str
    default: []
  host:
    description: This host's name, for the report.
    type: str
    default: ""
  lock_timeout:
    description:
      - Seconds to wait for an earlier run's build in the same directory (a play interrupted during the build leaves
        it running in the background). The build holds C(<log dir>/.build.lock) (an fcntl lock) while it runs; when
        another process still holds it after this wait, the module fails naming that process and what to do,
        before it touches the tree, the venv or the log.
    type: int
    default: 600
    version_added: 0.4.0
"""

EXAMPLES = r"""
- name: Check, then build in the background
  blackwell.pytorch.pytorch_source_build:
    tree: /srv/pytorch
    version: 2.9.1+src
    python: /usr/bin/python3
    venv: /opt/pytorch/build/venv
    wheelhouse: /opt/pytorch/wheelhouse
    log: /opt/pytorch/build/torch-2.9.1-src.log
    arch_list: "8.9;12.0"
    host: "{{ inventory_hostname }}"
  async: 28800
  poll: 0
"""

RETURN = r"""
summary:
  description: What is built, with which settings, and where the log is.
  returned: success
  type: str
  sample: "building torch 2.9.1+src on ws-01 from /srv/pytorch: TORCH_CUDA_ARCH_LIST=8.9;12.0 MAX_JOBS=16 (...) CUDA_HOME=/usr/local/cuda USE_CUDA=1; log ..."
arch_list: {description: C(TORCH_CUDA_ARCH_LIST)., returned: success, type: str}
max_jobs: {description: C(MAX_JOBS)., returned: success, type: int}
environment: {description: The build's environment (beside the host's)., returned: success, type: dict}
wheel: {description: The wheel's file name in O(wheelhouse)., returned: success and not in check mode, type: str}
"""

import os
import subprocess

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import url_secrets
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import source_run


class Runner(object):
    """Runs a step with its output appended to the log."""

    def run(self, argv, env=None, log=None):
        try:
            with open(log, "a") as handle:
                return subprocess.call(argv, stdout=handle, stderr=subprocess.STDOUT,
                                       env=dict(os.environ, **env) if env else None)
        except OSError as exc:  # no such interpreter
            with open(log, "a") as handle:
                handle.write("%s: %s\n" % (argv[0], exc))
            return 127


def read(path):
    try:
        with open(path) as handle:
            return handle.read()
    except (IOError, OSError) as exc:
        return exc


def main():
    module = AnsibleModule(
        argument_spec=dict(
            tree=dict(type="path", required=True), ref=dict(type="str", default=""),
            version=dict(type="str", required=True), python=dict(type="path", required=True),
            venv=dict(type="path", required=True), wheelhouse=dict(type="path", required=True),
            log=dict(type="path", required=True), run_id=dict(type="str", default=""),
            arch_list=dict(type="str", default=""), cuda_home=dict(type="path", default="/usr/local/cuda"),
            cpus=dict(type="int", default=0), memory_mb=dict(type="int", default=0),
            gib_per_job=dict(type="float", default=4), max_jobs=dict(type="int", default=0),
            flags=dict(type="dict", default={}), env=dict(type="dict", default={}),
            pip_args=dict(type="list", elements="str", default=[]), host=dict(type="str", default=""),
            lock_timeout=dict(type="int", default=600)),
        supports_check_mode=True)
    module.no_log_values.update(url_secrets(module.params["pip_args"]))  # user:password@ of an index or proxy URL
    meminfo = "" if module.params["memory_mb"] else read("/proc/meminfo")
    params = source_run.host_resources(module.params, os.cpu_count(), meminfo if isinstance(meminfo, str) else "")
    cmake = read(os.path.join(params["tree"], source_run.CMAKE_ARCH_FILE))
    if not isinstance(cmake, str):
        module.fail_json(msg="%s has no %s (%s): is it a PyTorch source tree?" % (
            params["tree"], source_run.CMAKE_ARCH_FILE, cmake))
    nvcc = os.path.join(params["cuda_home"], "bin", "nvcc")
    archs = module.run_command([nvcc, "--list-gpu-arch"])[1] if os.path.exists(nvcc) else ""
    try:
        planned = source_run.plan_build(params, cmake, archs)
    except ValueError as exc:
        module.fail_json(msg=str(exc))
    error = planned.pop("error")
    if error:
        module.fail_json(msg=error)
    result = dict(planned, changed=True)
    if not module.check_mode:
        try:
            result["wheel"] = source_run.build(Runner(), params, planned)
        except (source_run.BuildError, OSError) as exc:
            module.fail_json(msg=str(exc), **result)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
