# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Cut a release of the collection: `make release VERSION=x.y.z` runs this.

    python scripts/release.py VERSION [--summary TEXT] [--output-path DIR] [--date YYYY-MM-DD]

1. refuses a VERSION that is not semantic versioning (https://semver.org) or not greater than
   galaxy.yml's version, a changelog that already holds it, no changelog fragment, or a fragment
   that `antsibull-changelog lint` rejects -- before changing anything;
2. with --summary, writes the release summary as the fragment changelogs/fragments/VERSION.yml;
3. sets `version:` in galaxy.yml (on failure of the next step galaxy.yml is put back);
4. `antsibull-changelog release`: the fragments go into changelogs/changelog.yaml and the
   files of changelogs/config.yaml's `output` (CHANGELOG.md), and are removed;
5. `ansible-galaxy collection build` into DIR (default .build/release);
6. prints what it did. Committing, tagging and publishing are left to the maintainer.

Tools are taken from this interpreter's venv (the test venv, .venv-test), else from PATH.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# semver.org's grammar: MAJOR.MINOR.PATCH, optional -prerelease and +build, no leading zeros.
_NUMBER = r"(?:0|[1-9][0-9]*)"
_PRE_ID = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
SEMVER = re.compile(r"^(%s)\.(%s)\.(%s)(?:-(%s(?:\.%s)*))?(?:\+([0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*))?$"
                    % (_NUMBER, _NUMBER, _NUMBER, _PRE_ID, _PRE_ID))
_VERSION_LINE = re.compile(r"^version:[ \t]*(\S+)[ \t]*$", re.MULTILINE)


class ReleaseError(Exception):
    """What stopped the release; refusals come before any change, a failed tool after the bump
    puts galaxy.yml back."""


def parse_semver(text):
    """(major, minor, patch, prerelease identifiers) of a semantic version, or None."""
    match = SEMVER.match(text or "")
    if not match:
        return None
    prerelease = tuple(match.group(4).split(".")) if match.group(4) else ()
    return int(match.group(1)), int(match.group(2)), int(match.group(3)), prerelease


def _precedence_key(version):
    major, minor, patch, prerelease = version
    # A release ranks above its prereleases; numeric identifiers rank below alphanumeric ones.
    identifiers = tuple((0, int(part), "") if part.isdigit() else (1, 0, part) for part in prerelease)
    return (major, minor, patch, 0 if prerelease else 1, identifiers)


def is_greater(new, old):
    """Whether semantic version `new` has a higher precedence than `old` (build metadata ignored)."""
    return _precedence_key(parse_semver(new)) > _precedence_key(parse_semver(old))


def galaxy_version(text):
    """The version a galaxy.yml's text declares; ReleaseError unless exactly one `version:` line."""
    found = _VERSION_LINE.findall(text)
    if len(found) != 1:
        raise ReleaseError("galaxy.yml must have exactly one top-level 'version:' line, found %d" % len(found))
    return found[0].strip("'\"")


def bump_galaxy(text, version):
    """galaxy.yml's text with its version set to `version`, every other line as it was."""
    galaxy_version(text)
    return _VERSION_LINE.sub("version: %s" % version, text, count=1)


def check_version(new, current, released):
    """Refuse `new` unless it is semver, above galaxy.yml's `current` and not in the changelog."""
    if parse_semver(new) is None:
        raise ReleaseError("VERSION %r is not a semantic version MAJOR.MINOR.PATCH (https://semver.org), "
                           "e.g. 0.3.0" % new)
    if parse_semver(current) is None:
        raise ReleaseError("galaxy.yml's version %r is not a semantic version" % current)
    if not is_greater(new, current):
        raise ReleaseError("VERSION %s is not greater than galaxy.yml's version %s" % (new, current))
    if new in released:
        raise ReleaseError("changelogs/changelog.yaml already has a release %s" % new)


def _tool(name):
    here = os.path.join(os.path.dirname(sys.executable), name)
    found = here if os.access(here, os.X_OK) else shutil.which(name)
    if not found:
        raise ReleaseError("%s not found next to %s nor on PATH; run `make release` (it uses .venv-test)"
                           % (name, sys.executable))
    return found


def _run(root, command):
    env = dict(os.environ, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        shown = " ".join([os.path.basename(command[0])] + command[1:])
        raise ReleaseError("%s failed (rc %d):\n%s%s" % (shown, result.returncode, result.stdout, result.stderr))
    return result.stdout


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _write(path, text):
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def _fragments(root):
    directory = os.path.join(root, "changelogs", "fragments")
    return sorted(name for name in os.listdir(directory) if name.endswith((".yml", ".yaml"))) \
        if os.path.isdir(directory) else []


def _outputs(root):
    config = yaml.safe_load(_read(os.path.join(root, "changelogs", "config.yaml"))) or {}
    return [entry["file"] for entry in config.get("output") or [{"file": "CHANGELOG.rst"}]]


def release(root, version, summary=None, output_path=None, date=None):
    """Cut release `version` in the checkout at `root`; returns the lines that say what was done."""
    galaxy_path = os.path.join(root, "galaxy.yml")
    galaxy_text = _read(galaxy_path)
    current = galaxy_version(galaxy_text)
    changelog = yaml.safe_load(_read(os.path.join(root, "changelogs", "changelog.yaml"))) or {}
    check_version(version, current, {str(name) for name in (changelog.get("releases") or {})})
    summary_fragment = os.path.join(root, "changelogs", "fragments", "%s.yml" % version)
    if summary and os.path.exists(summary_fragment):
        raise ReleaseError("%s exists already; edit it instead of passing --summary" % summary_fragment)
    if not _fragments(root) and not summary:
        raise ReleaseError("changelogs/fragments/ holds no fragment: nothing to release")
    changelog_tool, galaxy_tool = _tool("antsibull-changelog"), _tool("ansible-galaxy")
    _run(root, [changelog_tool, "lint"])

    if summary:
        _write(summary_fragment, yaml.safe_dump({"release_summary": summary}, explicit_start=True,
                                                sort_keys=False, width=100))
    fragments = _fragments(root)
    _write(galaxy_path, bump_galaxy(galaxy_text, version))
    command = [changelog_tool, "release", "--version", version] + (["--date", date] if date else [])
    try:
        _run(root, command)
    except ReleaseError:
        _write(galaxy_path, galaxy_text)
        if summary:
            os.remove(summary_fragment)
        raise

    output = os.path.abspath(output_path or os.path.join(root, ".build", "release"))
    os.makedirs(output, exist_ok=True)
    _run(root, [galaxy_tool, "collection", "build", "--force", "--output-path", output])
    namespace, name = (yaml.safe_load(galaxy_text)[key] for key in ("namespace", "name"))
    tarball = os.path.join(output, "%s-%s-%s.tar.gz" % (namespace, name, version))
    if not os.path.isfile(tarball):
        raise ReleaseError("ansible-galaxy built no %s" % tarball)
    return [
        "release %s.%s %s" % (namespace, name, version),
        "  galaxy.yml: version %s -> %s" % (current, version),
        "  changelog: %d fragment(s) -> changelogs/changelog.yaml, %s; fragments removed"
        % (len(fragments), ", ".join(_outputs(root))),
        "  tarball: %s (%d KiB)" % (tarball, os.path.getsize(tarball) // 1024),
        "next: review the diff, commit it, tag %s, publish the tarball" % version,
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("version", help="the new version, semver and greater than galaxy.yml's")
    parser.add_argument("--summary", help="release summary, written as changelogs/fragments/VERSION.yml")
    parser.add_argument("--output-path", help="where the tarball goes (default .build/release)")
    parser.add_argument("--date", help="release date for the changelog (default today)")
    parser.add_argument("--root", default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    try:
        lines = release(args.root, args.version, args.summary, args.output_path, args.date)
    except ReleaseError as error:
        print("release %s: %s" % (args.version, error), file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
