# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The YAML examples of README.md and every role's README: each parses, every role README shows a
complete play that uses its role by FQCN, and every play passes `ansible-playbook --syntax-check`
against the collection built from this checkout."""
from __future__ import annotations

import glob
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
READMES = [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "roles", "*", "README.md")))
_BLOCK = re.compile(r"^```ya?ml[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
BIN = os.path.dirname(sys.executable)


def _blocks(path):
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    return [(text.count("\n", 0, match.start()) + 1, match.group(1)) for match in _BLOCK.finditer(text)]


BLOCKS = [(os.path.relpath(path, ROOT), line, block) for path in READMES for line, block in _blocks(path)]


def _is_playbook(data):
    return isinstance(data, list) and bool(data) and all(isinstance(play, dict) and "hosts" in play for play in data)


def _roles_used(data):
    """The roles a playbook uses: in `roles:`, and through include_role tasks (how a private role is used)."""
    listed = {role["role"] if isinstance(role, dict) else role for play in data for role in play.get("roles") or []}
    return listed | {task["ansible.builtin.include_role"]["name"] for play in data for task in play.get("tasks") or []
                     if isinstance(task, dict) and "ansible.builtin.include_role" in task}


@pytest.mark.parametrize("readme,line,block", BLOCKS, ids=["%s:%d" % (entry[0], entry[1]) for entry in BLOCKS])
def test_every_yaml_example_in_the_readmes_parses(readme, line, block):
    assert yaml.safe_load(block) is not None, "%s:%d: empty YAML block" % (readme, line)


@pytest.mark.parametrize("role", sorted(os.path.basename(os.path.dirname(path)) for path in READMES[1:]))
def test_every_role_readme_has_a_named_play_using_the_role_by_fqcn(role):
    plays = [yaml.safe_load(entry[2]) for entry in BLOCKS if entry[0] == "roles/%s/README.md" % role]
    playbooks = [data for data in plays if _is_playbook(data)]
    using = [data for data in playbooks if "blackwell.pytorch.%s" % role in _roles_used(data)]
    assert using, "roles/%s/README.md has no ```yaml play with `role: blackwell.pytorch.%s`" % (role, role)
    for data in using:
        assert all(play.get("name") for play in data), "every example play is named"
        assert all(name.startswith("blackwell.pytorch.") for name in _roles_used(data)), "roles by FQCN"
    with open(os.path.join(ROOT, "roles", role, "defaults", "main.yml"), encoding="utf-8") as handle:
        defaults = set(yaml.safe_load(handle) or {})
    with open(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml"), encoding="utf-8") as handle:
        required = {name for spec in yaml.safe_load(handle)["argument_specs"].values()
                    for name, option in (spec.get("options") or {}).items() if option.get("required")}
    given = {name for data in using for play in data for entry in play.get("roles") or []
             if isinstance(entry, dict) and entry.get("role") == "blackwell.pytorch.%s" % role
             for name in entry.get("vars") or {}}
    given |= {name for data in using for play in data for task in play.get("tasks") or [] if isinstance(task, dict)
              and (task.get("ansible.builtin.include_role") or {}).get("name") == "blackwell.pytorch.%s" % role
              for name in task.get("vars") or {}}
    assert given, "the example sets the role's main variables"
    assert given <= defaults | required, "variables the role does not have: %s" % sorted(given - defaults - required)


@pytest.fixture(scope="module")
def collections(tmp_path_factory):
    """The collection built from this checkout and installed into a fresh collections path."""
    work = tmp_path_factory.mktemp("readme-examples")
    dist, path = str(work / "dist"), str(work / "collections")
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "build", "--output-path", dist, ROOT],
                   check=True, capture_output=True, cwd=str(work))
    tarball = glob.glob(os.path.join(dist, "blackwell-pytorch-*.tar.gz"))[0]
    subprocess.run([os.path.join(BIN, "ansible-galaxy"), "collection", "install", "--offline", "-p", path, tarball],
                   check=True, capture_output=True, cwd=str(work), env=_env(work, path))
    return work, path


def _env(work, collections_path):
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update(HOME=str(work), ANSIBLE_LOCAL_TEMP=str(work / "tmp"), ANSIBLE_COLLECTIONS_PATH=collections_path,
               ANSIBLE_NOCOLOR="1")
    return env


def test_every_example_play_passes_ansible_playbook_syntax_check(collections):
    work, path = collections
    playbooks = []
    for readme, line, block in BLOCKS:
        if _is_playbook(yaml.safe_load(block)):
            name = work / ("%s_%d.yml" % (readme.replace("/", "_").replace(".md", ""), line))
            name.write_text("---\n" + block, encoding="utf-8")
            playbooks.append(str(name))
    assert len(playbooks) >= 8
    proc = subprocess.run([os.path.join(BIN, "ansible-playbook"), "--syntax-check", "-i", "localhost,"] + playbooks,
                          capture_output=True, text=True, cwd=str(work), env=_env(work, path), check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.count("playbook: ") == len(playbooks), proc.stdout
