"""check-collection.py EXPECTED_PATH [CHECKOUT] — the collection the tests see is the checkout's.

Run with the test venv's Python and the environment a test layer gives Ansible. Fails (exit 1,
one line saying why) unless Ansible, resolving `blackwell.pytorch` the way it does for a play,
loads it from EXPECTED_PATH (a collections path) and every file that copy lists in FILES.json
has the checksum of the same file in CHECKOUT (default: the current directory). A copy in
~/.ansible/collections (or anywhere else) found first, or a stale install, is named.
"""
from __future__ import annotations

import hashlib
import json
import os
import sys

from ansible import constants as C
from ansible.utils.collection_loader._collection_finder import _AnsibleCollectionFinder

NAME = "blackwell.pytorch"


def loaded_from() -> str:
    finder = _AnsibleCollectionFinder(paths=C.COLLECTIONS_PATHS, scan_sys_paths=C.COLLECTIONS_SCAN_SYS_PATH)
    finder._install()  # pylint: disable=protected-access
    try:
        import ansible_collections.blackwell.pytorch as coll  # pylint: disable=import-outside-toplevel
    except ImportError:
        return ""
    return os.path.realpath(list(coll.__path__)[0])


def stale_files(installed: str, checkout: str) -> list[str]:
    with open(os.path.join(installed, "FILES.json"), encoding="utf-8") as fh:
        files = json.load(fh)["files"]
    stale = []
    for entry in files:
        if entry.get("ftype") != "file" or not entry.get("chksum_sha256"):
            continue
        src = os.path.join(checkout, entry["name"])
        if not os.path.isfile(src):
            stale.append(entry["name"] + " (not in the checkout)")
            continue
        with open(src, "rb") as fh:
            if hashlib.sha256(fh.read()).hexdigest() != entry["chksum_sha256"]:
                stale.append(entry["name"])
    return stale


def main(argv: list[str]) -> int:
    expected = os.path.realpath(os.path.join(argv[0], "ansible_collections", "blackwell", "pytorch"))
    checkout = argv[1] if len(argv) > 1 else os.getcwd()
    found = loaded_from()
    if not found:
        print("check-collection: Ansible finds no %s on %s" % (NAME, ":".join(C.COLLECTIONS_PATHS)))
        return 1
    if found != expected:
        print("check-collection: Ansible loads %s from %s, not from the build at %s: "
              "remove that copy or drop its path from ANSIBLE_COLLECTIONS_PATH" % (NAME, found, expected))
        return 1
    stale = stale_files(found, checkout)
    if stale:
        print("check-collection: %s at %s is stale (%d files differ from the checkout, e.g. %s): "
              "reinstall it with scripts/install-collection.sh" % (NAME, found, len(stale), ", ".join(stale[:3])))
        return 1
    print("check-collection: %s loads from %s and matches the checkout" % (NAME, found))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
