"""The tools role's request to the preflight probe (`_tools_preflight`, passed as `preflight_tools` by site.yml and
rollout.yml) names only options the preflight role's argument spec has: rollout.yml's preflight validates it."""
from __future__ import annotations

import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def test_the_tools_request_keys_are_preflight_tools_options():
    request = load("roles", "tools", "vars", "main.yml")["_tools_preflight"]
    keys = set(re.findall(r"'(\w+)':", request))
    spec = load("roles", "preflight", "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]["preflight_tools"]
    assert keys and keys <= set(spec["options"]), (sorted(keys), sorted(spec["options"]))
    required = set(name for name, option in spec["options"].items() if option.get("required"))
    assert required <= keys
