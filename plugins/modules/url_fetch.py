#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: url_fetch
short_description: Read a URL through a proxy whose password is never shown
version_added: 0.4.0
description:
  - Reads O(url) and returns its content, its status and a message worded as M(ansible.builtin.uri) words them;
    never fails on the URL's answer (a refused connection is status V(-1)); the caller judges the status.
  - The proxy is an option (O(proxy), no_log), not the task's C(environment), which Ansible writes in front of the
    module's command line, shown at C(-vvv) and to every local user in C(ps). It is set in this module's own
    environment only while the request is opened.
  - The repository key fetch of the container_toolkit role (C(container_toolkit_repo_proxy)); the nvidia_driver role's
    goes through M(blackwell.pytorch.vendor_repo) over the same code. Read-only, also in check mode.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
options:
  url:
    description: The URL (http, https or file); a user name and password in it are never shown.
    type: str
    required: true
  proxy:
    description: The proxy URL (C(http://user:password@proxy:3128)); empty - the environment's proxy variables.
    type: str
    default: ""
  timeout:
    description: Seconds the request may take.
    type: int
    default: 30
"""

EXAMPLES = r"""
- name: Fetch the repository key through the lab's proxy
  blackwell.pytorch.url_fetch:
    url: https://developer.download.nvidia.com/compute/cuda/repos/debian12/x86_64/3bf863cc.pub
    proxy: "{{ nvidia_driver_repo_proxy }}"
  register: key
"""

RETURN = r"""
status: {description: The HTTP status; -1 when no answer came., returned: always, type: int, sample: 200}
msg: {description: "What happened, as ansible.builtin.uri says it (passwords masked).", returned: always, type: str}
content: {description: The body as text., returned: when an answer came, type: str}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import open_url

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_fetch import fetch
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.url_secrets import url_secrets


def main():
    module = AnsibleModule(
        argument_spec=dict(url=dict(type="str", required=True), proxy=dict(type="str", default="", no_log=True),
                           timeout=dict(type="int", default=30)),
        supports_check_mode=True)
    params = module.params
    module.no_log_values.update(url_secrets([params["url"], params["proxy"]]))

    def opener(url, timeout):
        return open_url(url, timeout=timeout, use_proxy=True)

    module.exit_json(changed=False, **fetch(params["url"], params["proxy"], params["timeout"], opener))


if __name__ == "__main__":
    main()
