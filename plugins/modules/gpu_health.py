#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_health
short_description: Read and judge the GPUs' health (PCIe link, remapped rows, retired pages, uncorrected ECC, Xid errors)
version_added: 0.4.0
description:
  - Reads, per NVIDIA GPU through NVML, the PCIe link's current and maximum generation and width, the
    performance state and utilisation (a link slows down at idle), the remapped rows (corrected,
    uncorrected, pending, failure), the retired pages (pending, and how many for single- and double-bit
    errors) and the uncorrected ECC errors (volatile and aggregate).
  - Reads the Xid errors the driver logged since boot from the kernel log, C(journalctl -k -b) first, else
    C(/dev/kmsg) (the kernel's ring buffer, which may no longer hold the boot's first messages).
  - A field a GPU does not support (ECC on GeForce cards, retired pages since Ampere) is listed in the GPU's
    C(unsupported); a kernel log that cannot be read (no permission, a container) is reported with the reason.
    Neither fails the module.
  - With O(gates), judges the readings in the same call (RV(verdict); the verify role's health gates), the PCIe
    link's generation from the telemetry of O(benchmark) or, when a stored verification stands instead of a run,
    of O(stored_result).
  - With O(textfile_dir), writes C(blackwell_pytorch_health.prom) there for node_exporter (the readings and, with
    O(gates), the verdict, named as dcgm-exporter names them) through a temporary file and a rename, only when its
    content changes; in check mode it says whether it would.
  - Never changes any GPU setting. The verify role reads, judges and writes its health textfile in one call, unless
    the preflight probe read the health already (M(blackwell.pytorch.preflight_facts) option C(health), the same
    readers) and the C(blackwell.pytorch.verify_steps) filter judges that reading.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
  diff_mode:
    support: full
    details:
      - The textfile's content before and after, when it changes.
options:
  kernel_log:
    description:
      - Where the Xid errors are read. V(auto) tries the journal, then C(/dev/kmsg); V(never) reads no kernel log.
    type: str
    choices: [auto, journal, kmsg, never]
    default: auto
  gates:
    description:
      - The health gates to judge the readings with (RV(verdict)); omitted, nothing is judged. A gate left out
        takes its default.
    type: dict
    version_added: 0.5.0
    suboptions:
      pcie_gen: {description: "The PCIe link's generation under load below its maximum fails.", type: bool, default: true}
      pcie_width: {description: "The link's width below its maximum fails.", type: bool, default: true}
      xid: {description: Xid errors since boot fail (except O(gates.xid_ignore))., type: bool, default: true}
      xid_ignore: {description: Xid codes that do not fail., type: list, elements: int, default: [13, 31, 43, 45]}
      remapped_rows: {description: "A row remap or page retirement pending, or a row remap failed, fails.", type: bool, default: true}
      ecc_volatile: {description: Uncorrected ECC errors since the driver loaded fail., type: bool, default: true}
      ecc_aggregate: {description: "Uncorrected ECC errors over the GPU's life fail.", type: bool, default: false}
      pcie_replay:
        description:
          - More than O(gates.pcie_replay_max) PCIe replays, or a new AER nonfatal or fatal error, while the benchmark
            ran on the GPU (the C(counters) of its device entry in O(benchmark)) fails.
          - Without them, the replays since the driver loaded - none passes, any is unknown.
        type: bool
        default: true
        version_added: 0.6.0
      pcie_replay_max:
        description: PCIe replays one benchmark run may see on a GPU (a healthy link has none; DCGM allows 8 a minute).
        type: int
        default: 8
        version_added: 0.6.0
      nvlink:
        description: An NVLink link that is down while other links of the GPU are up fails, naming it.
        type: bool
        default: true
        version_added: 0.6.0
      require_known: {description: A gate that cannot read its figure fails instead of saying so., type: bool, default: false}
  host:
    description: The host's name, at the start of each message of RV(verdict) and the textfile's C(Hostname) fallback.
    type: str
    default: ""
    version_added: 0.5.0
  device:
    description: V(cuda), or V(cpu) (no GPU read is then a note, not an unknown).
    type: str
    choices: [cuda, cpu]
    default: cuda
    version_added: 0.5.0
  benchmark:
    description: The torch_benchmark document of this run, whose telemetry recorded the PCIe link under load.
    type: dict
    default: {}
    version_added: 0.5.0
  stored_result:
    description:
      - The stored verification result (C(verify.json)) that stands instead of a run; when given, its benchmark's
        telemetry is read in place of O(benchmark) and its date is named in the messages.
    type: dict
    default: {}
    version_added: 0.5.0
  textfile_dir:
    description:
      - node_exporter textfile-collector directory for C(blackwell_pytorch_health.prom); empty for none. A missing
        directory is created (C(0755), with O(owner) and O(group)); an existing one is left as it is.
    type: path
    default: ""
    version_added: 0.5.0
  owner:
    description: Owner of the textfile (and of a directory this module creates); unchanged when omitted.
    type: str
    version_added: 0.5.0
  group:
    description: Group of the textfile (and of a directory this module creates); unchanged when omitted.
    type: str
    version_added: 0.5.0
requirements:
  - nvidia-ml-py (the C(pynvml) module) for the NVML readings; without it only the kernel log is read.
notes:
  - Run it with the interpreter of the C(blackwell.pytorch.tools) role (C(blackwell_tools_python)), which has
    C(nvidia-ml-py). The kernel log needs root (C(become)) where C(kernel.dmesg_restrict) is set.
"""

EXAMPLES = r"""
- name: Read the GPUs' health
  blackwell.pytorch.gpu_health:
  register: health

- name: Read, judge with the default gates, and write the textfile for node_exporter
  blackwell.pytorch.gpu_health:
    gates: {ecc_aggregate: true}
    host: "{{ inventory_hostname }}"
    textfile_dir: /var/lib/node_exporter/textfile
    owner: root
    group: root
  register: judged

- name: Show each GPU's PCIe link
  ansible.builtin.debug:
    msg: "{{ item.index }}: gen {{ item.pcie_gen_current }} of {{ item.pcie_gen_max }}, x{{ item.pcie_width_current }}"
  loop: "{{ health.health.gpus }}"
"""

RETURN = r"""
health:
  description: The readings.
  returned: always
  type: dict
  contains:
    hostname: {description: "The host's name (the kernel's nodename).", type: str}
    nvml_error: {description: "Why NVML could not be read (null when it was).", type: str}
    gpus:
      description: One entry per GPU NVML lists; a value NVML does not give is null.
      type: list
      elements: dict
      contains:
        index: {description: "NVML index.", type: int}
        name: {description: "Model name.", type: str}
        uuid: {description: "GPU UUID.", type: str}
        pci_bus_id: {description: "Bus id, four-digit domain, lower case.", type: str, sample: "0000:18:00.0"}
        bus_id: {description: "Bus id as NVML spells it.", type: str, sample: "00000000:18:00.0"}
        device: {description: "The device node's name.", type: str, sample: nvidia0}
        pstate: {description: "Performance state (0 is P0, the fastest; 8 is idle).", type: int}
        utilization_gpu: {description: "GPU utilisation in percent.", type: int}
        pcie_gen_current: {description: "Current PCIe link generation.", type: int}
        pcie_gen_max: {description: "Maximum link generation of the GPU in this slot.", type: int}
        pcie_gen_gpu_max: {description: "Maximum link generation of the GPU.", type: int}
        pcie_width_current: {description: "Current link width (lanes).", type: int}
        pcie_width_max: {description: "Maximum link width.", type: int}
        remapped_rows: {description: "C(corrected), C(uncorrected) (counts), C(pending), C(failure) (bools).", type: dict}
        retired_pages: {description: "C(pending) (bool), C(sbe), C(dbe) (counts).", type: dict}
        ecc_uncorrected_volatile: {description: "Uncorrected ECC errors since the driver loaded.", type: int}
        ecc_uncorrected_aggregate: {description: "Uncorrected ECC errors over the GPU's life.", type: int}
        pcie_replay: {description: "PCIe replay counter since the driver loaded (packets the link sent again).", type: int}
        nvlink:
          description: "NVLink links: C(link), C(state) (1 up, 0 down), C(version), C(remote) (the far end's bus id, null
            when NVML does not report it); null for a GPU without NVLink."
          type: list
          elements: dict
        unsupported: {description: "Fields the GPU does not support.", type: list, elements: str}
        errors: {description: "Fields NVML failed to read, with the error.", type: dict}
    kernel_log:
      description: The Xid errors since boot.
      type: dict
      contains:
        source: {description: "V(journal), V(/dev/kmsg), or null when no kernel log could be read.", type: str}
        complete: {description: "Whether the log reaches back to the boot.", type: bool}
        error: {description: "Why no kernel log could be read.", type: str}
        xids:
          description: "One entry per Xid line: C(pci) (bus id without the function), C(xid), C(pid), C(process), C(text)."
          type: list
          elements: dict
verdict:
  description:
    - The gates' verdict (with O(gates)), what the C(blackwell.pytorch.verify_with_health) filter joins to a
      verification result.
  returned: when O(gates) is given
  type: dict
  contains:
    passed: {description: Whether every gate passed., type: bool}
    failures: {description: "One message per failed gate, naming host, GPU, figure and expectation.", type: list, elements: str}
    unknown: {description: "Gates that could not read their figure, with the reason.", type: list, elements: str}
    not_supported: {description: Gates the GPU does not support., type: list, elements: str}
    notes: {description: Remarks that are no failure., type: list, elements: str}
    gpus: {description: "Per GPU its C(gates), each with C(status) and C(text).", type: list, elements: dict}
    options: {description: The gates' options as judged., type: dict}
    kernel_log: {description: "The kernel log's C(source), C(complete), C(error) and the number of C(xids).", type: dict}
    summary: {description: One line., type: str}
textfile:
  description: The textfile's path (empty without O(textfile_dir)) and whether its content was (or would be) written.
  returned: always
  type: dict
  contains:
    path: {description: The file's full path., type: str}
    written: {description: Whether its content changed., type: bool}
"""

import os
import traceback

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.py_env import read_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.result_files import (
    diffs, plan_files, replace_file, request_errors)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import TEXTFILE, kernel_log, nvml_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_gates import DEFAULTS, GATES, evaluate
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.health_metrics import prometheus

try:
    import pynvml
    PYNVML_IMPORT_ERROR = None
except ImportError:
    pynvml = None
    PYNVML_IMPORT_ERROR = traceback.format_exc()

KMSG = "/dev/kmsg"
GATE_OPTIONS = dict([(name, dict(type="bool", default=DEFAULTS[name])) for name in GATES + ("require_known",)]
                    + [("xid_ignore", dict(type="list", elements="int", default=list(DEFAULTS["xid_ignore"]))),
                       ("pcie_replay_max", dict(type="int", default=DEFAULTS["pcie_replay_max"]))])


def judge(module, reading):
    """The gates' verdict on `reading` (the module fails with the options' errors)."""
    params = module.params
    options = dict((key, value) for key, value in params["gates"].items() if value is not None)
    stored = params["stored_result"] or {}
    benchmark = (stored.get("benchmark") or {}) if stored else params["benchmark"]
    try:
        return evaluate(reading, options, params["host"], benchmark, stored.get("written") or None, params["device"])
    except ValueError as err:
        module.fail_json(msg=str(err), health=reading)


def attributes(module, path, mode):
    return module.load_file_common_arguments(
        {"owner": module.params["owner"], "group": module.params["group"], "mode": mode}, path=path)


def write_textfile(module, content, result):
    """Write the textfile through a temporary file and a rename when its content differs (not in check mode);
    True when anything changed."""
    directory = module.params["textfile_dir"]
    entry = {"name": TEXTFILE, "content": content, "mode": "0644"}
    kind = "dir" if os.path.isdir(directory) else "other" if os.path.lexists(directory) else "missing"
    errors = request_errors(directory, None, [entry], kind)
    if errors:
        module.fail_json(msg="textfile_dir: %s" % "; ".join(errors), **result)
    planned = plan_files(directory, [entry], read_text)[0]
    result["textfile"] = {"path": planned["path"], "written": planned["differs"]}
    if module._diff:
        result["diff"] = diffs([planned])
    changed = planned["differs"] or kind == "missing"
    if module.check_mode:
        return changed
    try:
        if kind == "missing":
            os.makedirs(directory)
            changed = module.set_fs_attributes_if_different(attributes(module, directory, "0755"), True)
        if planned["differs"]:
            replace_file(module, planned["path"], content)
    except (IOError, OSError) as exc:
        module.fail_json(msg="cannot write %s: %s" % (planned["path"], exc), **result)
    return module.set_fs_attributes_if_different(attributes(module, planned["path"], "0644"), changed)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            kernel_log=dict(type="str", default="auto", choices=["auto", "journal", "kmsg", "never"]),
            gates=dict(type="dict", options=GATE_OPTIONS),
            host=dict(type="str", default=""),
            device=dict(type="str", default="cuda", choices=["cuda", "cpu"]),
            benchmark=dict(type="dict", default={}),
            stored_result=dict(type="dict", default={}),
            textfile_dir=dict(type="path", default=""),
            owner=dict(type="str"),
            group=dict(type="str"),
        ),
        supports_check_mode=True,
    )
    reading = nvml_health(pynvml)
    if pynvml is None:
        reading["nvml_error"] = "nvidia-ml-py is not installed for the module's Python"
    reading["hostname"] = os.uname()[1]
    reading["kernel_log"] = kernel_log(module.params["kernel_log"], module.get_bin_path, module.run_command, KMSG)
    result = {"health": reading, "textfile": {"path": "", "written": False}}
    verdict = None
    if module.params["gates"] is not None:
        verdict = result["verdict"] = judge(module, reading)
    changed = False
    if module.params["textfile_dir"]:
        changed = write_textfile(module, prometheus(reading, verdict, module.params["host"]), result)
    module.exit_json(changed=changed, **result)


if __name__ == "__main__":
    main()
