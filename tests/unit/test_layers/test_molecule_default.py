"""The molecule `default` scenario syntax-checks every playbook the collection ships."""
from __future__ import annotations

import os

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def test_default_scenario_imports_site_and_every_shipped_playbook():
    with open(os.path.join(ROOT, "extensions", "molecule", "default", "converge.yml")) as handle:
        imported = [play["ansible.builtin.import_playbook"] for play in yaml.safe_load(handle)]
    shipped = sorted(name[:-4] for name in os.listdir(os.path.join(ROOT, "playbooks"))
                     if name.endswith(".yml") and name != "site.yml")
    assert imported[0] == "../../../site.yml"
    assert sorted(imported[1:]) == ["blackwell.pytorch." + name for name in shipped]
