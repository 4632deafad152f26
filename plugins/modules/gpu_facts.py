#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: gpu_facts
short_description: Report NVIDIA GPUs (compute capability, PCIe, clocks) and the loaded driver
version_added: 0.1.0
description:
  - Sets C(ansible_facts.nvidia_gpus), one entry per NVIDIA GPU, and C(ansible_facts.nvidia_driver).
  - With a driver loaded and C(nvidia-ml-py) importable by the module's Python, facts come from NVML.
  - Without a driver (a bare OS, before the driver role ran), or when NVML cannot be used, GPUs are
    found on the PCI bus through sysfs (vendor 0x10de, VGA or 3D controller class) and named from a
    PCI id table; C(nvidia_driver.nvml_error) says why NVML was not used.
  - A GPU on the PCI bus that NVML does not list (the driver failed to initialise it) is still
    reported, with C(nvml_visible=false).
  - No NVIDIA GPU at all is not an error; the list is empty. Deciding whether a GPU is required is
    the job of the roles (see the M(blackwell.pytorch.gpu_facts) users C(blackwell.pytorch.preflight)).
  - Never changes any GPU setting.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
  - blackwell.pytorch.attributes.FACTS
options:
  nvml:
    description:
      - How to use NVML.
      - V(auto) uses NVML when C(nvidia-ml-py) is importable and a driver answers; otherwise it falls
        back to sysfs and procfs, with a warning when a driver is loaded but C(nvidia-ml-py) is missing.
      - V(required) fails when NVML cannot be used while an NVIDIA GPU is on the PCI bus.
      - V(never) reads sysfs and procfs only.
    type: str
    choices: [auto, required, never]
    default: auto
requirements:
  - nvidia-ml-py (the C(pynvml) module) for the NVML facts; the sysfs fallback needs nothing.
notes:
  - System Pythons rarely ship C(nvidia-ml-py). Run the C(blackwell.pytorch.tools) role first and use
    the interpreter it publishes (C(blackwell_tools_python)) for this module, as C(site.yml) does.
"""

EXAMPLES = r"""
- name: Gather NVIDIA GPU and driver facts
  blackwell.pytorch.gpu_facts:

- name: Show each GPU's compute capability
  ansible.builtin.debug:
    msg: "{{ item.index }}: {{ item.name }} {{ item.compute_capability }} ({{ item.sm }})"
  loop: "{{ ansible_facts['nvidia_gpus'] }}"

- name: Fail unless NVML can be used
  blackwell.pytorch.gpu_facts:
    nvml: required
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    nvidia_gpus:
      description:
        - One entry per NVIDIA GPU, NVML order (PCI bus order) first, then GPUs seen only on the PCI bus.
        - Values NVML does not support on a GPU, or that sysfs cannot know, are null.
      returned: always
      type: list
      elements: dict
      contains:
        index: {description: "NVML index, or the bus-order index in sysfs mode; null for a GPU NVML does not list.", type: int}
        name: {description: "Model name.", type: str, sample: NVIDIA GeForce RTX 5090}
        name_source: {description: "Where the name came from: V(nvml), V(pci_id_table) or V(unknown_pci_id).", type: str}
        uuid: {description: "GPU UUID (NVML only).", type: str, sample: GPU-5a6a5f7e-0000-0000-0000-000000000000}
        pci_device_id: {description: "Vendor and device id.", type: str, sample: "10de:2b85"}
        pci_bus_id: {description: "PCI bus id, four-digit domain, lower case.", type: str, sample: "0000:01:00.0"}
        compute_capability: {description: "Compute capability as major.minor.", type: str, sample: "12.0"}
        sm: {description: "The SASS architecture name.", type: str, sample: sm_120}
        arch_family: {description: "Turing, Ampere, Ada, Hopper, Blackwell, ... or unknown.", type: str, sample: Blackwell}
        product_line:
          description:
            - V(geforce), V(workstation) or V(datacenter), from the collection's GPU catalogue (by the name, for a
              model the catalogue does not list).
            - The same answer as the per-device C(product_line) of M(blackwell.pytorch.torch_benchmark), which
              picks the verify role's default gates.
          type: str
          sample: geforce
        memory_total_mib: {description: "Total memory in MiB.", type: int}
        pcie_gen_current: {description: "Current PCIe link generation.", type: int}
        pcie_gen_max: {description: "Maximum PCIe link generation.", type: int}
        pcie_width_current: {description: "Current PCIe link width (lanes).", type: int}
        pcie_width_max: {description: "Maximum PCIe link width (lanes).", type: int}
        persistence_mode: {description: "Persistence mode enabled.", type: bool}
        ecc_mode: {description: "ECC enabled (null where unsupported).", type: bool}
        mig_mode: {description: "MIG enabled (null where unsupported).", type: bool}
        power_limit_w: {description: "Power management limit in watts.", type: float}
        enforced_power_limit_w: {description: "Enforced power limit in watts (the management limit, or lower where another cap applies).", type: float}
        max_sm_clock_mhz: {description: "Maximum SM clock.", type: int}
        max_mem_clock_mhz: {description: "Maximum memory clock.", type: int}
        memory_bus_width_bits: {description: "Memory bus width.", type: int}
        driver_bound: {description: "Kernel driver bound to the PCI function (null when none).", type: str}
        nvml_visible: {description: "Whether NVML listed this GPU.", type: bool}
        source: {description: "V(nvml) or V(sysfs).", type: str}
    nvidia_driver:
      description: The loaded NVIDIA kernel driver.
      returned: always
      type: dict
      contains:
        loaded: {description: "Whether the nvidia kernel module is loaded.", type: bool}
        version: {description: "Driver version.", type: str, sample: "580.159.04"}
        branch: {description: "Driver branch.", type: str, sample: "580"}
        cuda_driver_version: {description: "CUDA driver API version (NVML only).", type: str, sample: "13.0"}
        kernel_module_flavor: {description: "V(open), V(proprietary) or V(unknown), from /proc/driver/nvidia/version.", type: str}
        source: {description: "V(nvml), V(procfs) or V(none).", type: str}
        nvml_error: {description: "Why NVML was not used (null when it was).", type: str}
        python: {description: "The interpreter the module ran with.", type: str}
"""

import sys
import traceback

from ansible.module_utils.basic import AnsibleModule, missing_required_lib

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import (
    bus_only_facts, read_bus, snapshot_facts)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.nvml_gpus import (
    nvml_error_text, nvml_snapshot)

try:
    import pynvml
    HAS_PYNVML = True
    PYNVML_IMPORT_ERROR = None
except ImportError:
    pynvml = None
    HAS_PYNVML = False
    PYNVML_IMPORT_ERROR = traceback.format_exc()

PROC_VERSION = "/proc/driver/nvidia/version"
SYS_ROOT = "/sys"


def gather(module, nvml_mode):
    """Return (gpus, driver, warnings)."""
    warnings = []
    on_bus, proc_text, module_loaded = read_bus(SYS_ROOT, PROC_VERSION)
    snapshot, nvml_error = None, None

    if nvml_mode != "never":
        if not HAS_PYNVML:
            nvml_error = "nvidia-ml-py is not installed for %s" % sys.executable
            if nvml_mode == "required" and on_bus:
                module.fail_json(msg=missing_required_lib("nvidia-ml-py"), exception=PYNVML_IMPORT_ERROR)
            if proc_text is not None or module_loaded:
                warnings.append(
                    "An NVIDIA driver is loaded but %s; facts come from sysfs and procfs "
                    "(no uuid, clocks, memory or capability beyond the PCI id table). Run the "
                    "blackwell.pytorch.tools role and use blackwell_tools_python as this "
                    "module's interpreter." % nvml_error)
        else:
            try:
                snapshot = nvml_snapshot(pynvml)
            except pynvml.NVMLError as err:
                nvml_error = nvml_error_text(err)
                if nvml_mode == "required" and on_bus:
                    module.fail_json(msg="NVML cannot be used: %s" % nvml_error)
    else:
        nvml_error = "NVML not used (nvml=never)"

    if snapshot is not None:
        gpus, driver = snapshot_facts(snapshot, on_bus, proc_text, module_loaded)
        hidden = [gpu["pci_bus_id"] for gpu in gpus if not gpu["nvml_visible"]]
        if hidden:
            warnings.append("NVIDIA GPU(s) on the PCI bus that NVML does not list: %s. Check the "
                            "kernel log for RmInitAdapter errors (Blackwell needs the open kernel "
                            "module)." % ", ".join(hidden))
    else:
        gpus, driver = bus_only_facts(on_bus, proc_text, module_loaded, nvml_error)
    driver["python"] = sys.executable
    return gpus, driver, warnings


def main():
    module = AnsibleModule(
        argument_spec=dict(nvml=dict(type="str", default="auto", choices=["auto", "required", "never"])),
        supports_check_mode=True,
    )
    gpus, driver, warnings = gather(module, module.params["nvml"])
    for warning in warnings:
        module.warn(warning)
    module.exit_json(changed=False, ansible_facts={"nvidia_gpus": gpus, "nvidia_driver": driver})


if __name__ == "__main__":
    main()
