#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_health
short_description: Read the GPUs' health (PCIe link, remapped rows, retired pages, uncorrected ECC, Xid errors)
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
    Neither fails the module. The readings are judged by the verify
    role's C(verify_health_*) gates (the C(blackwell.pytorch.verify_health) filter).
  - Never changes any GPU setting.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  kernel_log:
    description:
      - Where the Xid errors are read. V(auto) tries the journal, then C(/dev/kmsg); V(never) reads no kernel log.
    type: str
    choices: [auto, journal, kmsg, never]
    default: auto
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
"""

import os
import traceback

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import (
    JOURNAL_ARGV, nvml_health, read_kernel_log, read_kmsg_file)

try:
    import pynvml
    PYNVML_IMPORT_ERROR = None
except ImportError:
    pynvml = None
    PYNVML_IMPORT_ERROR = traceback.format_exc()

KMSG = "/dev/kmsg"


def kernel_log(module, mode):
    """The kernel log's reading for `mode` (auto, journal, kmsg, never)."""
    if mode == "never":
        return {"source": None, "complete": False, "xids": [], "error": "not read (kernel_log=never)"}
    journalctl = module.get_bin_path("journalctl") if mode in ("auto", "journal") else None

    def run_journal():
        if journalctl is None:
            return None
        return module.run_command([journalctl] + JOURNAL_ARGV[1:], environ_update={"LC_ALL": "C"})

    def read_kmsg():
        if mode == "journal":
            raise OSError(0, "not read (kernel_log=journal)")
        return read_kmsg_file(KMSG)

    return read_kernel_log(run_journal if mode != "kmsg" else None, read_kmsg)


def main():
    module = AnsibleModule(
        argument_spec=dict(kernel_log=dict(type="str", default="auto", choices=["auto", "journal", "kmsg", "never"])),
        supports_check_mode=True,
    )
    reading = nvml_health(pynvml)
    if pynvml is None:
        reading["nvml_error"] = "nvidia-ml-py is not installed for the module's Python"
    reading["hostname"] = os.uname()[1]
    reading["kernel_log"] = kernel_log(module, module.params["kernel_log"])
    module.exit_json(changed=False, health=reading)


if __name__ == "__main__":
    main()
