# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's request refusals and output directories (module_utils/verify/plan.py): the messages the
role refuses a play with, word for word, in the order the role gives them; a refused request is not planned."""
from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import plan


def request(**changes):
    base = {"device": "cuda", "profile": "quick", "tests": [], "sizes": {}, "sustained_seconds": 25, "gates": {},
            "forbid_clock_reasons": [], "gpu_name": "NVIDIA H100 80GB HBM3", "python": "/opt/pytorch/current/bin/python",
            "results_dir": "/var/lib/blackwell-pytorch", "textfile_dir": ""}
    base.update(changes)
    return base


@pytest.mark.parametrize("changes,message", [
    ({"profile": "long"}, "verify_profile must be one of quick, standard, full (got long)"),
    ({"device": "tpu"}, "verify_device must be cuda or cpu (got tpu)"),
    ({"python": "python3"}, "verify_python must be an absolute path (got python3)"),
    ({"python": None}, "verify_python must be an absolute path (got None)"),
    ({"results_dir": "results"}, "verify_results_dir must be an absolute path (got results)"),
    ({"sustained_seconds": 3}, "verify_sustained_seconds must be at least 6: the last 5 seconds are compared with the "
                               "first (got 3)"),
    ({"sustained_seconds": "many"}, "verify_sustained_seconds must be at least 6: the last 5 seconds are compared "
                                    "with the first (got many)"),
    ({"gates": ["gemm_bf16"]}, "verify_gates must be a dict"),
])
def test_each_refusal_names_its_variable(changes, message):
    assert plan.request_refusals(request(**changes)) == [message]
    got = plan.plan(request(**changes))
    assert got["refusals"] == [message]
    assert (got["settings"], got["gates"], got["tests"], got["errors"]) == ({}, {}, [], [])  # not planned


def test_refusals_come_together_in_the_roles_order_and_the_gates_wait_for_them():
    bad = request(results_dir="results", sustained_seconds=3, gates={"gemm_bf16": {"min_fraction_of_peak": 1.5}})
    assert plan.plan(bad)["refusals"] == [
        "verify_results_dir must be an absolute path (got results)",
        "verify_sustained_seconds must be at least 6: the last 5 seconds are compared with the first (got 3)"]
    fine = plan.plan(request(gates={"gemm_bf16": {"min_fraction_of_peak": 1.5}}))
    assert fine["refusals"] == fine["errors"] == [
        "verify_gates: gate gemm_bf16.min_fraction_of_peak is a fraction from 0 to 1 (0.7: 70 % of the peak), got 1.5: "
        "no GPU could pass it"]


def test_a_request_that_can_run_is_planned_with_its_output_dirs():
    got = plan.plan(request(profile="standard", sustained_seconds="8", textfile_dir="/var/lib/node_exporter"))
    assert got["refusals"] == [] and got["product_line"] == "datacenter"
    assert got["sizes"] == {"sustained": {"seconds": 8}}  # text read as Jinja's int filter reads it
    assert got["output_dirs"] == {"verify_results_dir": "/var/lib/blackwell-pytorch",
                                  "verify_prometheus_textfile_dir": "/var/lib/node_exporter"}


def test_only_the_keys_given_are_judged():
    assert plan.request_refusals({}) == [] and plan.request_refusals(None) == []
    assert plan.plan({"profile": "quick"})["refusals"] == []


@pytest.mark.parametrize("value,number", [(7, 7), ("7", 7), ("7.9", 7), (7.9, 7), ("x", 0), (None, 0)])
def test_as_int_reads_as_jinja_does(value, number):
    assert plan.as_int(value) == number
