#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: pytorch_plan
short_description: Check a host's inputs for a PyTorch stack and plan the stack, changing nothing
version_added: 0.2.0
description:
  - The pytorch role's preflight in one call. Refuses an interpreter O(python) older than Python 3.10, an
    O(wheelhouse) that is not a directory and an O(constraints_file) or O(hashes_file) that is not a file.
  - For O(method=source) and O(method=auto) runs C(<cuda_home>/bin/nvcc --version); its CUDA release decides
    the channel of a source build's companions (no toolkit there refuses a source build).
  - Plans the stack (torch, channel, companions, exact pins, stack name, predicted verdicts per GPU) from the
    index pip will read, for the interpreter's CPython and this host's machine, O(wheelhouse) when set (pip
    gets C(--no-index)), else O(index), else C(<channel_base>/<channel>) with the channel of the version
    table's plan (one build per channel index; the index confirms the version and its companions). A
    source build, or no index given, plans from the collection's version matrix. An index that cannot be
    read is a refusal unless O(offline_fallback).
  - Without O(version), plans the newest torch for which the index has every companion of O(companions), passing
    over a newer torch without them; a torch without a companion only when O(version) names it, or O(companions)
    leaves it out. Each warning of the plan (a newer torch passed over, a companion left out, the version table
    standing in for an unreadable index, a GPU of unknown compute capability) is a warning of this module, not a
    clause of RV(summary).
  - With O(installer=uv), refuses an O(uv) that is not an executable file.
  - Refuses a plan that cannot work, or a source plan whose O(build_host) is not among O(play_hosts).
    Every refusal is the message the role reports.
  - Refuses, before planning, a O(keep) below 1, a run without root (O(user)), a O(version), O(channel),
    O(torchvision) or O(torchaudio) given as a number (YAML reads an unquoted 2.10 as 2.1; quote it), an O(index),
    O(channel_base), O(extra_indexes) or O(proxy) that is no URL, and a path option that is relative or of the
    wrong kind (a file where a directory is due, a directory where a file is due, a path below a file; O(paths)
    too); these refusals come back in RV(refusals) and, joined by spaces, in RV(msg) (the module does not fail;
    the role fails this call on them).
  - Answers whether the stage is already as asked (RV(converged)), from files only - C(current) under O(root)
    points to the planned stack (or the auto plan's source fallback, or the environment O(adopt_path) adopted),
    its marker records the plan and its packages have the planned versions, its torch_cuda_check result
    O(check_results) is stored, passed and its stack fingerprint is unchanged (the verify run's settings left
    out), the file O(profile_path) has the text RV(profile_content), mode 0644 and owner root, and no stack is
    beyond O(keep). The role then skips its change path.
  - With O(adopt_path) nothing is planned (no interpreter, file or index is read); only the refusals and
    RV(converged) are answered.
  - Only reads, so it runs in check mode as in a real run.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
  - blackwell.pytorch.index_access
  - blackwell.pytorch.stack_state
options:
  python:
    description: Interpreter that creates the venvs; it must be Python 3.10 or newer.
    type: path
    required: true
  version:
    description:
      - torch release (V(2.9.1), V(2.9) for the newest patch, V(2.9.1+cu128)); empty for the default choice.
      - Text; a number (YAML's unquoted 2.10 is the number 2.1) is refused.
    type: raw
    default: ""
  channel:
    description: CUDA channel (V(cu128), ...); empty to take it from O(version) or the default choice. Text, as O(version).
    type: raw
    default: ""
  torchvision:
    description: Explicit torchvision version; empty follows torch. Text, as O(version).
    type: raw
    default: ""
  torchaudio:
    description: Explicit torchaudio version; empty follows torch. Text, as O(version).
    type: raw
    default: ""
  companions:
    description: Companions installed with torch.
    type: list
    elements: str
    choices: [torchvision, torchaudio]
    default: [torchvision, torchaudio]
  gpus:
    description: GPUs to plan for, in the shape of C(ansible_facts.nvidia_gpus).
    type: list
    elements: dict
    default: []
  driver_cuda:
    description: CUDA version the driver supports (V(13.0)); empty when unknown.
    type: str
    default: ""
  method:
    description: V(wheel), V(source), or V(auto) (wheels; a source build when they have no kernel for some GPU).
    type: str
    choices: [wheel, source, auto]
    default: wheel
  local_label:
    description: Pin with the channel's local label (C(torch==2.9.1+cu128)).
    type: bool
    default: true
  cuda_home:
    description: The toolkit a source build uses.
    type: path
    default: /usr/local/cuda
  wheelhouse:
    description: A directory of wheels pip installs from; it must exist. Empty for none.
    type: path
    default: ""
  constraints_file:
    description: A pip constraints file; it must exist. Empty for none.
    type: path
    default: ""
  hashes_file:
    description: >-
      A requirements file with C(--hash) lines; it must exist and pin exactly the planned versions (else a
      refusal names the lacking pins), and its text is returned. Empty for none.
    type: path
    default: ""
  built_wheelhouse:
    description:
      - The directory where source builds leave their wheels (C(<pytorch_root>/wheelhouse)). A source plan whose
        C(build_version) has a wheel there gets its name as C(built_wheel), and the role builds nothing.
    type: path
    default: ""
    version_added: 0.3.0
  host:
    description: This host's inventory name (refusals name it; it builds when it is O(build_host)).
    type: str
    required: true
  build_host:
    description: The host that builds torch for the play (source builds); empty when every host builds.
    type: str
    default: ""
  play_hosts:
    description: The play's hosts; O(build_host) must be one of them for a source plan.
    type: list
    elements: str
    default: []
  installer:
    description:
      - What will install the stack (C(pytorch_installer)). V(uv) refuses, before anything changes, an O(uv) that is
        not an executable file on the host, naming C(pytorch_installer=pip) as the other way.
    type: str
    choices: [uv, pip]
    default: pip
    version_added: 0.4.0
  uv:
    description: The uv executable the stack's install runs (C(pytorch_uv)); only looked at with O(installer=uv).
    type: path
    default: ""
    version_added: 0.4.0
  uv_pending:
    description:
      - In a check run, the uv executable that the tools role of the same play would install before this stage
        (C(blackwell_tools_uv_pending)). When it is O(uv), a uv that is not there yet is no refusal; empty otherwise.
    type: path
    default: ""
    version_added: 0.6.0
  paths:
    description:
      - The role's other directory options, a dict of variable name to path (C(pytorch_uv_cache_dir),
        C(pytorch_pip_cache_dir), C(pytorch_source_dir)); one that is relative, a file, or below a file is refused,
        naming the variable. An empty path is not checked.
    type: dict
    default: {}
    version_added: 0.6.0
"""

EXAMPLES = r"""
- name: Check and plan the stack
  blackwell.pytorch.pytorch_plan:
    python: /usr/bin/python3
    version: "2.9.1"
    channel: cu128
    gpus: "{{ ansible_facts['nvidia_gpus'] }}"
    driver_cuda: "13.0"
    host: "{{ inventory_hostname }}"
  register: planned

- name: Report it
  ansible.builtin.debug:
    msg: "{{ planned.summary }}"
"""

RETURN = r"""
plan:
  description: >-
    The plan (torch, channel, cuda, companions, pins, expected, stack, method, build_version, verdicts, reason,
    warnings (also given as the module's warnings); a source plan also built_wheel, the wheel in
    O(built_wheelhouse) an earlier run built, or "").
  returned: success
  type: dict
  sample: {stack: torch-2.9.1-cu128, method: wheel, pins: [torch==2.9.1+cu128, torchaudio==2.9.1+cu128]}
summary:
  description: The plan in one line.
  returned: success
  type: str
  sample: >-
    torch-2.9.1-cu128 (wheel): torch==2.9.1+cu128 ...; predicted: GPU 0 (...) native;
    planned from index https://download.pytorch.org/whl/cu128 (3 requests, 0.52 s)
fallback:
  description: For O(method=auto) and a wheel plan, the source plan of the same release (its C(error) set when it cannot work); else null.
  returned: success
  type: dict
builds:
  description: Whether this host builds (no O(build_host), or this host is it).
  returned: success
  type: bool
toolkit_cuda:
  description: The CUDA release of C(<cuda_home>/bin/nvcc) (null when it was not asked or is not there).
  returned: success
  type: str
  sample: "12.8"
python_version:
  description: The release of O(python).
  returned: success
  type: str
  sample: "3.12"
hashes_text:
  description: The text of O(hashes_file) ("" without one); it pins the plan's versions (checked here).
  returned: success
  type: str
refusals:
  description: >-
    The refusals of the request itself (O(keep), O(user), the inputs' types, URLs and paths), each a message
    naming its variable; empty when the request can run.
  returned: always
  type: list
  elements: str
msg:
  description: The refusals joined by spaces, the message the role fails with (only when RV(refusals) is not empty).
  returned: when refused
  type: str
converged:
  description: Whether the stage is already as asked (nothing to install, check, switch, write or prune).
  returned: always
  type: bool
standing:
  description: What is in the way of RV(converged), or that nothing is, in one line.
  returned: always
  type: str
  sample: "to change: current is not there, not venvs/torch-2.9.1-cu128"
profile_content:
  description:
    - The text of O(profile_path) (the stack under C(current) and O(cuda_module_loading), O(cuda_alloc_conf),
      O(allow_tf32)), which the role writes; "" without O(profile_path).
  returned: when O(root) is given and nothing is refused
  type: str
stack:
  description: The stack compared with C(current) (the one that stands on a host already as asked); "" for none.
  returned: when O(root) is given and nothing is refused
  type: str
  sample: torch-2.9.1-cu128
check:
  description: The stored torch_cuda_check result of the current stack when it stands (RV(converged)), else null.
  returned: always
  type: dict
cuda_check:
  description: >-
    On a host already as asked, the fact the private C(_common) role's cuda_check entry point would publish
    (C(blackwell_cuda_check): the stored result, the stack's fingerprint, the stored C(verify.json) against it, the
    GPU models), which the role publishes so that the verify role takes no fingerprint of its own; else null.
  returned: always
  type: dict
check_mode:
  description: Whether this ran in check mode (a role included with C(apply) cannot see that otherwise).
  returned: always
  type: bool
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.program_run import runner
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.errors import PlanError
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.plan_call import answer, secrets
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.pytorch import OPTIONS


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    module.no_log_values.update(secrets(module.params))
    try:
        result = answer(module.params, runner(module.get_bin_path, module.run_command), module.warn,
                        module.check_mode)
    except PlanError as exc:  # the request cannot be planned: what was answered before comes back with the message
        module.fail_json(msg=str(exc), **(exc.result or {}))
    module.exit_json(**result)


if __name__ == "__main__":
    main()
