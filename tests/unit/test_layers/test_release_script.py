# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""scripts/release.py (`make release VERSION=x.y.z`), run for real against a copy of the checkout:
refusals leave the copy as it was; a release bumps galaxy.yml, moves the fragments into the
changelog and builds the tarball named for the version."""
from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SCRIPT = os.path.join(ROOT, "scripts", "release.py")
_spec = importlib.util.spec_from_file_location("release", SCRIPT)
release = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(release)
# Local state of a checkout that is not part of the collection's sources.
_LOCAL = shutil.ignore_patterns(".git", ".venv", ".venv-*", ".build", ".cache", ".whl", "output",
                                "__pycache__", ".pytest_cache", "*.tar.gz", ".plugin-cache.yaml")


def _galaxy_version(root):
    with open(os.path.join(root, "galaxy.yml"), encoding="utf-8") as handle:
        return yaml.safe_load(handle)["version"]


@pytest.fixture()
def checkout(tmp_path):
    copy = tmp_path / "checkout"
    shutil.copytree(ROOT, copy, ignore=_LOCAL, symlinks=True)
    return str(copy)


def _release(root, *args):
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update(HOME=os.path.join(root, ".build", "home"), ANSIBLE_LOCAL_TEMP=os.path.join(root, ".build", "tmp"))
    return subprocess.run([sys.executable, SCRIPT, "--root", root] + list(args), env=env, cwd=root,
                          capture_output=True, text=True, check=False, timeout=300)


def _tree(root):
    """Every file's path and content under the copy (the build directory aside)."""
    found = {}
    for base, dirs, files in os.walk(root):
        dirs[:] = [name for name in dirs if name != ".build"]
        for name in files:
            path = os.path.join(base, name)
            with open(path, "rb") as handle:
                found[os.path.relpath(path, root)] = handle.read()
    return found


@pytest.mark.parametrize("text,expected", [
    ("0.3.0", (0, 3, 0, ())),
    ("10.20.30", (10, 20, 30, ())),
    ("1.0.0-rc.1+build.5", (1, 0, 0, ("rc", "1"))),
    ("1.0.0-alpha-a.b-c", (1, 0, 0, ("alpha-a", "b-c"))),
    ("0.3", None), ("v0.3.0", None), ("0.3.0.1", None), ("01.2.3", None), ("1.2.3-01", None),
    ("1.2.3-", None), ("1.2.3+", None), ("", None), ("0.3.0 ", None),
])
def test_parse_semver_accepts_only_semantic_versions(text, expected):
    assert release.parse_semver(text) == expected


def test_is_greater_follows_semver_precedence():
    # semver.org section 11's example order, then build metadata, which has no precedence.
    order = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta", "1.0.0-beta.2",
             "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0", "1.0.1", "1.1.0", "2.0.0", "10.0.0"]
    for lower, higher in zip(order, order[1:]):
        assert release.is_greater(higher, lower), (higher, lower)
        assert not release.is_greater(lower, higher), (lower, higher)
    assert not release.is_greater("1.0.0+build.2", "1.0.0")


def test_bump_galaxy_changes_only_the_version_line():
    text = "---\nnamespace: blackwell\n# version: kept comment\nversion: 0.2.0\nname: pytorch\n"
    assert release.bump_galaxy(text, "0.3.0") == text.replace("version: 0.2.0", "version: 0.3.0")
    with pytest.raises(release.ReleaseError, match="exactly one"):
        release.bump_galaxy("namespace: blackwell\n", "0.3.0")


@pytest.mark.parametrize("version,message", [
    ("0.3", "is not a semantic version"),
    ("v0.3.0", "is not a semantic version"),
    ("0.2.0", "is not greater than galaxy.yml's version"),
    ("0.1.9", "is not greater than galaxy.yml's version"),
    ("0.2.0-rc.1", "is not greater than galaxy.yml's version"),
])
def test_release_refuses_a_version_not_semver_or_not_greater_and_changes_nothing(checkout, version, message):
    with open(os.path.join(checkout, "galaxy.yml"), encoding="utf-8") as handle:
        galaxy = handle.read()
    with open(os.path.join(checkout, "galaxy.yml"), "w", encoding="utf-8") as handle:
        handle.write(release.bump_galaxy(galaxy, "0.2.0"))
    before = _tree(checkout)
    proc = _release(checkout, version)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert message in proc.stderr
    assert _tree(checkout) == before
    assert not os.path.exists(os.path.join(checkout, ".build", "release"))


def test_release_refuses_a_version_the_changelog_already_has(checkout):
    with open(os.path.join(checkout, "galaxy.yml"), encoding="utf-8") as handle:
        galaxy = handle.read()
    with open(os.path.join(checkout, "galaxy.yml"), "w", encoding="utf-8") as handle:
        handle.write(release.bump_galaxy(galaxy, "0.1.0"))
    before = _tree(checkout)
    proc = _release(checkout, "0.2.0")
    assert proc.returncode == 1
    assert "changelogs/changelog.yaml already has a release 0.2.0" in proc.stderr
    assert _tree(checkout) == before


def test_release_bumps_galaxy_writes_the_changelog_and_builds_the_versioned_tarball(checkout):
    current = _galaxy_version(checkout)
    major, minor = release.parse_semver(current)[:2]
    version = "%d.%d.0" % (major, minor + 1)
    fragments_dir = os.path.join(checkout, "changelogs", "fragments")
    with open(os.path.join(fragments_dir, "release-test-change.yml"), "w", encoding="utf-8") as handle:
        handle.write("---\nbugfixes:\n  - gpu_facts - a change recorded only by this test.\n")
    fragments = sorted(name for name in os.listdir(fragments_dir) if name.endswith(".yml"))

    proc = _release(checkout, version, "--summary", "Release cut by the test, with a comma.", "--date", "2026-12-01")
    assert proc.returncode == 0, proc.stdout + proc.stderr

    assert _galaxy_version(checkout) == version
    with open(os.path.join(checkout, "changelogs", "changelog.yaml"), encoding="utf-8") as handle:
        releases = yaml.safe_load(handle)["releases"]
    entry = releases[version]
    assert entry["release_date"] == "2026-12-01"
    assert entry["changes"]["release_summary"] == "Release cut by the test, with a comma."
    assert "gpu_facts - a change recorded only by this test." in entry["changes"]["bugfixes"]
    assert sorted(entry["fragments"]) == sorted(fragments + ["%s.yml" % version])
    assert current in releases
    assert not [name for name in os.listdir(fragments_dir) if name.endswith(".yml")]
    with open(os.path.join(checkout, "CHANGELOG.md"), encoding="utf-8") as handle:
        changelog = handle.read()
    assert "## v%s" % version.replace(".", "\\.") in changelog
    assert changelog.index("v%s" % version.replace(".", "\\.")) < changelog.index("v%s" % current.replace(".", "\\."))

    tarball = os.path.join(checkout, ".build", "release", "blackwell-pytorch-%s.tar.gz" % version)
    assert os.path.isfile(tarball)
    with tarfile.open(tarball) as archive:
        manifest = json.load(archive.extractfile("MANIFEST.json"))
        names = archive.getnames()
    assert manifest["collection_info"]["version"] == version
    assert "CHANGELOG.md" in names and "changelogs/changelog.yaml" in names
    assert "galaxy.yml: version %s -> %s" % (current, version) in proc.stdout
    assert "%d fragment(s)" % (len(fragments) + 1) in proc.stdout
    assert "tarball: %s" % tarball in proc.stdout

    again = _release(checkout, version)
    assert again.returncode == 1 and "is not greater than galaxy.yml's version %s" % version in again.stderr
