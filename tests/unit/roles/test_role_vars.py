# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Roles keep their decisions in Python: a role's vars/main.yml holds constants and short wiring, 30 lines at most."""
from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


@pytest.mark.parametrize("role", ["cuda_toolkit", "nvidia_driver", "tools"])
def test_role_vars_stay_short(role):
    with open(os.path.join(ROOT, "roles", role, "vars", "main.yml")) as handle:
        lines = handle.read().splitlines()
    assert len(lines) <= 30, "roles/%s/vars/main.yml has %d lines" % (role, len(lines))
