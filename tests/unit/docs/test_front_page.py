# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""README.md and the role READMEs say what the collection is and does, and stay in step with the files they
describe: the modules, the molecule scenarios, what `make test` installs, the site scenario's settings (the
"try it without a GPU" recipe), the stage tags `site.yml --list-tags` shows, and each role's map of its options.
"""
from __future__ import annotations

import glob
import importlib.util
import os
import re
import subprocess
import sys

import pytest
import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
README = os.path.join(ROOT, "README.md")
COLLECTIONS = os.path.join(ROOT, ".build", "unit")  # tests/unit/conftest.py links the checkout there
PLAYBOOK_BIN = os.path.join(os.path.dirname(sys.executable), "ansible-playbook")
_SPEC = importlib.util.spec_from_file_location("role_readme", os.path.join(ROOT, "scripts", "role-readme.py"))
role_readme = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(role_readme)
# The address galaxy.yml and the README pointed at; no such repository exists.
DEAD_HOST = "github.com/" + "blackwell-pytorch"
# The site scenario's settings that stand in for the internet (its wheelhouse and index are built offline by
# tests/bin/molecule-prep.sh); the recipe leaves them out and says so.
OFFLINE_STAND_INS = {"blackwell_tools_wheelhouse", "pytorch_channel_base_url"}
# Entry points and options that site.yml, rollout.yml or another role set: marked internal in ansible-doc.
INTERNAL_ENTRY_POINTS = {
    "_common": {"cuda_check"},
    "cuda_toolkit": {"site", "settings"},
    "fleet_report": {"report", "preflight"},
    "nvidia_driver": {"site", "settings"},
    "pytorch": {"site", "settings", "wheelhouse_use"},
    "tools": {"settings"},
}
INTERNAL_OPTIONS = {"preflight_health", "preflight_tools", "preflight_driver", "preflight_toolkit", "preflight_pytorch",
                    "pytorch_wheelhouse_from"}
# What site.yml's stages are tagged with (playbooks/tasks/site_stages.yml and the roles' own tags).
STAGE_TAGS = {"preflight", "tools", "gpu_facts", "nvidia_driver", "cuda_toolkit", "container_toolkit", "pytorch",
              "verify"}


def _read(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read()


def _section(text, heading):
    """The text under the Markdown heading `heading` (a full heading line), up to the next heading of its level
    or above."""
    level = len(heading) - len(heading.lstrip("#"))
    lines = text.splitlines()
    assert heading in lines, "no heading %r" % heading
    start = lines.index(heading) + 1
    end = next((index for index in range(start, len(lines))
                if re.match(r"^#{1,%d} " % level, lines[index])), len(lines))
    return "\n".join(lines[start:end])


def _first_screen(text):
    """The README up to its first `## ` heading: what a reader sees first."""
    return text.split("\n## ", 1)[0]


def _specs(role):
    return yaml.safe_load(_read(os.path.join(ROOT, "roles", role, "meta", "argument_specs.yml")))["argument_specs"]


def _roles():
    return sorted(os.path.basename(os.path.dirname(os.path.dirname(path)))
                  for path in glob.glob(os.path.join(ROOT, "roles", "*", "meta", "argument_specs.yml")))


def test_the_readme_module_table_lists_every_module():
    modules = {os.path.basename(path)[:-3] for path in glob.glob(os.path.join(ROOT, "plugins", "modules", "*.py"))
               if not os.path.basename(path).startswith("_")}
    rows = re.findall(r"^\| `([a-z_]+)` \| (module|action) \|", _read(README), re.M)
    listed = [name for name, _kind in rows]
    assert len(listed) == len(set(listed)), listed
    assert set(listed) == modules, {"missing": sorted(modules - set(listed)), "not a module": sorted(set(listed) - modules)}


def test_no_tracked_file_points_at_a_repository_that_does_not_exist():
    """Only galaxy.yml's `repository` may still name it: Galaxy's importer refuses a collection without one."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    found = []
    for name in tracked.decode("utf-8").split("\0"):
        path = os.path.join(ROOT, name)
        if not name or not os.path.isfile(path) or name.endswith((".png", ".gz", ".whl")):
            continue
        with open(path, "rb") as handle:
            data = handle.read()
        for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
            if DEAD_HOST in line and not (name == "galaxy.yml" and line.startswith("repository: ")):
                found.append("%s:%d" % (name, number))
    assert not found, found


def test_galaxy_yml_keeps_only_the_address_galaxy_requires():
    galaxy = yaml.safe_load(_read(os.path.join(ROOT, "galaxy.yml")))
    assert galaxy["repository"]  # galaxy-importer: "'repository' is required"
    for key in ("documentation", "homepage", "issues"):
        assert key not in galaxy, key


def test_the_readme_names_every_package_make_test_installs():
    bootstrap = _read(os.path.join(ROOT, "tests", "bin", "bootstrap.sh"))
    packages = re.search(r"^pkgs=\(([^)]*)\)", bootstrap, re.M).group(1).split()
    assert len(packages) >= 5, packages
    section = _section(_read(README), "### What `make test` installs")
    named = set(re.findall(r"`([^`]+)`", section))
    assert [name for name in packages if name not in named] == [], section
    build = _read(os.path.join(ROOT, "tests", "fixtures", "images", "build.sh"))
    images = set(re.findall(r"^#\s+(localhost/blackwell-[a-z0-9-]+)", build, re.M))
    images = {re.sub(r"debianNN", "debian12", name) for name in images}
    for name in sorted(images | {".venv-test", ".build/torch-cpu"}):
        assert name in section, name


def test_the_readme_molecule_list_is_the_scenario_directories():
    scenarios = sorted(os.path.basename(os.path.dirname(path))
                       for path in glob.glob(os.path.join(ROOT, "extensions", "molecule", "*", "molecule.yml")))
    section = _section(_read(README), "### Molecule scenarios")
    listed = re.findall(r"^- `([a-z_]+)`", section, re.M)
    assert listed == scenarios


def test_the_readme_holds_no_hand_counted_reliability_figures():
    text = _read(README)
    assert not re.findall(r"\b\d+ (?:rows?|passing)\b", text)
    assert not re.search(r"\d", _section(text, "## Reliability"))


def test_the_readme_first_screen_says_what_make_site_changes_and_how_to_preview_it():
    screen = " ".join(_first_screen(_read(README)).split())
    assert 'make site ARGS="--check --diff"' in screen
    pytorch = _specs("pytorch")["main"]["options"]
    tools = yaml.safe_load(_read(os.path.join(ROOT, "roles", "tools", "defaults", "main.yml")))
    verify = yaml.safe_load(_read(os.path.join(ROOT, "roles", "verify", "defaults", "main.yml")))
    for wanted in (pytorch["pytorch_root"]["default"], tools["blackwell_tools_venv"], verify["verify_results_dir"],
                   "/usr/local/cuda", "/etc/apt/sources.list.d", "DKMS", "nouveau", "reboot"):
        assert wanted in screen, wanted


def test_the_readme_verify_example_passes_the_stack_as_verify_python():
    text = _read(README)
    assert "-e verify_python=/opt/torch/.venv/bin/python3" in text
    assert "playbooks/verify.yml -i localhost, -c local -e pytorch_python" not in text


def _recipe():
    section = _section(_read(README), "## Try it without a GPU")
    blocks = re.findall(r"^```ya?ml[ \t]*\n(.*?)^```[ \t]*$", section, re.M | re.S)
    assert len(blocks) == 1, section
    return section, yaml.safe_load(blocks[0])


def test_the_try_without_a_gpu_recipe_is_what_the_site_scenario_runs():
    scenario = yaml.safe_load(_read(os.path.join(ROOT, "extensions", "molecule", "site", "molecule.yml")))
    settings = scenario["provisioner"]["inventory"]["group_vars"]["all"]
    section, recipe = _recipe()
    assert recipe == {key: value for key, value in settings.items() if key not in OFFLINE_STAND_INS}
    for key in sorted(OFFLINE_STAND_INS & set(settings)):
        assert "`%s`" % key in section, key
    assert "extensions/molecule/site" in section


def _list_tags():
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANSIBLE_")}
    env.update(ANSIBLE_COLLECTIONS_PATH=COLLECTIONS, ANSIBLE_NOCOLOR="1")
    done = subprocess.run([PLAYBOOK_BIN, os.path.join(ROOT, "playbooks", "site.yml"), "-i", "localhost,",
                           "--list-tags"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    listed = re.search(r"TASK TAGS: \[([^\]]*)\]", done.stdout).group(1)
    return {tag.strip() for tag in listed.split(",") if tag.strip()}


def test_site_list_tags_shows_the_stage_tags():
    tags = _list_tags()
    assert STAGE_TAGS <= tags, sorted(STAGE_TAGS - tags)


def test_the_readme_names_the_tags_site_list_tags_shows():
    section = _section(_read(README), "### Tags")
    for tag in sorted(_list_tags() - {"always", "never"}):
        assert "`%s`" % tag in section, tag


@pytest.mark.parametrize("role", sorted(INTERNAL_ENTRY_POINTS))
def test_internal_entry_points_say_so_in_ansible_doc(role):
    specs = _specs(role)
    for name, spec in specs.items():
        internal = spec["short_description"].startswith("Internal: ")
        assert internal == (name in INTERNAL_ENTRY_POINTS[role]), (role, name, spec["short_description"])


def test_plumbing_options_say_they_are_internal():
    seen = set()
    for role in _roles():
        for entry, spec in _specs(role).items():
            for name, option in (spec.get("options") or {}).items():
                description = option.get("description")
                first = description[0] if isinstance(description, list) else description
                if name in INTERNAL_OPTIONS:
                    seen.add(name)
                    assert first.startswith("Internal"), (role, entry, name, first)
    assert seen == INTERNAL_OPTIONS


def _most_users_set(role):
    text = _read(os.path.join(ROOT, "roles", role, "README.md"))
    headings = re.findall(r"^## .*$", text, re.M)
    return text, headings


@pytest.mark.parametrize("role", _roles())
def test_every_role_readme_opens_with_the_options_most_users_set(role):
    text, headings = _most_users_set(role)
    if role == "_common":
        assert text.split("\n\n")[1].startswith("Internal:"), text[:300]
        return
    assert headings[0] == "## Most users set", headings
    rows = re.findall(r"^\| `([a-z_]+)` \| ((?:[^|\\]|\\.)*) \|", _section(text, "## Most users set"), re.M)
    assert 2 <= len(rows) <= 8, rows
    public = {}
    for entry, spec in _specs(role).items():
        if not spec["short_description"].startswith("Internal: "):
            public.update(spec.get("options") or {})
    for name, default in rows:
        assert name in public and name not in INTERNAL_OPTIONS, (role, name)
        wanted = role_readme._cell(role_readme._default(public[name]))  # pylint: disable=protected-access
        assert default.strip() == wanted, (role, name, default, wanted)


@pytest.mark.parametrize("path", ["README.md", "roles/pytorch/README.md"])
def test_the_readmes_describe_how_the_stack_is_planned_and_installed_today(path):
    text = " ".join(_read(os.path.join(ROOT, path)).split())
    assert "version matrix" not in text
    assert "one pip call" not in text.lower()


def test_the_readme_describes_what_the_user_gets_not_how_tasks_were_counted():
    text = " ".join(_read(README).split())
    for phrase in ("pays one task", "costs no task", "costs its entry point's one task"):
        assert phrase not in text, phrase
