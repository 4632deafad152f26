#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: vendor_repo
short_description: A vendor package repository trusted only through a key with pinned fingerprints
version_added: 0.4.0
description:
  - The repository part of the nvidia_driver role (its C(repo) entry point, which the cuda_toolkit and
    container_toolkit roles enter too), in one call before C(apt-get update) and one after it when apt refuses the
    source. The role publishes the fact C(nvidia_driver_repo_status) from its C(status).
  - O(state=present) refuses repository inputs that cannot work first (URLs, pinned fingerprints, proxy; a password
    is never shown). Then it takes the key - O(key_content), else the key at O(keyring) when it still passes the
    pinned fingerprints, else the key fetched from O(key_url) through O(proxy) (read-only, also in check mode) - and
    trusts it only when every primary key in it has a fingerprint of O(fingerprints).
  - It refuses, before anything is written, a key that cannot be fetched (a check run warns with what a real run
    would fetch and returns C(usable) false instead), a key that is not pinned and, on Debian, another apt source of
    the same repository.
  - Then it writes what differs - the key directory (0755), the key (0644), on Debian the proxy setting for the
    repository's host (0600, removed when O(proxy) is empty) and the signed-by source (0644), on RedHat the key
    imported into the RPM database (C(rpm --import), unless C(rpm -q gpg-pubkey-<key id>) finds every key there)
    and the .repo file with gpgcheck on (0600 with a proxy) - each file root-owned, its mode set before it is
    renamed into place.
  - O(state=refused) removes the source apt refused (the rest of the system's apt keeps working) and fails
    quoting apt's C(Err:) / C(E:) lines and the reason (another apt run holding the lock, an index not signed by
    the pinned key, an unreachable repository).
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
    details:
      - O(state=present) reports what a real run would write and publishes C(usable) false when it would write the
        key or the source; O(state=refused) is not run by the role in check mode.
  diff_mode:
    support: full
    details:
      - The key's and the source's texts; the proxy setting's text is never shown (its URL may carry a password).
options:
  state:
    description: The step (see the description).
    type: str
    choices: [present, refused]
    default: present
  host:
    description: The inventory host name, as the refusals name the host.
    type: str
    required: true
  os:
    description:
      - The OS the preflight read (C(blackwell_preflight.os)); its layout fills each of O(url), O(key_url),
        O(keyring), O(source_path) and O(apt_conf_path) left empty, and its C(family) is the default of O(family).
    type: dict
    default: {}
  family:
    description: The OS family (C(Debian) or C(RedHat)), for O(state=present); empty, the one of O(os), else Debian.
    type: str
    default: ""
  base_url:
    description: The base URL of the repositories (C(nvidia_driver_repo_base_url)), for O(url) left empty.
    type: str
    default: https://developer.download.nvidia.com/compute/cuda/repos
  url:
    description: The repository URL (C(nvidia_driver_repo_url)); empty, C(<base_url>/<distro>/<arch>/) of O(os).
    type: str
    default: ""
  key_url:
    description:
      - The key's URL (C(nvidia_driver_repo_key_url)), fetched only when the key is needed; empty, NVIDIA's key file
        in O(url).
    type: str
    default: ""
  key_content:
    description: The armored key itself (C(nvidia_driver_repo_key_content)); when given, nothing is fetched.
    type: str
    default: ""
  fingerprints:
    description: The pinned fingerprints (40 or 64 hex digits each); anything but a list is refused.
    type: raw
    default: []
  proxy:
    description: The repository's proxy (C(http://user:password@proxy:3128)); never shown.
    type: str
    default: ""
  keyring:
    description: Where the checked key goes; empty, the OS's (Debian C(/etc/apt/keyrings/<name>.asc)).
    type: path
    default: ""
  source_path:
    description: The apt source or .repo file; empty, the OS's.
    type: path
    default: ""
  apt_conf_path:
    description: apt's configuration file of the repository's proxy (Debian); empty, the OS's.
    type: path
    default: ""
  name:
    description: The repository's name (the .repo file's section).
    type: str
    default: nvidia-cuda
  refresh:
    description: Whether C(update_lists) asks for C(apt-get update) when neither the key nor the source changed.
    type: bool
    default: true
  timeout:
    description: Seconds the key fetch may take.
    type: int
    default: 30
  apt_output:
    description: C(apt-get update)'s stdout and stderr, for O(state=refused).
    type: str
    default: ""
  lock_timeout:
    description: Seconds C(apt-get update) waited for apt's lock (C(nvidia_driver_apt_lock_timeout)), for the message.
    type: int
    default: 120
notes:
  - The proxy is an option (no_log), set in this module's own environment only while the key is fetched, never the
    task's C(environment), which Ansible writes in front of the module's command line (C(-vvv), C(ps)).
  - C(apt-get update) stays a task of the role, whose retries while another apt run holds the lock show in the play.
  - The module sets no fact; the role publishes C(status) with M(ansible.builtin.set_fact).
seealso:
  - module: blackwell.pytorch.nvidia_driver_state
"""

EXAMPLES = r"""
- name: Trust the key and write the source
  blackwell.pytorch.vendor_repo:
    host: "{{ inventory_hostname }}"
    family: Debian
    url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/
    key_url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub
    fingerprints: [EB693B3035CD5710E231E123A4B469963BF863CC]
    keyring: /etc/apt/keyrings/nvidia-cuda.asc
    source_path: /etc/apt/sources.list.d/nvidia-cuda.list
    apt_conf_path: /etc/apt/apt.conf.d/90nvidia-cuda-proxy
  register: repo

- name: Remove the source again when apt refused it, and say why
  blackwell.pytorch.vendor_repo:
    state: refused
    host: "{{ inventory_hostname }}"
    url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/
    keyring: /etc/apt/keyrings/nvidia-cuda.asc
    source_path: /etc/apt/sources.list.d/nvidia-cuda.list
    apt_output: "{{ apt_update.stdout }}\n{{ apt_update.stderr }}"
  when: apt_update is failed
"""

RETURN = r"""
paths:
  description: The repository's URL, keyring and source file, after the layout of O(os) filled those left empty.
  returned: always
  type: dict
  sample: {url: "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/",
           keyring: /etc/apt/keyrings/nvidia-cuda.asc, source_path: /etc/apt/sources.list.d/nvidia-cuda.list}
msg:
  description: What the step found (the pinned keys trusted, or what a check run could not fetch) or why apt refused
    the source.
  returned: always
  type: str
  sample: "pinned key(s): EB693B3035CD5710E231E123A4B469963BF863CC (cudatools <cudatools@nvidia.com>)"
fetched:
  description: Whether the key was fetched (no key content, and the key on the host missing or not passing the pins).
  returned: state is present
  type: bool
  sample: false
changes:
  description: What was (in check mode, would be) written, imported or removed - C(key directory), C(key),
    C(rpm key), C(proxy), C(source).
  returned: state is present
  type: list
  elements: str
  sample: [key directory, key, source]
trusted:
  description: Whether the key was checked and trusted (false only when a check run could not fetch it).
  returned: state is present
  type: bool
  sample: true
fingerprints:
  description: The fingerprints of the primary keys in the trusted key.
  returned: state is present
  type: list
  elements: str
  sample: [EB693B3035CD5710E231E123A4B469963BF863CC]
usable:
  description: Whether packages can be installed from the repository now (false in a check run that would write the
    key or the source, or could not fetch the key).
  returned: state is present
  type: bool
  sample: true
update_lists:
  description: Whether the role runs C(apt-get update) of this source now (Debian, a real run, O(refresh) or the key
    or the source changed).
  returned: state is present
  type: bool
  sample: true
status:
  description: What the role publishes as C(nvidia_driver_repo_status) - the repository's C(url), C(keyring),
    C(fingerprints) and C(usable).
  returned: state is present
  type: dict
  sample: {url: "https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/",
           keyring: /etc/apt/keyrings/nvidia-cuda.asc, fingerprints: [EB693B3035CD5710E231E123A4B469963BF863CC],
           usable: true}
"""

import platform

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import url_secrets
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver import os_layout, repo_steps

OWNER = repo_steps.ROOT_OWNER


def main():
    module = AnsibleModule(
        argument_spec=dict(
            state=dict(type="str", default="present", choices=["present", "refused"]),
            host=dict(type="str", required=True),
            os=dict(type="dict", default={}),
            family=dict(type="str", default=""),
            base_url=dict(type="str", default=os_layout.BASE_URL),
            url=dict(type="str", default=""),
            key_url=dict(type="str", default="", no_log=False),
            key_content=dict(type="str", default="", no_log=False),
            fingerprints=dict(type="raw", default=[]),
            proxy=dict(type="str", default="", no_log=True),
            keyring=dict(type="path", default=""),
            source_path=dict(type="path", default=""),
            apt_conf_path=dict(type="path", default=""),
            name=dict(type="str", default="nvidia-cuda"),
            refresh=dict(type="bool", default=True),
            timeout=dict(type="int", default=30),
            apt_output=dict(type="str", default=""),
            lock_timeout=dict(type="int", default=120),
        ),
        supports_check_mode=True,
    )
    want = repo_steps.with_layout(module.params, platform.machine())
    paths = dict((key, want[key]) for key in ("url", "keyring", "source_path"))
    module.no_log_values.update(url_secrets([want["key_url"], want["proxy"]]))
    if want["state"] == "refused":
        module.fail_json(msg=repo_steps.refused(want), changed=True, paths=paths)

    def opener(url, timeout):
        return open_url(url, timeout=timeout, use_proxy=True)

    try:
        rpm = module.get_bin_path("rpm", required=True) if want["family"] == "RedHat" else "rpm"
        result = repo_steps.present(want, module.check_mode, opener, OWNER, module.run_command, rpm)
    except repo_steps.RepoRefused as refusal:
        module.fail_json(msg=refusal.msg, paths=paths, **refusal.result)
    for warning in result.pop("warnings"):
        module.warn(warning)
    if not module._diff:
        result.pop("diff", None)
    module.exit_json(paths=paths, **result)


if __name__ == "__main__":
    main()
