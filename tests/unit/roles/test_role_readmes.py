# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Every role under roles/ has a README whose variables section matches its argument_specs."""
from __future__ import annotations

import importlib.util
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
_spec = importlib.util.spec_from_file_location("role_readme", os.path.join(ROOT, "scripts", "role-readme.py"))
role_readme = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(role_readme)

SPECS = {"argument_specs": {
    "main": {"short_description": "Does C(one) thing",
             "description": ["First paragraph with M(blackwell.pytorch.gpu_facts).", "Second."],
             "options": {
                 "demo_list": {"type": "list", "elements": "str", "default": ["a==1", "b"],
                               "description": "A list | with a pipe."},
                 "demo_mode": {"type": "str", "default": "auto", "choices": ["auto", "off"],
                               "description": "Mode."},
                 "demo_empty": {"type": "str", "default": "", "description": "Empty."},
                 "demo_needed": {"type": "path", "required": True, "description": "Needed."}}},
    "repo": {"short_description": "Only the repository"}}}


def test_every_role_is_covered():
    names = sorted(name for name in os.listdir(os.path.join(ROOT, "roles"))
                   if os.path.isdir(os.path.join(ROOT, "roles", name)))
    assert role_readme.roles() == names


@pytest.mark.parametrize("role", role_readme.roles())
def test_readme_matches_argument_specs(role):
    path, current, wanted = role_readme.expected(role)
    assert current is not None, "%s has no README.md: run python3 scripts/role-readme.py" % role
    assert current == wanted, "%s is out of step with meta/argument_specs.yml: run python3 scripts/role-readme.py" % path


def test_section_renders_types_defaults_choices_and_markup():
    text = role_readme.section(SPECS)
    assert "### Entry point `main`: Does `one` thing" in text
    assert "First paragraph with `blackwell.pytorch.gpu_facts`. Second." in text
    assert "| `demo_empty` | str | `\"\"` | Empty. |" in text
    assert "| `demo_list` | list of str | `[a==1, b]` | A list \\| with a pipe. |" in text
    assert "| `demo_mode` | str | `auto` | Mode. One of: `auto`, `off`. |" in text
    assert "| `demo_needed` | path | required | Needed. |" in text
    assert "### Entry point `repo`: Only the repository\n\nNo variables." in text
    assert text.index("`main`") < text.index("`repo`")


def test_render_keeps_hand_written_text_and_replaces_only_the_section():
    old = "# title\n\nintro\n\n## Variables\n\n| stale |\n\n## Support\n\nDebian\n"
    first = role_readme.render("demo", old, SPECS)
    assert first.startswith("# title\n\nintro\n\n" + role_readme.BEGIN)
    assert "| stale |" not in first and first.endswith("\n## Support\n\nDebian\n")
    edited = first.replace("No variables.", "hand edit")
    assert role_readme.render("demo", edited, SPECS) == first


def test_render_creates_a_readme():
    text = role_readme.render("demo", None, SPECS)
    assert text.startswith("# blackwell.pytorch.demo\n\nDoes `one` thing.\n\n" + role_readme.BEGIN)


def test_check_reports_drift_and_write_fixes_it(tmp_path, capsys):
    role = tmp_path / "roles" / "demo"
    (role / "meta").mkdir(parents=True)
    (role / "meta" / "argument_specs.yml").write_text(
        "argument_specs:\n  main:\n    short_description: Demo\n    options:\n"
        "      demo_x: {type: int, default: 1, description: X.}\n")
    assert role_readme.main(["--check"], root=str(tmp_path)) == 1
    assert "demo" in capsys.readouterr().out
    assert role_readme.main([], root=str(tmp_path)) == 0
    assert "| `demo_x` | int | `1` | X. |" in (role / "README.md").read_text()
    assert role_readme.main(["--check"], root=str(tmp_path)) == 0
    (role / "meta" / "argument_specs.yml").write_text(
        (role / "meta" / "argument_specs.yml").read_text().replace("default: 1", "default: 2"))
    assert role_readme.main(["--check"], root=str(tmp_path)) == 1
