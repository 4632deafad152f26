#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_processes
short_description: Find other users' compute processes on the GPUs, waiting a bounded time for them to end
version_added: 0.5.0
description:
  - Lists, per NVIDIA GPU through NVML, the compute processes (process id and GPU memory) and the GPU's
    utilisation, and names each process from C(/proc) (its real user from C(status), its command from
    C(cmdline), else C(comm)).
  - A process is the collection's own (counted in RV(ours), not listed) when it is this module's process or
    one of its ancestors, or when its environment holds C(BLACKWELL_PYTORCH_CHILD=), which every child process
    the collection starts carries (the torch_cuda_check and torch_benchmark children, and what they start).
    A process whose environment cannot be read counts as foreign.
  - With O(wait), reads again every few seconds until no foreign process remains or O(wait) seconds have gone by.
    In check mode it reads once and does not wait.
  - Without NVML (no nvidia-ml-py for the module's Python, no driver loaded, a driver library that no longer
    matches the loaded kernel module) it lists the processes that hold C(/dev/nvidia-uvm) open (CUDA's
    device; display servers and nvidia-persistenced do not open it), without memory or utilisation, and says so
    in RV(note); with no driver loaded nothing holds it and RV(busy) is false. It never fails for want of NVML.
  - Changes nothing. The verify role calls it before its check and benchmark (C(verify_busy)), the rollout before
    any change on a host (C(rollout_busy)), the nvidia_driver role before it reboots (C(nvidia_driver_reboot_busy)).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  wait:
    description:
      - Seconds to wait for the foreign processes to end, reading again every 5 seconds; V(0) reads once.
    type: float
    default: 0
  gpus:
    description:
      - The GPUs to look at (NVML indices; device minor numbers when NVML cannot be read); empty for all.
    type: list
    elements: int
    default: []
requirements:
  - nvidia-ml-py (the C(pynvml) module) for NVML's list; without it only the processes holding C(/dev/nvidia-uvm)
    are found.
notes:
  - Run it with the interpreter of the C(blackwell.pytorch.tools) role (C(blackwell_tools_python)), which has
    nvidia-ml-py, and as root (C(become)), since the environment and open files of another user's process are readable
    to root only, and an unreadable environment makes a process foreign.
"""

EXAMPLES = r"""
- name: Wait up to a minute for other users' jobs on the GPUs
  blackwell.pytorch.gpu_processes:
    wait: 60
  vars:
    ansible_python_interpreter: "{{ blackwell_tools_python }}"
  register: gpu_processes

- name: Say who is computing
  ansible.builtin.debug:
    msg: "{{ gpu_processes.text }}"
  when: gpu_processes.busy
"""

RETURN = r"""
busy:
  description: Whether foreign processes remain on the GPUs after the wait.
  returned: always
  type: bool
processes:
  description: The foreign processes of the last reading, one entry per GPU a process computes on.
  returned: always
  type: list
  elements: dict
  contains:
    gpu: {description: "NVML index of the GPU (null when NVML could not be read).", type: int, sample: 0}
    gpu_name: {description: The GPU's model., type: str, sample: NVIDIA H200}
    pid: {description: The process id., type: int, sample: 4242}
    user: {description: "Its real user's name (the uid when the name is unknown).", type: str, sample: alice}
    command: {description: "The basename of its command's first word.", type: str, sample: python3}
    memory_mib: {description: "GPU memory it uses, MiB (null when NVML does not say).", type: int, sample: 20582}
    device: {description: "The device it holds, only when NVML could not be read.", type: str, sample: /dev/nvidia0}
ours:
  description: How many listed entries are the collection's own processes (not in RV(processes)).
  returned: always
  type: int
utilization:
  description: Each GPU's utilisation when last read (empty without NVML).
  returned: always
  type: list
  elements: dict
  contains:
    gpu: {description: NVML index., type: int}
    gpu_name: {description: The GPU's model., type: str}
    percent: {description: "GPU utilisation in percent (null when NVML does not give it).", type: int}
waited_s:
  description: Seconds between the first and the last reading.
  returned: always
  type: float
ended:
  description: Foreign processes an earlier reading of the wait listed that have ended since.
  returned: always
  type: list
  elements: int
text:
  description: The foreign processes in one line; empty when there are none.
  returned: always
  type: str
  sample: "busy: GPU 0 pid 4242 (python3, user alice, 20.1 GiB)"
source:
  description: "V(nvml), or V(devices) when the processes holding C(/dev/nvidia-uvm) were read instead."
  returned: always
  type: str
note:
  description: Why NVML was not read, when it was not; else null.
  returned: always
  type: str
"""

import os
import time

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import gpu_processes

try:
    import pynvml
except ImportError:
    pynvml = None

PROC = "/proc"
POLL_S = 5.0


def watch(wait, gpus):
    """decide()'s verdict after reading until no foreign process remains or `wait` seconds went by, with the last
    reading's `ours`, `utilization`, `source` and `note`."""
    why_not = gpu_processes.start(pynvml)
    mode = "wait" if wait > 0 else "defer"
    readings, began = [], time.monotonic()
    try:
        while True:
            at = time.monotonic() - began  # when this reading began: the first is at 0 (a read is no wait)
            reading = gpu_processes.take_reading(pynvml, why_not, PROC, os.getpid(), gpus)
            readings.append((at, reading))
            verdict = gpu_processes.decide(mode, readings, wait)
            if verdict["action"] != "poll":
                break
            time.sleep(max(min(POLL_S, wait - readings[-1][0]), 0))
    finally:
        if why_not is None:
            try:
                pynvml.nvmlShutdown()
            except pynvml.NVMLError:
                pass
    return dict(verdict, ours=reading["ours"], utilization=reading["utilization"], source=reading["source"],
                note=reading["note"])


def main():
    module = AnsibleModule(
        argument_spec=dict(wait=dict(type="float", default=0), gpus=dict(type="list", elements="int", default=[])),
        supports_check_mode=True,
    )
    verdict = watch(0.0 if module.check_mode else max(module.params["wait"], 0.0), module.params["gpus"])
    verdict.pop("action")
    module.exit_json(changed=False, **verdict)


if __name__ == "__main__":
    main()
