"""An installed copy of this checkout's collection, and a one-byte change to one of its files:
what the tests of the verification code's digest change and read."""
from __future__ import annotations

import os
import shutil

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def installed_copy(target, names=("plugins", "roles", "meta", "playbooks")):
    """Copy `names` and galaxy.yml of the checkout to `target` (a pathlib.Path) as an install lays them out."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in names:
        shutil.copytree(os.path.join(ROOT, name), str(target / name), ignore=ignore)
    shutil.copy(os.path.join(ROOT, "galaxy.yml"), str(target / "galaxy.yml"))
    return target


def change_one_byte(path):
    """The first 'c' of the licence header's 'contributors' becomes 'C': one byte, a comment."""
    content = path.read_bytes()
    index = content.index(b"contributors")
    path.write_bytes(content[:index] + b"C" + content[index + 1:])
