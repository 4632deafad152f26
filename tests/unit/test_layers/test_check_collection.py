"""tests/bin/check-collection.py: the test layers refuse a copy of the collection that is not
the checkout's (a stale one in ~/.ansible/collections found first, or an outdated build)."""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
GUARD = os.path.join(ROOT, "tests", "bin", "check-collection.py")
FILES = ["galaxy.yml", "plugins/modules/gpu_facts.py"]


def _install(collections_path, stale=()):
    """A minimal installed copy: the listed files, with FILES.json checksums (altered for `stale`)."""
    dest = os.path.join(collections_path, "ansible_collections", "blackwell", "pytorch")
    entries = []
    for name in FILES:
        with open(os.path.join(ROOT, name), "rb") as fh:
            data = fh.read()
        if name in stale:
            data += b"\n# an older version\n"
        os.makedirs(os.path.dirname(os.path.join(dest, name)), exist_ok=True)
        with open(os.path.join(dest, name), "wb") as fh:
            fh.write(data)
        entries.append({"name": name, "ftype": "file", "chksum_type": "sha256",
                        "chksum_sha256": hashlib.sha256(data).hexdigest(), "format": 1})
    with open(os.path.join(dest, "FILES.json"), "w", encoding="utf-8") as fh:
        json.dump({"files": entries, "format": 1}, fh)


def _guard(tmp_path, collections_path, expected):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANSIBLE_")}
    env.update(HOME=str(tmp_path / "home"), ANSIBLE_COLLECTIONS_PATH=collections_path,
               ANSIBLE_LOCAL_TEMP=str(tmp_path / "tmp"))
    proc = subprocess.run([sys.executable, GUARD, expected, ROOT], env=env, cwd=ROOT,
                          capture_output=True, text=True, check=False)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(name="build")
def fixture_build(tmp_path):
    build = str(tmp_path / "build" / "collections")
    _install(build)
    return build


def test_the_build_alone_passes(tmp_path, build):
    rc, out = _guard(tmp_path, build, build)
    assert rc == 0, out
    assert "matches the checkout" in out


def test_a_stale_copy_in_home_ahead_of_the_build_fails(tmp_path, build):
    home_copy = str(tmp_path / "home" / ".ansible" / "collections")
    _install(home_copy, stale=["plugins/modules/gpu_facts.py"])
    rc, out = _guard(tmp_path, home_copy + ":" + build, build)
    assert rc == 1
    assert "loads blackwell.pytorch from " + os.path.realpath(home_copy) in out
    assert "not from the build" in out


def test_an_outdated_build_fails(tmp_path):
    build = str(tmp_path / "build" / "collections")
    _install(build, stale=["plugins/modules/gpu_facts.py"])
    rc, out = _guard(tmp_path, build, build)
    assert rc == 1
    assert "is stale (1 files differ from the checkout, e.g. plugins/modules/gpu_facts.py)" in out


def test_no_copy_at_all_fails(tmp_path):
    rc, out = _guard(tmp_path, str(tmp_path / "nothing"), str(tmp_path / "nothing"))
    assert rc == 1
    assert "finds no blackwell.pytorch" in out
