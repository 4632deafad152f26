#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: secure_boot_facts
short_description: Report whether UEFI Secure Boot is enabled
version_added: 0.1.0
description:
  - Sets C(ansible_facts.blackwell_secure_boot) with the Secure Boot state of the host.
  - Reads C(mokutil --sb-state) when mokutil is installed, else the EFI C(SecureBoot) variable in
    C(/sys/firmware/efi/efivars). A legacy BIOS boot reports V(disabled). Where the firmware is not
    visible (containers) the state is V(unknown), which is a value, not an error.
  - With Secure Boot enabled, an unsigned NVIDIA kernel module is refused at load time. The
    C(blackwell.pytorch.nvidia_driver) role reads the same state from M(blackwell.pytorch.preflight_facts) (which
    sets this fact too) and stops before installing when no MOK key pair is given
    (C(nvidia_driver_mok_key), C(nvidia_driver_mok_cert)). This module reads the state alone, for a look across
    the lab before a driver rollout (see the examples).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
  - blackwell.pytorch.attributes.FACTS
options: {}
"""

EXAMPLES = r"""
- name: Read the Secure Boot state
  blackwell.pytorch.secure_boot_facts:

- name: Say it
  ansible.builtin.debug:
    msg: "Secure Boot is {{ ansible_facts['blackwell_secure_boot']['state'] }}"

# Before a driver rollout, which workstations of the lab will need a MOK enrolled at the console:
#   ansible all -m blackwell.pytorch.secure_boot_facts -o | grep '"state": "enabled"'
- name: List the hosts with Secure Boot on (their DKMS module must be signed with an enrolled key)
  ansible.builtin.debug:
    msg: "{{ ansible_play_hosts | map('extract', hostvars, ['ansible_facts', 'blackwell_secure_boot', 'state'])
             | zip(ansible_play_hosts) | selectattr(0, 'equalto', 'enabled') | map(attribute=1) | list }}"
  run_once: true
"""

RETURN = r"""
ansible_facts:
  description: Facts added to the host.
  returned: always
  type: dict
  contains:
    blackwell_secure_boot:
      description: Secure Boot state.
      returned: always
      type: dict
      contains:
        state: {description: "V(enabled), V(disabled) or V(unknown).", type: str, sample: disabled}
        method: {description: "How it was read: V(mokutil), V(efivars), V(bios) or V(none).", type: str}
        detail: {description: "What was read.", type: str, sample: "mokutil: SecureBoot disabled"}
"""

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.secure_boot import (
    read_secure_boot, run_mokutil)


def main():
    module = AnsibleModule(argument_spec={}, supports_check_mode=True)
    state = read_secure_boot(run_mokutil(module.get_bin_path, module.run_command))
    module.exit_json(changed=False, ansible_facts={"blackwell_secure_boot": state})


if __name__ == "__main__":
    main()
