# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the figures between GPUs (p2p, allreduce) should reach, from how the GPUs are linked (hardware/topology.py).

The link's nominal one-direction bandwidth is not what a healthy pair reaches: a copy and NCCL's ring
carry protocol overhead. As the device figures are set against what a healthy GPU of the model reaches
(benchmark/expected.py), a figure between GPUs is set against the share of the nominal bandwidth a
healthy host reaches, SHARE_OF_NOMINAL, measured:
- p2p, 0.8: 388 GB/s each way of 450 nominal (0.86) on 2 x NVIDIA H200, NVLink 4.0 x 18 links, 256 MiB;
  55 of 63 GB/s (0.87) for host copies over PCIe gen 5 x16 on an H100;
- allreduce, 0.6: a bus bandwidth of 295 GB/s of 450 nominal (0.66) on the same H200 pair, 256 MiB,
  NCCL with NVLink multicast off.
Both sit below the measured shares so that run-to-run spread does not read as a fault. The expectation
follows the active links: a link that is down lowers it (the verify role's `nvlink` health gate names the
link). Pure functions, no Ansible import.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.topology import ring_expectation

SHARE_OF_NOMINAL = {"p2p": 0.8, "allreduce": 0.6}
MEASURED = {
    "p2p": "0.86 measured: 388 of 450 GB/s on 2 x NVIDIA H200, NVLink 4.0 x 18",
    "allreduce": "0.66 measured: 295 of 450 GB/s on 2 x NVIDIA H200, NVLink 4.0 x 18, NVLink multicast off",
}
NONE = {"expected": None, "fraction_of_expected": None}


def _basis(text, pair):
    return "%s (%s)" % (text, pair["note"]) if pair.get("note") else text


def _expected(test, nominal, source, basis):
    share = SHARE_OF_NOMINAL[test]
    return {"value": round(nominal * share, 1), "fraction_of_peak": None, "nominal": nominal,
            "source": source, "basis": "%s = %g GB/s nominal, x %g: the share a healthy host reaches (%s)"
            % (basis, nominal, share, MEASURED[test])}


def pair_expectation(pair: Mapping[str, Any]) -> dict[str, Any]:
    """The `expected` of a p2p figure between the two GPUs of a topology pair, or None when unknown."""
    if not pair or pair.get("expected_gbps") is None:
        return None
    return _expected("p2p", pair["expected_gbps"], "topology: %s" % pair["basis"], _basis(pair["basis"], pair))


def allreduce_expectation(pairs: Mapping[str, Mapping[str, Any]], nvls: bool = False) -> dict[str, Any] | None:
    """The `expected` of the allreduce figure over the GPUs of `pairs` (the ring's slowest pair), or None."""
    ring = ring_expectation(pairs or {})
    if ring is None:
        return None
    slowest = pairs[ring["pair"]]
    expected = _expected("allreduce", ring["expected_gbps"], "topology: ring over %s, %s"
                         % (ring["pair"], slowest["basis"]), _basis(ring["basis"], slowest))
    if nvls:
        expected["basis"] += "; NVLink multicast on: NCCL may reduce in the switches and pass the ring's bound"
    return expected


def expectations(topology: Mapping[str, Any] | None, nvls: bool = False) -> dict[str, Any]:
    """{"p2p": {"0->1": expected or None}, "allreduce": expected or None} from multi_gpu's topology (None: none)."""
    pairs = (topology or {}).get("pairs") or {}
    return {"p2p": dict((key, pair_expectation(value)) for key, value in pairs.items()),
            "allreduce": allreduce_expectation(pairs, nvls)}


def judged(fig: Mapping[str, Any], expected: Mapping[str, Any] | None) -> dict[str, Any]:
    """{expected, fraction_of_expected}: a figure against its expectation (value / expected value, 4 digits;
    None without a value or an expectation)."""
    if not expected:
        return dict(NONE)
    value = fig.get("value")
    return {"expected": expected,
            "fraction_of_expected": round(value / expected["value"], 4) if value is not None and expected["value"]
            else None}
