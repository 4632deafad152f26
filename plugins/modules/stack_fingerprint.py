#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: stack_fingerprint
short_description: Fingerprint a PyTorch stack and say whether a stored verification result still holds
version_added: 0.2.0
description:
  - "Reads, from files only, what a verification result depends on: the loaded NVIDIA driver's version,
    the CUDA toolkit's version (C(version.json) under O(cuda_home)), the torch build and the installed-package
    set of the environment of O(python) and the GPUs' UUIDs (C(/proc/driver/nvidia/gpus)); with them O(code), the
    digest of the verification code, and O(settings), what the run is asked for. Nothing is imported or run, so it
    takes milliseconds."
  - O(collection_version) is kept in the fingerprint for display and is not compared (a version can stay the same
    across changes of the code; O(code) cannot).
  - Loads the stored result O(results) (a missing, unreadable or damaged file counts as absent) and returns
    RV(reuse=true) when its fingerprint equals the current one and it passed, unless O(force).
  - A stored file that is not JSON, or JSON without the shape its readers use (a C(benchmark) that is text), is
    not used; RV(reason) says which file and why, and a warning says it is made again.
  - With O(output_dirs), first checks that results can be written where they will go and fails, before anything
    else, naming the variable, the path and what is wrong.
  - With O(refusals), fails with them first, before the output directories are checked or anything is read (the
    verify role's request checks and the gates that cannot fire, decided on the controller, need no task of their own).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  python:
    description: The stack's interpreter (C(bin/python) of its venv).
    type: path
    required: true
  cuda_home:
    description: Where the CUDA toolkit lives; no toolkit there gives C(cuda_toolkit=null).
    type: path
    default: /usr/local/cuda
  collection_version:
    description: The version of this collection that ran the verification (recorded, not compared).
    type: str
    default: ""
  code:
    description:
      - Digest of the code that produces and judges the result (the verify role passes the
        C(blackwell.pytorch.verify_code) lookup's C(digest)); part of the fingerprint.
    type: str
    default: ""
    version_added: 0.3.0
  settings:
    description:
      - What the run is asked for (the verify role passes profile, tests, sizes, gates and forbidden clock
        reasons); part of the fingerprint, compared as a whole.
    type: dict
    default: {}
    version_added: 0.3.0
  output_dirs:
    description:
      - Directories results will be written to, variable name -> path (an empty path is not checked). Each must
        be a directory the module's user can write to, or not exist yet below a writable directory; a file, a
        file among its parents or a directory the user cannot write fails the module before anything is read,
        and so does a result file due there that is a directory (C(verify.json), C(cuda_check.json), the
        Prometheus textfiles).
    type: dict
    default: {}
    version_added: 0.3.0
  input_paths:
    description:
      - The role's path inputs, variable name -> path (an empty path is not checked), refused before the output
        directories or anything is read when relative or of the wrong kind, naming the variable and the
        command-line form to give. C(verify_python) must be a file (the interpreter), C(verify_cuda_home) and any
        other name a directory.
    type: dict
    default: {}
    version_added: 0.6.0
  results:
    description: The stored result document (JSON, schema C(blackwell.pytorch.verify/1)).
    type: path
    required: true
  force:
    description: Never reuse the stored result.
    type: bool
    default: false
  refusals:
    description:
      - Refusals of the request decided by the caller, each a message naming its variable; any fails the module
        at once with them joined by C(; ) (RV(refusals)). Empty for none.
    type: list
    elements: str
    default: []
    version_added: 0.4.0
  also:
    description:
      - More stored result documents decided against the same fingerprint, returned in RV(also) in
        order. One call then serves several results of one stack (the C(blackwell.pytorch.pytorch)
        role's gate decides C(cuda_check.json) and C(verify.json) together).
    type: list
    elements: path
    default: []
    version_added: 0.3.0
"""

EXAMPLES = r"""
- name: Is the stored verification still valid?
  blackwell.pytorch.stack_fingerprint:
    python: /opt/pytorch/current/bin/python
    results: /var/lib/blackwell-pytorch/verify.json
    collection_version: 0.3.0
    code: "{{ (query('blackwell.pytorch.verify_code') | first).digest }}"
    settings: {profile: quick}
    output_dirs:
      verify_results_dir: /var/lib/blackwell-pytorch
  register: fingerprint
"""

RETURN = r"""
fingerprint:
  description: The current fingerprint.
  returned: always
  type: dict
  contains:
    driver_version: {description: Loaded kernel module version (null without a driver)., type: str, sample: 580.159.04}
    cuda_toolkit: {description: CUDA toolkit version (null without one)., type: str, sample: 13.0.2}
    torch: {description: "C(version), C(cuda), C(git_version) of torch (null without torch).", type: dict}
    packages: {description: "Sorted C(name==version) of the environment's distributions.", type: list, elements: str}
    gpu_uuids: {description: Sorted GPU UUIDs., type: list, elements: str}
    code: {description: O(code)., type: str}
    settings: {description: O(settings)., type: dict}
    collection_version: {description: "O(collection_version) (recorded, not compared).", type: str}
    digest: {description: sha256 over the compared components., type: str}
stored:
  description: The stored document (null when absent or damaged).
  returned: always
  type: dict
reuse:
  description: Whether the stored result can stand for a new run.
  returned: always
  type: bool
reason:
  description: Why it can or cannot.
  returned: always
  type: str
  sample: "fingerprint changed: torch, packages"
changed_components:
  description: Components that differ from the stored fingerprint (all when nothing is stored).
  returned: always
  type: list
  elements: str
also:
  description: For each of O(also), in order, the same keys decided against that document.
  returned: always
  type: list
  elements: dict
  contains:
    results: {description: The document's path., type: str}
    stored: {description: The stored document (null when absent or damaged)., type: dict}
    reuse: {description: Whether it can stand for a new run., type: bool}
    reason: {description: Why it can or cannot., type: str}
    changed_components: {description: Components that differ., type: list, elements: str}
refusals:
  description: O(refusals), when the module failed with them.
  returned: failure
  type: list
  elements: str
  sample: ["verify_gates: gate on sustained can never fire: profile quick does not run sustained"]
input_path_problems:
  description: One message per path of O(input_paths) that cannot be used (relative, of the wrong kind).
  returned: failure
  type: list
  elements: str
  sample: ["verify_cuda_home /usr/local/cuda is a file, not a directory: give a directory (or a path that is not there
            yet), e.g. -e verify_cuda_home=/usr/local/cuda."]
output_dir_problems:
  description: One message per directory of O(output_dirs) that cannot take results.
  returned: failure
  type: list
  elements: str
  sample: ["verify_prometheus_textfile_dir: /var/lib/node_exporter is a file, not a directory"]
textfile:
  description:
    - The verification textfile (C(blackwell_pytorch_verify.prom)) in O(output_dirs)'s
      C(verify_prometheus_textfile_dir), with its current text (null when it is not there), so that a stored result
      that stands can write it again where it is missing or differs; empty without that directory.
  returned: always
  type: dict
  contains:
    path: {description: The textfile's path., type: str}
    text: {description: Its current text (null when absent)., type: str}
preview:
  description:
    - In check mode, when O(python) is not there yet (a fresh host, where the pytorch stage of a real run makes the
      stack), what a real run would do instead of a fingerprint; nothing is read then. Absent otherwise.
  returned: check mode, without the interpreter
  type: str
gpus:
  description:
    - The GPUs the driver initialised, in bus order, read from the same C(/proc/driver/nvidia/gpus) files as the
      UUIDs (not part of the fingerprint). The verify role chooses its default gates by the first one's name
      without an NVML call.
  returned: always
  type: list
  elements: dict
  sample: [{pci_bus_id: "0000:01:00.0", name: NVIDIA GeForce RTX 5090, uuid: GPU-5f96d804-79b0-be28-4c35-32aed61c1c21}]
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.output_dirs import problems
from ansible_collections.blackwell.pytorch.plugins.module_utils.results import stored as stored_results
from ansible_collections.blackwell.pytorch.plugins.module_utils.results.fingerprint import (
    decide, fingerprint, gpu_models, input_path_problems, missing_text, preview_text)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            python=dict(type="path", required=True),
            cuda_home=dict(type="path", default="/usr/local/cuda"),
            collection_version=dict(type="str", default=""),
            results=dict(type="path", required=True),
            force=dict(type="bool", default=False),
            also=dict(type="list", elements="path", default=[]),
            code=dict(type="str", default=""),
            settings=dict(type="dict", default={}),
            output_dirs=dict(type="dict", default={}),
            input_paths=dict(type="dict", default={}),
            refusals=dict(type="list", elements="str", default=[]),
        ),
        supports_check_mode=True,
    )
    params = module.params
    if params["refusals"]:
        module.fail_json(msg="; ".join(params["refusals"]), refusals=params["refusals"])
    refused = input_path_problems(params["input_paths"])
    if refused:
        module.fail_json(msg=" ".join(refused), input_path_problems=refused)
    refused = problems(params["output_dirs"])
    if refused:
        module.fail_json(msg="; ".join(refused), output_dir_problems=refused)
    if not os.path.isfile(params["python"]):
        if not module.check_mode:
            module.fail_json(msg=missing_text(params["python"]))
        # a check run before the stack is made (a fresh host): nothing to fingerprint, check or benchmark yet
        module.exit_json(changed=False, preview=preview_text(params["python"]), fingerprint={}, stored=None, reuse=False,
                         reason="check mode: the stack is not there yet", changed_components=[], also=[], gpus=[],
                         textfile={})
    current = fingerprint(params["python"], params["cuda_home"], params["collection_version"],
                          code=params["code"], settings=params["settings"])
    stored, problem = stored_results.read(params["results"])
    reuse, reason, changed = decide(stored, current, params["force"], problem)
    damaged = [problem] if problem else []
    also = []
    for path in params["also"]:
        other, other_problem = stored_results.read(path)
        other_reuse, other_reason, other_changed = decide(other, current, params["force"], other_problem)
        damaged += [other_problem] if other_problem else []
        also.append(dict(results=path, stored=other, reuse=other_reuse, reason=other_reason,
                         changed_components=other_changed))
    for text in damaged:  # said at the normal verbosity: the result is made again instead
        module.warn("%s: not used, checked and verified again" % text)
    module.exit_json(changed=False, fingerprint=current, stored=stored, reuse=reuse, reason=reason,
                     changed_components=changed, also=also, gpus=gpu_models(),
                     textfile=stored_results.textfile(params["output_dirs"].get("verify_prometheus_textfile_dir")))


if __name__ == "__main__":
    main()
