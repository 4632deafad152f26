#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: preflight_facts
short_description: Read in one call everything a host must show before GPU provisioning
version_added: 0.3.0
description:
  - Reads, without changing anything, what the C(blackwell.pytorch.preflight) role checks, that is NVIDIA
    GPUs on the PCI bus and the loaded driver (sysfs and procfs, no NVML, as
    M(blackwell.pytorch.gpu_facts) with O(blackwell.pytorch.gpu_facts#module:nvml=never)), the
    Secure Boot state (as M(blackwell.pytorch.secure_boot_facts)), the running kernel's headers and
    whether their package can be installed (asked of apt's or dnf's cache, nothing downloaded),
    free disk where paths will live (as M(blackwell.pytorch.disk_space_info)) and whether
    nouveau is loaded.
  - One module call instead of six keeps a converged play short; the three modules it shares
    code with stay available on their own.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
  - blackwell.pytorch.attributes.FACTS
options:
  os_family:
    description:
      - C(ansible_facts.os_family); picks the package manager asked about the headers package.
      - V(Debian) asks C(apt-cache policy), V(RedHat) asks C(dnf --cacheonly list --available);
        any other value (or none) reports C(installable=unknown).
    type: str
    default: ''
  kernel:
    description: Kernel release whose headers are looked for; default the running kernel.
    type: str
  disk_checks:
    description: Paths and the free space each needs (see M(blackwell.pytorch.disk_space_info)).
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path (it need not exist).
        type: str
        required: true
      min_free_gib:
        description: Free GiB needed; V(0) only reports.
        type: float
        default: 0
"""

EXAMPLES = r"""
- name: Read the host before provisioning
  blackwell.pytorch.preflight_facts:
    os_family: "{{ ansible_facts['os_family'] }}"
    disk_checks:
      - {path: /opt/pytorch, min_free_gib: 25}
  register: preflight

- name: Say what was found
  ansible.builtin.debug:
    msg: >-
      {{ ansible_facts['nvidia_gpus'] | length }} GPU(s); Secure Boot
      {{ ansible_facts['blackwell_secure_boot']['state'] }}; headers installed:
      {{ preflight.kernel_headers.installed }}
"""

RETURN = r"""
ansible_facts:
  description: >-
    C(nvidia_gpus) and C(nvidia_driver) as M(blackwell.pytorch.gpu_facts) sets them without NVML,
    and C(blackwell_secure_boot) as M(blackwell.pytorch.secure_boot_facts) sets it.
  returned: always
  type: dict
kernel_headers:
  description: The running kernel's headers.
  returned: always
  type: dict
  contains:
    release: {description: Kernel release., type: str, sample: 6.8.0-48-generic}
    installed: {description: "Whether /lib/modules/<release>/build is a directory.", type: bool}
    package: {description: "Package that ships them ('' for an unknown OS family).", type: str, sample: linux-headers-6.8.0-48-generic}
    installable: {description: "V(true) / V(false) from the package cache, or V(unknown).", type: raw}
disk:
  description: One entry per disk check, as M(blackwell.pytorch.disk_space_info) returns them.
  returned: always
  type: list
  elements: dict
nouveau_loaded:
  description: Whether the nouveau kernel module is loaded.
  returned: always
  type: bool
"""

import os
import platform

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.disk_space import space_report
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import bus_only_facts, read_bus
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_headers import (
    headers_package, headers_query, headers_report)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.secure_boot import (
    read_secure_boot, run_mokutil)

SYS_ROOT = "/sys"
PROC_VERSION = "/proc/driver/nvidia/version"
FIRMWARE_DIR = "/sys/firmware"
MODULES_ROOT = "/lib/modules"


def query_package_manager(module, argv):
    """(rc, stdout) of the read-only package query, or None when its program is absent."""
    program = module.get_bin_path(argv[0]) if argv else None
    if not program:
        return None
    rc, out, _err = module.run_command([program] + argv[1:], environ_update={"LC_ALL": "C"})
    return rc, out


def main():
    module = AnsibleModule(
        argument_spec=dict(
            os_family=dict(type="str", default=""),
            kernel=dict(type="str"),
            disk_checks=dict(type="list", elements="dict", default=[], options=dict(
                path=dict(type="str", required=True),
                min_free_gib=dict(type="float", default=0),
            )),
        ),
        supports_check_mode=True,
    )
    params = module.params
    kernel = params["kernel"] or platform.release()
    on_bus, proc_text, module_loaded = read_bus(SYS_ROOT, PROC_VERSION)
    gpus, driver = bus_only_facts(on_bus, proc_text, module_loaded, "NVML not used (preflight reads the bus)")
    secure_boot = read_secure_boot(run_mokutil(module.get_bin_path, module.run_command), FIRMWARE_DIR)
    package = headers_package(params["os_family"], kernel)
    query = query_package_manager(module, headers_query(params["os_family"], package))
    try:
        disk = [space_report(check["path"], check["min_free_gib"]) for check in params["disk_checks"]]
    except (ValueError, OSError) as err:
        module.fail_json(msg=str(err))
    module.exit_json(
        changed=False,
        ansible_facts={"nvidia_gpus": gpus, "nvidia_driver": driver, "blackwell_secure_boot": secure_boot},
        kernel_headers=headers_report(params["os_family"], kernel, MODULES_ROOT, query),
        disk=disk,
        nouveau_loaded=os.path.isdir(os.path.join(SYS_ROOT, "module", "nouveau")),
    )


if __name__ == "__main__":
    main()
