# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""docs/architecture.md's "Where a decision is made" table stays true: every file on a path exists, each path
starts at playbooks/site.yml, has at most five files (one a hop) and says how many it has."""
from __future__ import annotations

import os
import re

ROOT = os.path.join(os.path.dirname(__file__), "..", "..", "..")
HEADING = "## Where a decision is made"


def _rows():
    with open(os.path.join(ROOT, "docs", "architecture.md"), encoding="utf-8") as handle:
        text = handle.read()
    section = text[text.index(HEADING):]
    section = section[:section.index("\n## ", len(HEADING))]
    rows = [line for line in section.splitlines() if line.startswith("| ") and not line.startswith("| decision")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_three_decisions_are_on_the_page():
    assert len(_rows()) == 3


def test_every_file_on_a_path_exists_and_the_count_is_right():
    for decision, path, count in _rows():
        # one file a hop (the first a hop names; an aside in it, such as the role alone's way, is not a hop)
        files = [re.findall(r"`((?:playbooks|roles|plugins)/[^`\s]+)`", hop)[0] for hop in path.split(" -> ")]
        assert files and files[0] == "playbooks/site.yml", decision
        assert [name for name in files if not os.path.isfile(os.path.join(ROOT, name))] == [], decision
        assert len(files) == int(count) <= 5, decision
