from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_arch import parse_capability
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.pci_ids import PCI_IDS, lookup


# Every PCI id named in the design's domain facts (DOMAIN.md section 1 and the lent H100).
@pytest.mark.parametrize("device,name,capability", [
    (0x2B85, "NVIDIA GeForce RTX 5090", "12.0"),
    (0x2C02, "NVIDIA GeForce RTX 5080", "12.0"),
    (0x2BB1, "NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "12.0"),
    (0x2BB5, "NVIDIA RTX PRO 6000 Blackwell Server Edition", "12.0"),
    (0x2BB4, "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition", "12.0"),
    (0x2901, "NVIDIA B200", "10.0"),
    (0x2330, "NVIDIA H100 80GB HBM3", "9.0"),
])
def test_domain_ids(device, name, capability):
    assert lookup(device) == (name, capability, True)


def test_every_capability_parses():
    for name, capability in PCI_IDS.values():
        assert parse_capability(capability)[0] >= 7, name
