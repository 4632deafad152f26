#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: cuda_toolkit_state
short_description: Plan CUDA toolkits against the driver and the GPUs, and tell whether the host already has them
version_added: 0.4.0
description:
  - The cuda_toolkit role's preflight and verification in one call, changing nothing (also in check mode).
  - Lists the installed C(cuda-toolkit-X-Y) packages, asks every C(nvcc) under C(/usr/local) (C(/usr/local/cuda),
    C(/usr/local/cuda-X.Y), whatever installed them) for its release and each requested toolkit's C(nvcc) for its
    GPU architectures (C(--list-gpu-arch)), reads the C(cuda) alternative (or the plain C(/usr/local/cuda) link where
    the OS has no alternatives system) and C(/etc/profile.d/cuda.sh).
  - Plans the toolkits (the C(blackwell.pytorch.cuda_toolkit_plan) filter's plan) and refuses, with every reason in
    one message, a toolkit the driver cannot run or that cannot target a GPU here, a plan that changes the host
    without root, a C(/usr/local/cuda) that is a real directory when the toolkits are managed, and an nvcc that is
    missing, reports another release or lacks a GPU's C(compute_XY) (unless this run installs that toolkit).
  - Returns what a run would change (packages, the alternative, the link, profile.d), whether the host is
    converged, and the toolkits' state as the role publishes it (C(cuda_toolkit_status)).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  versions:
    description:
      - Requested toolkits as C(X.Y) (C(cuda_toolkit_versions)); empty chooses one from O(driver). Text instead of a
        list is refused with a message naming the variable, and so is a number in it (YAML reads an unquoted 12.10
        as 12.1; quote it).
    type: raw
    default: []
  default_version:
    description: The toolkit C(/usr/local/cuda) points at; empty is the newest requested. A number is refused, as in O(versions).
    type: raw
    default: ""
  driver:
    description:
      - The driver version the toolkits will run on.
      - Omitted or empty, the loaded driver's (C(/proc/driver/nvidia/version)); none loaded, the driver gate is
        skipped with a warning.
    type: str
  driver_cuda:
    description: NVML's CUDA driver version (V(13.0)) of that driver; empty takes it from the table.
    type: str
    default: ""
  gpus:
    description:
      - The GPUs, in the shape of C(ansible_facts.nvidia_gpus).
      - Omitted, the NVIDIA GPUs on the PCI bus (sysfs, no driver needed), as the role alone before the collection's
        preflight has run.
    type: list
    elements: dict
  minor_version_compat:
    description: Accept a toolkit newer than the driver's CUDA under minor-version compatibility.
    type: bool
    default: false
  manage:
    description: V(auto), V(true) or V(false), as C(cuda_toolkit_manage).
    type: raw
    default: auto
  user:
    description:
      - The user the play runs as (C(blackwell_preflight.user), C(uid) and C(name)); a managing plan needs uid 0.
      - Empty reads the user the module runs as.
    type: dict
    default: {}
  os_family:
    description:
      - The OS family (C(blackwell_preflight.os.family)); it picks the package query and the alternatives system.
      - Empty takes V(Debian) where C(dpkg-query) is, else V(RedHat) where C(rpm) is.
    type: str
    choices: ["", Debian, RedHat]
    default: ""
  profile:
    description: Whether C(/etc/profile.d/cuda.sh) is managed (C(cuda_toolkit_profile)).
    type: bool
    default: true
  profile_ld_library_path:
    description: Whether that file also puts C(/usr/local/cuda/lib64) on LD_LIBRARY_PATH.
    type: bool
    default: false
  confirm:
    description:
      - After the changes, anything still different is a refusal (a toolkit's nvcc missing, C(/usr/local/cuda)
        leading elsewhere, profile.d not written), and no plan warning is repeated.
    type: bool
    default: false
  host:
    description: This host's inventory name; a refusal begins with it.
    type: str
    required: true
  paths:
    description:
      - The role's file options, a dict of variable name to path (C(cuda_toolkit_install_log)); one that is
        relative, a directory or below a file is refused before the host is read, naming the variable. An empty path
        is not checked.
    type: dict
    default: {}
    version_added: 0.6.0
notes:
  - Each nvcc binary is run once per question however many links lead to it.
seealso:
  - module: blackwell.pytorch.gpu_facts
"""

EXAMPLES = r"""
- name: Plan the toolkits and read the host
  blackwell.pytorch.cuda_toolkit_state:
    versions: ["12.8", "13.0"]
    default_version: "12.8"
    driver: 580.95.05
    gpus: "{{ ansible_facts['nvidia_gpus'] }}"
    host: "{{ inventory_hostname }}"
  register: toolkits

- name: Say what a run would change
  ansible.builtin.debug:
    msg: "{{ toolkits.would }}"
  when: not toolkits.converged
"""

RETURN = r"""
converged:
  description: Nothing to install or point, profile.d as wanted, every requested nvcc answering as it should.
  returned: success
  type: bool
changes:
  description: What a run changes.
  returned: always
  type: dict
  contains:
    install: {description: Toolkit versions to install., type: list, elements: str, sample: ["12.8"]}
    packages: {description: Their packages., type: list, elements: str, sample: [cuda-toolkit-12-8]}
    register: {description: The default toolkit is to be registered as a C(cuda) alternative., type: bool}
    select: {description: The C(cuda) alternative is to be set to the default (manual mode)., type: bool}
    link: {description: The plain C(/usr/local/cuda) link is to be pointed at the default (no alternatives system)., type: bool}
    profile: {description: C(/etc/profile.d/cuda.sh) is to be written., type: bool}
would:
  description: The same changes in words.
  returned: always
  type: list
  elements: str
  sample: ["install cuda-toolkit-12-8", "write /etc/profile.d/cuda.sh"]
configure:
  description: What the changes write (empty when refused).
  returned: always
  type: dict
  contains:
    dir: {description: The default toolkit's directory., type: str, sample: /usr/local/cuda-12.8}
    priority: {description: Its alternatives priority., type: int, sample: 128}
    profile: {description: The content of C(/etc/profile.d/cuda.sh)., type: str}
ok:
  description: No refusal.
  returned: always
  type: bool
problems:
  description: Every refusal (the message joins them).
  returned: always
  type: list
  elements: str
plan:
  description: The plan (the C(blackwell.pytorch.cuda_toolkit_plan) filter's result).
  returned: always
  type: dict
summary:
  description: One line on the toolkits, the link, what changes and each nvcc.
  returned: always
  type: str
action:
  description: V(manage), V(adopt) (toolkits found answering, nothing touched) or V(check).
  returned: always
  type: str
versions:
  description: The requested (or chosen) toolkits.
  returned: always
  type: list
  elements: str
default:
  description: The toolkit C(/usr/local/cuda) points at.
  returned: always
  type: str
dirs:
  description: Each toolkit's directory.
  returned: always
  type: dict
  sample: {"12.8": /usr/local/cuda-12.8}
installed:
  description: The toolkits a run installs.
  returned: always
  type: list
  elements: str
adopted:
  description: The toolkits found answering and left where they are.
  returned: always
  type: dict
driver:
  description: The driver version the gate used.
  returned: always
  type: str
nvcc:
  description: Per toolkit, its nvcc's answers.
  returned: always
  type: dict
  sample:
    "12.8": {ok: true, release: "12.8", full: 12.8.93, archs: [compute_120], lacking: [], missing: false,
             path: /usr/local/cuda-12.8/bin/nvcc, msg: nvcc 12.8.93 targets compute_120}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.toolkit_call import ToolkitCallError, answer
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.toolkit import OPTIONS

ROOT = ""  # every path read is under it (the tests' directory; "" on a host)
SYS_ROOT = "/sys"
PROC_VERSION = "/proc/driver/nvidia/version"


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)

    def run(argv):
        return module.run_command(argv, environ_update={"LC_ALL": "C"})

    try:
        state = answer(module.params, run, lambda name: module.get_bin_path(name) is not None, module.warn,
                       ROOT, SYS_ROOT, PROC_VERSION)
    except ToolkitCallError as exc:
        module.fail_json(msg=str(exc))
    if not state["ok"]:
        module.fail_json(**state)
    module.exit_json(changed=False, **state)


if __name__ == "__main__":
    main()
