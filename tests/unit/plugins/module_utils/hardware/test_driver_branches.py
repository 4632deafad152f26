"""The driver branch catalogue: kind, end of support, CUDA carried, announced-only (docs/domain.md section 2)."""
from __future__ import annotations

import datetime
import os

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import driver_branches

DOMAIN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "..", "docs", "domain.md")
KINDS = {"long-term support": "ltsb", "production": "production", "new feature": "new_feature"}


def test_the_catalogue_lists_the_four_branches():
    assert driver_branches.known_branches() == [580, 595, 610, 620]


@pytest.mark.parametrize("branch,kind,end,cuda,announced", [
    (580, "ltsb", (2028, 6), "13.0", False),
    (595, "production", (2027, 3), "13.2", False),
    (610, "new_feature", (2026, 8), "13.3", False),
    (620, "ltsb", (2029, 9), None, True),
])
def test_each_branch_row(branch, kind, end, cuda, announced):
    info = driver_branches.branch_info(str(branch))
    assert (info["branch"], info["kind"], info["end_of_life"], info["cuda"], info["announced_only"]) == (
        branch, kind, end, cuda, announced)
    assert driver_branches.branch_cuda(branch) == cuda
    assert driver_branches.is_announced_only(branch) is announced
    assert driver_branches.is_known(branch) is True


@pytest.mark.parametrize("branch", ["575", "999", 600, "58", "5800", "abc", "", None, "080"])
def test_a_branch_not_listed_has_no_row(branch):
    assert driver_branches.branch_info(branch) is None
    assert driver_branches.is_known(branch) is False
    assert driver_branches.is_announced_only(branch) is False
    assert driver_branches.branch_cuda(branch) is None
    assert driver_branches.end_of_life_text(branch) is None
    assert driver_branches.describe(branch) is None
    assert driver_branches.past_end_of_life(branch, datetime.date(2099, 1, 1)) is False


def test_branch_info_accepts_spaces_and_numbers():
    assert driver_branches.branch_info(" 595 ")["kind_name"] == "production branch"
    assert driver_branches.branch_info(610)["kind_name"] == "new feature branch"
    assert driver_branches.branch_info("580")["kind_name"] == "long-term support branch"


@pytest.mark.parametrize("branch,text", [
    (580, "580 (long-term support branch, supported to June 2028, CUDA 13.0)"),
    (595, "595 (production branch, supported to March 2027, CUDA 13.2)"),
    (610, "610 (new feature branch, supported to August 2026, CUDA 13.3)"),
    (620, "620 (long-term support branch, announced, no packages yet, supported to September 2029, "
          "CUDA version not yet published)"),
])
def test_describe(branch, text):
    assert driver_branches.describe(branch) == text


@pytest.mark.parametrize("branch,today,past", [
    (610, datetime.date(2026, 8, 31), False),
    (610, datetime.date(2026, 9, 1), True),
    (595, datetime.date(2027, 3, 31), False),
    (595, datetime.date(2027, 4, 1), True),
    (580, datetime.date(2026, 11, 29), False),
    (580, datetime.date(2028, 7, 1), True),
    (620, datetime.date(2029, 10, 1), True),
])
def test_past_end_of_life_counts_the_last_month_as_supported(branch, today, past):
    assert driver_branches.past_end_of_life(branch, today) is past


def test_past_end_of_life_defaults_to_today():
    assert driver_branches.past_end_of_life(580) is (datetime.date.today() > datetime.date(2028, 6, 30))


@pytest.mark.parametrize("branch,capability,ok", [
    (580, "12.0", True), (595, "sm_120", True), (610, (10, 3), True), (620, "11.0", True),
    (575, "11.0", False), (570, "12.1", False), (570, "12.0", True), (470, "8.6", True),
])
def test_drives_follows_the_gpu_catalogue(branch, capability, ok):
    assert driver_branches.drives(branch, capability) is ok


@pytest.mark.parametrize("branch,capability", [("58", "12.0"), ("580", "nonsense")])
def test_drives_refuses_what_is_no_branch_or_capability(branch, capability):
    with pytest.raises(ValueError):
        driver_branches.drives(branch, capability)


def _documented_table():
    """{branch: (kind, "June 2028", cuda or None, announced_only)} of docs/domain.md's driver branch table."""
    with open(DOMAIN, encoding="utf-8") as handle:
        lines = [line.strip() for line in handle.read().splitlines()]
    header = "| branch | kind | supported to | CUDA its driver carries | packages |"
    table = {}
    for line in lines[lines.index(header) + 2:]:
        if not line.startswith("|"):
            break
        branch, kind, end, cuda, packages = [cell.strip() for cell in line.strip("|").split("|")]
        assert packages in ("yes", "announced only"), branch
        table[int(branch)] = (KINDS[kind], end, None if cuda == "not yet published" else cuda,
                              packages == "announced only")
    return table


def test_docs_list_the_same_table():
    assert _documented_table() == dict(
        (branch, (row["kind"], driver_branches.end_of_life_text(branch), row["cuda"], row["announced_only"]))
        for branch, row in driver_branches.BRANCHES.items())
