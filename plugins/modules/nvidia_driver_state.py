#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: nvidia_driver_state
short_description: Read the NVIDIA driver's state on the host and decide what the nvidia_driver role would change
version_added: 0.4.0
description:
  - One read-only call for the nvidia_driver role. Reads the installed driver packages (the role's probe command),
    the kernel headers and DKMS packages, the holds (dpkg's selections, dnf's versionlocks), the MOK files, the
    repository key (checked against the pinned fingerprints), the files the role writes (apt source, proxy
    configuration, unattended-upgrades blacklist, nouveau blacklist, DKMS signing configuration), other apt
    sources of the same repository and nvidia-persistenced.
  - Refuses first, before anything is read, what the inputs alone cannot do, every such problem at once (a branch
    that is no driver branch or too old for a GPU, repository inputs that cannot work and
    C(reboot_ok) over a local connection). Nothing of the host is read then.
  - Then reads the host and decides flavor, action and packages (the plan), the refusals that need the host (the
    role's messages, before anything changes), the named changes a run would make and whether the host is converged.
  - Never changes anything; runs in check mode too. Needs root to read the root-only proxy configuration.
  - A refusal does not fail the module; it returns RV(ok=false) and the messages, and the role fails on them.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  host:
    description: The inventory host name, used in the messages.
    type: str
    required: true
  branch:
    description: The wanted driver branch (C(nvidia_driver_branch)).
    type: str
    default: "580"
  flavor:
    description: C(auto), C(open) or C(proprietary) (C(nvidia_driver_flavor)).
    type: str
    default: auto
  manage:
    description: C(auto), C(true) or C(false) (C(nvidia_driver_manage)).
    type: str
    default: auto
  upgrade:
    description: Move the driver on purpose (C(nvidia_driver_upgrade)).
    type: bool
    default: false
  gpus:
    description: C(ansible_facts['nvidia_gpus']) (M(blackwell.pytorch.gpu_facts)).
    type: list
    elements: dict
    default: []
  loaded:
    description: C(ansible_facts['nvidia_driver']), the loaded driver (M(blackwell.pytorch.gpu_facts)).
    type: dict
    default: {}
  preflight:
    description: C(blackwell_preflight) (os, kernel, user, connection, secure_boot, nouveau_loaded).
    type: dict
    required: true
  probe_argv:
    description:
      - The command that lists the installed driver packages as C(name<TAB>version<TAB>status) lines.
      - Empty for the OS family's own (C(dpkg-query) on Debian and Ubuntu, C(rpm) on RHEL), as returned in RV(commands).
    type: list
    elements: str
    default: []
  repo:
    description:
      - The vendor repository as the role configures it. C(configure) false leaves it out of the decision.
      - C(url), C(key_url), C(key_content), C(fingerprints), C(proxy) (never shown), C(keyring), C(source_path),
        C(proxy_path).
    type: dict
    default: {configure: false}
  hold:
    description: Hold the driver packages (C(nvidia_driver_hold)).
    type: bool
    default: true
  uu_exclude:
    description: Keep the driver packages out of unattended-upgrades (C(nvidia_driver_unattended_upgrades_exclude); Debian only).
    type: bool
    default: true
  uu_path:
    description: The unattended-upgrades blacklist file (Debian).
    type: path
  kernel_headers:
    description: Install the running kernel's headers (C(nvidia_driver_kernel_headers)).
    type: bool
    default: true
  headers_track_kernel:
    description: Install the package that brings later kernels' headers (C(nvidia_driver_headers_track_kernel)).
    type: bool
    default: true
  dkms_package:
    description: The DKMS package.
    type: str
    default: dkms
  blacklist_nouveau:
    description: Blacklist nouveau (C(nvidia_driver_blacklist_nouveau)).
    type: bool
    default: true
  mok_key:
    description: The MOK private key DKMS signs with (C(nvidia_driver_mok_key)); empty for none.
    type: str
    default: ""
  mok_cert:
    description: The MOK certificate (C(nvidia_driver_mok_cert)); empty for none.
    type: str
    default: ""
  persistenced:
    description: Enable (and start, with a loaded driver) nvidia-persistenced (C(nvidia_driver_persistenced)).
    type: bool
    default: true
  reboot_ok:
    description: The role may reboot (C(nvidia_driver_reboot_ok)); refused over a local connection.
    type: bool
    default: false
notes:
  - The inputs' checks live in C(module_utils/driver/inputs.py) and C(module_utils/driver/refusals.py), the decision
    in C(module_utils/driver/state.py), the reading of the host in C(module_utils/driver/host_probe.py).
"""

EXAMPLES = r"""
- name: Read the driver state and decide
  become: true
  blackwell.pytorch.nvidia_driver_state:
    host: "{{ inventory_hostname }}"
    branch: "580"
    gpus: "{{ ansible_facts['nvidia_gpus'] }}"
    loaded: "{{ ansible_facts['nvidia_driver'] }}"
    preflight: "{{ blackwell_preflight }}"
  register: driver_state
  failed_when: not driver_state.ok
"""

RETURN = r"""
ok: {description: No refusal., returned: always, type: bool, sample: true}
refusals: {description: "Every refusal message, in the order the role checks them: the inputs' (branch, repository,
             local reboot) alone when there are any, else those that need the host.", returned: always, type: list,
           elements: str, sample: []}
msg: {description: "The refusals joined, or the plan's message.", returned: always, type: str,
      sample: "flavor open (auto: recommended for Turing and newer); packages of branch 580 open managed"}
plan:
  description: Flavor, action (manage, adopt, check), package names to ask about, headers (the nvidia_driver_plan filter's result).
  returned: when the inputs pass (the host was read)
  type: dict
installed:
  description: The installed driver packages (version, branch, flavor, names, held, unheld) and C(method) (in place, none).
  returned: when the inputs pass (the host was read)
  type: dict
changes:
  description: What a run would change, by name (repository key, driver packages, package holds, nouveau blacklist, driver load, ...).
  returned: always
  type: list
  elements: str
  sample: [package holds]
converged: {description: "Nothing would change and the loaded driver is the wanted one, or the role does not manage the driver.",
            returned: always, type: bool, sample: true}
files:
  description: The files the role writes in this state, by name (nouveau, dkms_mok, repo_source, uu_blacklist), each with
    C(dest), C(content), C(mode) and C(differs). The proxy configuration is never returned.
  returned: when the inputs pass (the host was read)
  type: dict
status:
  description: C(nvidia_driver_status) as a run that changes nothing publishes it (action, branch, flavor, version, loaded,
    packages, method, reboot_required, msg).
  returned: when the inputs pass (the host was read)
  type: dict
support_packages:
  description: The kernel headers and DKMS packages the role installs (headers only with O(kernel_headers)).
  returned: when the inputs pass (the host was read)
  type: list
  elements: str
  sample: [linux-headers-6.8.0-50-generic, linux-headers-generic, dkms]
branch_warnings:
  description: "What is worth a word about the branch the inputs let through (also shown as warnings): one the
    collection's branch catalogue does not list, one past its end of support."
  returned: when the inputs pass (the host was read)
  type: list
  elements: str
  sample: []
commands:
  description: What the role runs on this OS family when it changes the host.
  returned: when the inputs pass (the host was read)
  type: dict
  contains:
    probe_argv: {description: "The installed driver packages' probe (O(probe_argv) when given).", type: list, elements: str}
    initramfs_tool: {description: "The initramfs tool (C(update-initramfs), C(dracut)); nothing is rebuilt without it.", type: str}
    initramfs_argv: {description: The initramfs rebuild., type: list, elements: str}
    module_stream: {description: "RHEL 8/9's module stream of the branch and flavor (C(nvidia-driver:580-open)); empty on
      EL 10, which has none.", type: str}
    branch_lock: {description: "EL 10's versionlock pattern that keeps dnf on the branch (C(*nvidia*580*)); empty
      elsewhere.", type: str}
    branch_locked: {description: "Whether C(dnf versionlock list) already keeps dnf on the branch (true without
      RV(commands.branch_lock)).", type: bool}
    rpm_package: {description: "RHEL's driver package (C(nvidia-open), C(cuda-drivers) for proprietary).", type: str}
"""

import platform

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.program_run import runner
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.state_call import (
    StateCallError, answer, proxy_password, want_of)
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.driver import OPTIONS


def main():
    module = AnsibleModule(argument_spec=OPTIONS, supports_check_mode=True)
    want = want_of(module.params, platform.machine())
    secret = proxy_password(want["repo"].get("proxy"))
    if secret:
        module.no_log_values.add(secret)
    try:
        result = answer(want, runner(module.get_bin_path, module.run_command))
    except StateCallError as exc:
        module.fail_json(msg=str(exc))
    for text in result.get("branch_warnings") or []:
        module.warn(text)
    module.exit_json(changed=False, **result)


if __name__ == "__main__":
    main()
