"""The tools role's request to the preflight probe (`_tools_preflight`, the tools stage's `preflight`, passed as
`preflight_tools` by site.yml and rollout.yml) names only options the preflight role's argument spec has: rollout.yml's
preflight validates it."""
from __future__ import annotations

import os

import yaml

from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.tools import decide

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def load(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return yaml.safe_load(handle)


def test_the_tools_request_keys_are_preflight_tools_options():
    assert load("roles", "tools", "vars", "main.yml")["_tools_preflight"] == "{{ _tools_stage.preflight }}"
    keys = set(decide("/opt/tools", ["nvidia-ml-py==13.615.71"])["preflight"])  # no pynvml here: the venv is wanted
    spec = load("roles", "preflight", "meta", "argument_specs.yml")["argument_specs"]["main"]["options"]["preflight_tools"]
    assert keys and keys <= set(spec["options"]), (sorted(keys), sorted(spec["options"]))
    required = set(name for name, option in spec["options"].items() if option.get("required"))
    assert required <= keys
