# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment(object):
    # The questions the preflight_facts module answers in its own call beside its reading of the host: the GPUs'
    # health, the tools venv, and the stages of site.yml (plugins/module_utils/stages/registry.py).
    DOCUMENTATION = r"""
options:
  health:
    description:
      - Also read the GPUs' health as M(blackwell.pytorch.gpu_health) reads it, in the NVML session of the GPU facts,
        and the current text of the health textfile (RV(health)), when this Python (or the tools venv, O(tools)) gives
        C(nvidia-ml-py); omitted, none is read.
    type: dict
    version_added: 0.5.0
    suboptions:
      kernel_log: {description: "Where the Xid errors are read (gpu_health's option).", type: str, choices: [auto, journal, kmsg, never], default: auto}
      textfile_dir: {description: "Directory whose C(blackwell_pytorch_health.prom) is read; empty for none.", type: path, default: ""}
  tools:
    description:
      - The tools venv the C(blackwell.pytorch.tools) role keeps, and the requirements it must hold; RV(tools) says
        whether it holds them, read from its files (no process is started). Omitted, nothing is read.
      - When this Python does not import C(nvidia-ml-py) and the venv holds it at its pin, C(pynvml) is imported from
        the venv's site-packages (pure Python), so the GPU facts (and O(health)) come from NVML.
    type: dict
    version_added: 0.5.0
    suboptions:
      venv: {description: "The venv's path (the tools role's C(blackwell_tools_venv)).", type: path, required: true}
      base_python:
        description:
          - The interpreter that makes the venv (the tools role's C(blackwell_tools_base_python)); refused (RV(refused))
            when relative or a directory. Empty, not checked.
        type: str
        default: ""
        version_added: 0.6.0
      wheelhouse:
        description:
          - The wheelhouse the venv is filled from (the tools role's C(blackwell_tools_wheelhouse)); refused when
            relative or a file. The venv's path is refused the same way.
        type: str
        default: ""
        version_added: 0.6.0
      requirements:
        description: "The requirements it must hold, as the tools role installs them (C(nvidia-ml-py==13.615.71), C(uv==0.13.9))."
        type: list
        elements: str
        required: true
  driver:
    description:
      - The driver stage's question in this call (site.yml sets it from the nvidia_driver role's settings) - the
        options of M(blackwell.pytorch.nvidia_driver_state) but C(host), C(gpus), C(loaded) and C(preflight), which
        are this probe's own. RV(driver) is that module's result, its refusals added to RV(refused). Omitted, nothing
        is asked.
    type: dict
    version_added: 0.5.0
  toolkit:
    description:
      - The toolkit stage's question in this call (site.yml sets it from the cuda_toolkit role's settings) - the
        options of M(blackwell.pytorch.cuda_toolkit_state) but C(host), C(gpus), C(user), C(os_family) and
        C(driver_cuda), which are this probe's own; C(driver) is C(cuda_toolkit_driver_version) (empty for the driver
        RV(driver) leaves in place, else the loaded one). Answered only when O(driver) is omitted or answers that the
        driver stays as it is; RV(toolkit) is then that module's result, its refusal added to RV(refused).
    type: dict
    version_added: 0.5.0
  pytorch:
    description:
      - The PyTorch stage's question in this call (site.yml sets it from the pytorch role's settings) - the options of
        M(blackwell.pytorch.pytorch_plan) but C(host) and C(user), which are this probe's own; C(gpus) and
        C(driver_cuda) left out or null are this probe's GPUs and its loaded driver's CUDA version.
      - Answered only when nothing the play runs before that stage changes its inputs - O(driver) and O(toolkit), when
        given, answer that their stages stay as they are, the venv of O(tools) holds its pins when the stack's
        installer is its C(uv), and C(gpus) and C(driver_cuda) are set or the GPU facts came from NVML (or no driver
        is loaded); else RV(waits) says why.
      - RV(pytorch) is then that module's result, its refusal (C(msg)) added to RV(refused).
    type: dict
    version_added: 0.5.0
"""
