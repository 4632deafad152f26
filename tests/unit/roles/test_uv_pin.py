# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The uv the tests run is the uv the tools role installs: one pin, in the role's defaults, its argument
spec, the test requirements and the air-gap guide."""
from __future__ import annotations

import os
import re

import yaml

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def read(*parts):
    with open(os.path.join(ROOT, *parts)) as handle:
        return handle.read()


def test_one_uv_pin_everywhere():
    pin = yaml.safe_load(read("roles", "tools", "defaults", "main.yml"))["blackwell_tools_uv_package"]
    assert re.match(r"^uv==\d+\.\d+\.\d+$", pin), pin
    spec = yaml.safe_load(read("roles", "tools", "meta", "argument_specs.yml"))
    assert spec["argument_specs"]["main"]["options"]["blackwell_tools_uv_package"]["default"] == pin
    assert pin in read("requirements-test.txt").splitlines()
    assert pin in read("docs", "airgap.md")
