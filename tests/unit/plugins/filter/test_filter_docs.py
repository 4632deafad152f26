# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The filters' sidecar documents say what their authors wrote: a plain scalar in a YAML flow
mapping ends at ", ", so `{description: The toolkits, sorted., type: list}` documents "The
toolkits" and adds a key "sorted." without a value. ansible-doc then shows a cut sentence."""
from __future__ import annotations

import glob
import os

import pytest
import yaml

FILTER_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "plugins", "filter")
DOCUMENTS = sorted(glob.glob(os.path.join(FILTER_DIR, "*.yml")))


def _fields(node, path=()):
    """(path, field) of every option and return value, suboptions and contains included."""
    for name, field in (node or {}).items():
        yield path + (name,), field
        for nested in ("suboptions", "contains"):
            if isinstance(field, dict) and nested in field:
                yield from _fields(field[nested], path + (name, nested))


@pytest.mark.parametrize("document", DOCUMENTS, ids=os.path.basename)
def test_no_option_or_return_description_is_cut_at_a_comma(document):
    with open(document, encoding="utf-8") as handle:
        doc = yaml.safe_load(handle)
    fields = list(_fields(doc["DOCUMENTATION"].get("options"))) + list(_fields(doc.get("RETURN")))
    assert fields
    name = os.path.basename(document)
    for path, field in fields:
        where = "%s: %s" % (name, "/".join(path))
        stray = sorted(key for key, value in field.items() if value is None)
        assert not stray, "%s: the description was cut before %r" % (where, stray)
        description = field["description"]
        text = " ".join(description) if isinstance(description, list) else description
        assert text.rstrip().endswith((".", ":", ")")), "%s: %r" % (where, text)
