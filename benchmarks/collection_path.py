"""Make this checkout importable as ansible_collections.blackwell.pytorch (no Ansible needed).

The benchmark scripts run the modules' own module_utils code on a GPU machine where
Ansible is not installed; module_utils import each other by their collection names.
"""
from __future__ import annotations

import os
import sys
import tempfile


def import_collection():
    """Link this checkout into a temporary ansible_collections tree and put it on sys.path."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    tree = os.path.join(tempfile.gettempdir(), "blackwell-ac")
    link = os.path.join(tree, "ansible_collections", "blackwell", "pytorch")
    os.makedirs(os.path.dirname(link), exist_ok=True)
    if os.path.realpath(link) != root:
        if os.path.islink(link):
            os.unlink(link)
        os.symlink(root, link)
    sys.path.insert(0, tree)
