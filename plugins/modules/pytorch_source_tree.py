#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: pytorch_source_tree
short_description: Fetch the PyTorch tree of a source build at a ref, without a password on any command line
version_added: 0.6.0
description:
  - Brings O(dest) to O(version) of O(repo) with its submodules (fetched at depth O(depth)), on a fresh tree or one
    already there (a branch is updated, a tag stays as it is).
  - A user name and password in O(repo) (C(https://user:password@mirror.lab/pytorch.git)) never reach a command
    line nor the tree's C(.git/config); git is given the URL without them, and a credential program (git's
    C(credential.helper), as C(GIT_CONFIG_*) environment entries) answers with them from the environment, for the
    mirror's host only.
    Needs git 2.31 or newer.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
attributes:
  check_mode:
    support: full
    details:
      - Nothing is fetched; C(changed) says whether the tree is not there yet.
  diff_mode:
    support: none
options:
  repo:
    description: The git URL (C(pytorch_source_git_url)); may carry C(user:password@).
    type: str
    required: true
  dest:
    description: The tree.
    type: path
    required: true
  version:
    description: The ref to check out (a tag, a branch or a commit the server serves).
    type: str
    required: true
  recursive:
    description: Fetch the submodules too.
    type: bool
    default: true
  depth:
    description: History depth of the fetches; V(0) for the whole history.
    type: int
    default: 1
"""

EXAMPLES = r"""
- name: Fetch the PyTorch tree from a lab mirror that needs a password
  blackwell.pytorch.pytorch_source_tree:
    repo: "https://build:{{ mirror_password }}@git.lab/pytorch/pytorch.git"
    dest: /opt/pytorch/build/src/pytorch-v2.9.1
    version: v2.9.1
"""

RETURN = r"""
before:
  description: The commit checked out before ('' when there was no tree).
  returned: always
  type: str
after:
  description: The commit checked out now.
  returned: success
  type: str
repo:
  description: The URL git was given (without credentials).
  returned: always
  type: str
"""

import os

from ansible.module_utils.basic import AnsibleModule

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import git_source


def main():
    module = AnsibleModule(
        argument_spec=dict(repo=dict(type="str", required=True), dest=dict(type="path", required=True),
                           version=dict(type="str", required=True), recursive=dict(type="bool", default=True),
                           depth=dict(type="int", default=1)),
        supports_check_mode=True)
    params = module.params
    public, _user, password, _host = git_source.split_credentials(params["repo"])
    module.no_log_values.update(value for value in (password,) if value)
    if module.check_mode:
        there = os.path.isdir(os.path.join(params["dest"], ".git"))
        module.exit_json(changed=not there, before="", repo=public)
    git = module.get_bin_path("git", required=True)

    def run(argv, env):
        rc, out, err = module.run_command(argv, environ_update=env)
        return rc, out, err

    try:
        result = git_source.checkout(run, git, params["repo"], params["dest"], params["version"], params["recursive"],
                                     params["depth"])  # the module's environment, the credential program's entries added
    except RuntimeError as exc:
        module.fail_json(msg=str(exc), repo=public)
    module.exit_json(**result)


if __name__ == "__main__":
    main()
