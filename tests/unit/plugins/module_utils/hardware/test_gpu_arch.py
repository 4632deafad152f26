from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import (
    arch_family, capability_facts, parse_capability, sm_string)


@pytest.mark.parametrize("value,expected", [
    ("12.0", (12, 0)), ("9.0", (9, 0)), ("8.9", (8, 9)), ("sm_120", (12, 0)), ("sm_90a", (9, 0)),
    ("compute_90", (9, 0)), ("sm_100f", (10, 0)), ((8, 6), (8, 6)), (12.1, (12, 1)),
])
def test_parse_capability(value, expected):
    assert parse_capability(value) == expected


@pytest.mark.parametrize("value", ["", "twelve", "sm_", "sm_x0", "12", None])
def test_parse_capability_rejects(value):
    with pytest.raises(ValueError):
        parse_capability(value)


@pytest.mark.parametrize("cap,family", [
    ((7, 5), "Turing"), ((8, 0), "Ampere"), ((8, 6), "Ampere"), ((8, 9), "Ada"), ((9, 0), "Hopper"),
    ((10, 0), "Blackwell"), ((10, 3), "Blackwell"), ((12, 0), "Blackwell"), ((12, 1), "Blackwell"),
    ((7, 0), "Volta"), ((99, 0), "unknown"),
])
def test_arch_family(cap, family):
    assert arch_family(*cap) == family


def test_capability_facts_blackwell():
    assert capability_facts(12, 0) == {"compute_capability": "12.0", "sm": "sm_120",
                                       "arch_family": "Blackwell"}
    assert sm_string(9, 0) == "sm_90"
