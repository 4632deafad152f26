#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: torch_cuda_check
short_description: Prove which CUDA kernel images of a PyTorch install run on each GPU
version_added: 0.1.0
description:
  - Checks the PyTorch install of a Python environment against the host's NVIDIA GPUs, and proves
    every claim by running code. All GPU work runs in child processes of O(python), each with a
    timeout, so a hang or a crash is reported, never inherited.
  - "Build facts: torch version and git version, CUDA runtime, cuDNN, NCCL, C(torch.cuda.get_arch_list())
    split into SASS (C(sm_XY)) and PTX (C(compute_XY)), device count, and whether torchvision and
    torchaudio import and belong to torch's release line."
  - "Per GPU, a kernel-image verdict from the arch list: V(native) (SASS of the same major and a minor
    <= the GPU's; C(sm_XYa) only on exactly X.Y), V(ptx_jit) (no usable SASS but PTX for a compute
    capability <= the GPU's, JIT-compiled at first use) or V(none) (no kernel image: will not run);
    the matched image and whether the build is forward compatible (plain PTX present)."
  - "Per GPU, three real runs of a small op mix (elementwise, reduction, matmul, compared with the CPU):
    normal, with C(CUDA_DISABLE_PTX_JIT=1) (only native SASS may run) and with C(CUDA_FORCE_PTX_JIT=1)
    (only PTX may run), each in its own child, with its seconds and error text. Each run says whether
    its outcome is what the arch list predicts: a forced-JIT failure on a build without PTX is
    expected and does not mean a broken install."
  - "Per GPU, a native-SASS launch test: a tiny kernel built with NVRTC for exactly the GPU's C(sm_XY)
    as SASS only, loaded and launched through the CUDA driver API under C(CUDA_DISABLE_PTX_JIT=1), with
    the result checked exactly; plus a negative control (the same kernel for another major must be
    refused by the driver)."
  - "Per GPU, feature probes that run a tiny case: SDPA with each backend forced (flash,
    memory-efficient, cuDNN, math), a Triton kernel, bf16 matmul, FP8 (C(float8_e4m3fn)) scaled matmul
    where the compute capability is 8.9 or more, and optionally C(torch.compile)."
  - Without O(require) or O(min_verdict) the module only reports. CUDA not usable (no driver, no GPU,
    a CPU build of torch) is reported with the reason and fails only when something was required.
  - Never changes anything; C(changed) is always false.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.torch_children
  - blackwell.pytorch.attributes.ACTIONGROUP_TORCH
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  python:
    description:
      - The interpreter of the Python environment to check, for example C(/opt/torch/.venv/bin/python3).
      - Defaults to the interpreter running the module.
    type: path
  require:
    description:
      - What must hold on every GPU (and for the build); the module fails naming each GPU, what was
        required, what was found and what to do.
      - V(cuda) the op mix runs normally. V(native) the verdict is native and the C(CUDA_DISABLE_PTX_JIT=1)
        run passes. V(forward_compatible) the C(CUDA_FORCE_PTX_JIT=1) run passes.
        V(native_sass_launch) the NVRTC kernel runs with an exact result.
      - V(flash_attention), V(efficient_attention), V(cudnn_attention), V(math_attention), V(triton),
        V(bf16), V(fp8), V(torch_compile) the probe of that name is C(ok).
      - V(nccl) torch has NCCL. V(torchvision), V(torchaudio) the package imports and is not from another
        torch line or channel (a torch line the built-in table does not know is not held against it).
      - Requiring V(torch_compile) runs the torch.compile probe even when O(torch_compile=false).
    type: list
    elements: str
    choices: [cuda, native, forward_compatible, native_sass_launch, flash_attention, efficient_attention,
              cudnn_attention, math_attention, triton, bf16, fp8, torch_compile, nccl, torchvision, torchaudio]
    default: []
  min_verdict:
    description:
      - The worst kernel-image verdict accepted on any GPU. Unset, the verdict is only reported.
    type: str
    choices: [native, ptx_jit]
  torch_compile:
    description:
      - Run the C(torch.compile) probe, in a child of its own. It compiles for seconds (warm cache) to
        minutes (cold), so it is off by default and its probe then reads V(skipped).
    type: bool
    default: false
  timeout:
    description:
      - Seconds each child process may take (facts, and per GPU the normal, disable-JIT and force-JIT
        children) before it is killed and reported as V(timeout). Zero or less is refused.
    type: int
    default: 120
  compile_timeout:
    description:
      - Seconds the C(torch.compile) child may take.
    type: int
    default: 600
  parallel:
    description:
      - How many children may run at the same time. Each child pays for its own torch import and CUDA
        start, so overlapping them keeps the check short; V(1) runs them one after the other, which
        gives the cleanest per-run seconds (the op mix and JIT timings do not share the GPU then).
      - The GPU children of the GPUs the driver lists (or C(CUDA_VISIBLE_DEVICES) names) start beside the
        facts child; the default runs all five children of a one-GPU host at once.
      - From 1 to 64; any other value is refused before a child starts.
    type: int
    default: 6
  gpu_lock:
    description:
      - File of the host's GPU lock. Each GPU child takes it shared after CUDA starts and before its first
        kernel, so M(blackwell.pytorch.torch_benchmark) (which takes it exclusively) never takes a figure while
        the check runs kernels. A child waits at most a quarter of O(timeout), then goes on (C(children[].phases)
        show C(gpu_lock_wait)).
      - Default C(/run/lock/blackwell-pytorch-gpu.lock) (the temporary directory where C(/run/lock) is missing).
        An empty string takes no lock. A symbolic link is refused (not followed).
    type: str
requirements:
  - PyTorch with CUDA in the environment of O(python); the module's own Python needs nothing beyond
    ansible-core's needs.
notes:
  - On the H100 test machine (torch 2.11.0+cu130) the whole check without C(torch.compile) took 13 to 17 s
    with O(parallel=4) and 38 s with O(parallel=1); with the GPU children started beside the facts child
    and O(parallel=6), 12.3 s through Ansible. The C(torch.compile) child takes 26 to 28 s more. See
    C(benchmarks/torch_cuda_check_time.py) and C(docs/modules/torch_cuda_check.md).
  - The native-SASS launch test needs NVRTC (C(libnvrtc.so)), which CUDA wheels of torch ship; without
    one it reads V(unavailable) and says where it looked.
seealso:
  - module: blackwell.pytorch.gpu_facts
"""

EXAMPLES = r"""
- name: Report what the venv's torch can run on this host's GPUs
  blackwell.pytorch.torch_cuda_check:
    python: /opt/torch/.venv/bin/python3
  register: torch_check

- name: Show each GPU's verdict
  ansible.builtin.debug:
    msg: "GPU {{ item.index }} {{ item.name }}: {{ item.kernel_image.verdict }} via {{ item.kernel_image.image }}"
  loop: "{{ torch_check.gpus }}"

- name: Require native kernels, flash attention and Triton on every GPU
  blackwell.pytorch.torch_cuda_check:
    python: /opt/torch/.venv/bin/python3
    min_verdict: native
    require: [native, native_sass_launch, flash_attention, triton]

- name: Include torch.compile, with a longer limit for a cold cache
  blackwell.pytorch.torch_cuda_check:
    python: /opt/torch/.venv/bin/python3
    torch_compile: true
    compile_timeout: 900
"""

RETURN = r"""
bytecode:
  description: The finding when the stack holds no bytecode and Python may not write it (see O(bytecode_cache_dir)); null otherwise.
  returned: always
  type: str
  sample: "torch in /opt/torch/.venv has no bytecode and PYTHONDONTWRITEBYTECODE is set: the checks keep theirs in ..."
python:
  description: The interpreter that was checked.
  returned: always
  type: str
  sample: /opt/torch/.venv/bin/python3
unmet:
  description: One message per requirement not met (the module fails when it is not empty).
  returned: always
  type: list
  elements: str
  sample: ["GPU 0 (NVIDIA GeForce RTX 5090, sm_120): min_verdict=native required, found none: torch 2.5.1+cu121
           has no sm_120 SASS and no PTX <= compute_120: install a cu128+ wheel"]
build:
  description: What the torch build is.
  returned: always
  type: dict
  contains:
    torch_version: {description: C(torch.__version__)., type: str, sample: 2.11.0+cu130}
    git_version: {description: C(torch.version.git_version)., type: str}
    cuda_runtime: {description: CUDA runtime torch was built with; null for a CPU build., type: str, sample: "13.0"}
    cudnn: {description: cuDNN version; null when none., type: str, sample: "9.15.1"}
    nccl:
      description: NCCL.
      type: dict
      contains:
        available: {description: C(torch.distributed.is_nccl_available())., type: bool}
        version: {description: NCCL version; null when none., type: str, sample: "2.28.9"}
    arch_list: {description: "C(torch.cuda.get_arch_list()) (the build's arch flags when CUDA is not usable).", type: list, elements: str}
    sass: {description: The C(sm_XY) entries (native SASS)., type: list, elements: str, sample: [sm_75, sm_80, sm_86, sm_90, sm_100, sm_120]}
    ptx: {description: The C(compute_XY) entries (PTX)., type: list, elements: str, sample: []}
    device_count: {description: GPUs torch sees., type: int}
companions:
  description: torchvision and torchaudio, each against torch's release line (docs/domain.md section 4).
  returned: always
  type: dict
  contains:
    torchvision:
      description: The same keys for C(torchaudio).
      type: dict
      contains:
        installed: {description: Installed version; null when not installed., type: str, sample: 0.26.0+cu130}
        import_ok: {description: Whether it imports., type: bool}
        import_error: {description: The import error; null when it imports., type: str}
        expected: {description: The version that belongs to torch; null when unknown., type: str, sample: 0.26.0}
        match: {description: True or false; null when not installed or torch's line is unknown., type: bool}
        reason: {description: One sentence., type: str}
cuda:
  description: Whether CUDA is usable from O(python).
  returned: always
  type: dict
  contains:
    available: {description: C(torch.cuda.is_available())., type: bool}
    reason: {description: Why not (the first line of C(torch.cuda.init())'s error); null when available., type: str}
gpus:
  description: One entry per GPU torch sees, in torch's device order.
  returned: always
  type: list
  elements: dict
  contains:
    index: {description: torch device index., type: int}
    name: {description: Device name., type: str, sample: NVIDIA H100 80GB HBM3}
    uuid: {description: "GPU UUID, NVML format.", type: str}
    pci_bus_id: {description: PCI bus id., type: str, sample: "0000:18:00.0"}
    memory_total_mib: {description: Memory in MiB., type: int}
    multi_processor_count: {description: SM count., type: int}
    compute_capability: {description: major.minor., type: str, sample: "9.0"}
    sm: {description: SASS architecture name., type: str, sample: sm_90}
    arch_family: {description: Architecture family., type: str, sample: Hopper}
    kernel_image:
      description: The verdict from the arch list.
      type: dict
      contains:
        verdict: {description: "V(native), V(ptx_jit) or V(none).", type: str}
        image: {description: The arch list entry that matched; null for none., type: str, sample: sm_90}
        exact: {description: The matched image is built for exactly this compute capability., type: bool}
        ptx_image: {description: The PTX this GPU can JIT-compile (what runs under C(CUDA_FORCE_PTX_JIT=1)); null when none., type: str}
        forward_compatible: {description: Plain PTX is present (runs on future GPUs after JIT)., type: bool}
        reason: {description: One sentence., type: str}
    runs:
      description: The op mix in three children, keys C(normal), C(disable_ptx_jit), C(force_ptx_jit).
      type: dict
      contains:
        normal:
          description: Each run has these keys.
          type: dict
          contains:
            status: {description: "V(ok), V(failed), V(timeout) or V(crashed).", type: str}
            error: {description: "C(Type: first line) of the error; null when ok.", type: str}
            failed_op: {description: "The step that failed (copy, elementwise, reduction, matmul).", type: str}
            seconds: {description: Seconds of the op mix (includes any JIT compilation)., type: float}
            child_seconds: {description: "Seconds of the whole child (interpreter, import, CUDA start).", type: float}
            env: {description: The JIT variable set for the run; null for the normal run., type: str}
            expected: {description: The outcome is what the arch list predicts., type: bool}
            note: {description: "Why, for example that a failed forced-JIT run on a build without PTX is expected.", type: str}
    native_sass_launch:
      description: The NVRTC-built kernel launched through the driver API under C(CUDA_DISABLE_PTX_JIT=1).
      type: dict
      contains:
        status: {description: "V(ok), V(failed), V(unavailable), or the child's V(timeout)/V(crashed).", type: str}
        error: {description: Why not ok; null when ok., type: str}
        result: {description: What was checked when ok., type: str}
        arch: {description: The arch the kernel was built for., type: str, sample: sm_90}
        ptx_jit_disabled: {description: C(CUDA_DISABLE_PTX_JIT=1) was in effect., type: bool}
        nvrtc: {description: Path of the libnvrtc used., type: str}
        nvrtc_version: {description: NVRTC version., type: str, sample: "13.0"}
        cubin_bytes: {description: Size of the SASS-only cubin., type: int}
        negative_control:
          description: >-
            The kernel built for an arch of another major: C(status) V(ok) when the driver refused it, with C(arch)
            and C(refused_with).
          type: dict
        seconds: {description: Seconds the test took., type: float}
    probes:
      description: >-
        Keys C(flash_attention), C(efficient_attention), C(cudnn_attention), C(math_attention), C(triton),
        C(bf16), C(fp8), C(torch_compile); each has C(status) (V(ok), V(failed), V(unavailable), V(skipped),
        or the child's V(timeout)/V(crashed)), C(error) or C(reason), and C(seconds) when it ran;
        numeric probes add C(relative_error), C(triton) its C(version).
      type: dict
children:
  description: Every child process, in start order.
  returned: always
  type: list
  elements: dict
  contains:
    name: {description: "V(facts), V(companions), V(normal), V(disable_ptx_jit), V(force_ptx_jit) or V(compile).", type: str}
    gpu: {description: The GPU index; null for facts and companions., type: int}
    status: {description: "V(ok), V(failed), V(timeout) or V(crashed) (the process, not what it tested).", type: str}
    seconds: {description: Wall-clock seconds of the process., type: float}
    error: {description: Why the process did not end well; null when it did., type: str}
    phases: {description: "Seconds of its phases (C(import_torch), C(cuda_init), C(ops), C(probes), ...).", type: dict}
    stderr_tail: {description: "The end of its stderr, only when its status is not V(ok).", type: str}
seconds:
  description: Seconds the whole check took.
  returned: always
  type: float
"""

import os
import sys

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common import bytecode
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.gpu_lock import default_path as default_lock_path
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.policy import REQUIREMENTS, unmet
from ansible_collections.blackwell.pytorch.plugins.module_utils.torch_cuda_check.run import (
    DEFAULT_COMPILE_TIMEOUT, DEFAULT_PARALLEL, DEFAULT_TIMEOUT, option_errors, run_check)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            python=dict(type="path"),
            require=dict(type="list", elements="str", default=[], choices=list(REQUIREMENTS)),
            min_verdict=dict(type="str", choices=["native", "ptx_jit"]),
            torch_compile=dict(type="bool", default=False),
            timeout=dict(type="int", default=DEFAULT_TIMEOUT),
            compile_timeout=dict(type="int", default=DEFAULT_COMPILE_TIMEOUT),
            parallel=dict(type="int", default=DEFAULT_PARALLEL),
            gpu_lock=dict(type="str"),
            bytecode_cache_dir=dict(type="path"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    errors = option_errors(params["timeout"], params["compile_timeout"], params["parallel"])
    if errors:
        module.fail_json(msg="; ".join(errors), changed=False)
    python = params["python"] or sys.executable
    # the children inherit this process's environment: a cache for a stack without bytecode (common/bytecode.py)
    finding = bytecode.apply(os.environ, python, params["bytecode_cache_dir"])
    if finding:
        module.warn(finding)
    report = run_check(python, timeout=params["timeout"], compile_timeout=params["compile_timeout"],
                       torch_compile=params["torch_compile"] or "torch_compile" in params["require"],
                       parallel=params["parallel"],
                       gpu_lock=default_lock_path() if params["gpu_lock"] is None else params["gpu_lock"] or None)
    report["bytecode"] = finding
    error = report.pop("error")
    if error:
        module.fail_json(msg=error, **report)
    for gpu in report["gpus"]:
        for mode, run in sorted(gpu["runs"].items()):
            if not run["expected"]:
                module.warn("GPU %s %s run: %s" % (gpu["index"], mode, run["note"]))
    failures = unmet(report, params["require"], params["min_verdict"])
    if failures:
        module.fail_json(msg=" | ".join(failures), changed=False, unmet=failures, **report)
    module.exit_json(changed=False, unmet=[], **report)


if __name__ == "__main__":
    main()
