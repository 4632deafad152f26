# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters over ansible_facts.mounts: which mount holds a path, and its free space."""
from __future__ import annotations

DOCUMENTATION = r"""
name: mount_for
short_description: The mount (from ansible_facts.mounts) that holds a path
version_added: 0.1.0
description:
  - Returns the entry of C(ansible_facts.mounts) whose mount point is the longest prefix of the
    path. The path need not exist yet (a venv root that a later role creates).
  - Returns an empty dict when no mount matches.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
positional: mounts
options:
  _input:
    description: An absolute path.
    type: path
    required: true
  mounts:
    description: The host's C(ansible_facts.mounts).
    type: list
    elements: dict
    required: true
"""

EXAMPLES = r"""
- name: Free GiB where the venvs go
  ansible.builtin.debug:
    msg: "{{ ('/opt/pytorch' | blackwell.pytorch.mount_for(ansible_facts['mounts'])).size_available / 2**30 }}"
"""

RETURN = r"""
_value:
  description: The mount entry (mount, device, fstype, size_total, size_available, ...).
  type: dict
"""

import posixpath

from ansible.errors import AnsibleFilterError


def mount_for(path, mounts):
    """The mount entry whose mount point is the longest prefix of `path`."""
    if not isinstance(path, str) or not path.startswith("/"):
        raise AnsibleFilterError("mount_for needs an absolute path, got %r" % (path,))
    path = posixpath.normpath(path)
    best = {}
    for entry in mounts or []:
        point = entry.get("mount", "")
        prefix = point.rstrip("/") + "/"
        if (path == point or path.startswith(prefix) or point == "/") and \
                len(point) > len(best.get("mount", "")) and entry.get("size_total"):
            best = entry
    return best


class FilterModule(object):
    def filters(self):
        return {"mount_for": mount_for}
