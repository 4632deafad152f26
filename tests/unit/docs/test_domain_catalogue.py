"""docs/domain.md's GPU and toolkit tables agree with the GPU catalogue and the toolkit table."""
from __future__ import annotations

import os
import re

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.cuda_compat import TOOLKITS
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware import catalogue
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.pci_ids import PCI_IDS

DOMAIN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "domain.md")


def _tables():
    """{first header cell: [row cells, ...]} of every Markdown table of docs/domain.md."""
    with open(DOMAIN, encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    tables, current = {}, None
    for line in lines:
        if not line.startswith("|"):
            current = None
            continue
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if current is None:
            current = tables.setdefault(cells[0], [])
        elif not set("".join(cells)) <= set("-"):
            current.append(cells)
    return tables


def _version(text):
    return tuple(int(part) for part in text.split(".")) if text not in ("-", "before 12.0") else None


def _channel(text):
    return (int(text[2:-1]), int(text[-1])) if text != "-" else None


def _number(text):
    match = re.match(r"^(\d+(?:\.\d+)?)(\s|$)", text)
    return float(match.group(1)) if match else None


def test_the_capability_table_is_the_catalogue():
    rows = _tables()["compute capability"]
    documented = {}
    for capability, family, open_module, first, last, branch, wheels, rates in rows:
        if wheels == "-":
            wheel_sass = None
        else:
            low, _sep, high = wheels.partition(" to ")
            wheel_sass = (_channel(low.replace(" on", "")), _channel(high) if high else None)
        documented[_version(capability)] = {
            "family": None if family == "-" else family, "open_module": open_module, "first_toolkit": _version(first),
            "last_toolkit": _version(last), "driver_branch": None if branch == "-" else int(branch),
            "wheel_sass": wheel_sass,
            "rates": None if rates == "-" else dict(zip(("tensor", "fp32", "fp64"), map(int, rates.split(" / "))))}
    assert documented == catalogue.ARCHITECTURES
    assert [_version(row[0]) for row in rows] == sorted(catalogue.ARCHITECTURES)


def test_the_product_table_agrees_with_the_catalogue():
    rows = _tables()["GPU"]
    assert len(rows) == 9
    figures = {}
    for _gpu, line, capability, _sms, _memory, memory_gbps, fp32, bf16, pci_id in rows:
        name = PCI_IDS[int(pci_id.split(":")[1], 16)]
        product = catalogue.product(name)
        assert (product["line"], "%d.%d" % product["capability"]) == (line, capability), name
        documented = {"memory": _number(memory_gbps), "fp32": _number(fp32), "fp16": _number(bf16),
                      "bf16": _number(bf16)}
        assert documented == dict((kind, product["peaks"].get(kind)) for kind in documented), name
        if product["peaks"]:
            figures[name] = product["peaks"]
    # every datasheet figure of the catalogue is in the table
    assert figures == dict((name, row["peaks"]) for name, row in catalogue.PRODUCTS.items() if row["peaks"])


def test_the_toolkit_table_agrees_with_the_driver_minimums():
    rows = _tables()["CUDA"]
    for cuda, minimum in rows[:3]:
        version = _version(cuda.split()[0])
        assert minimum.split(" / ")[0] == TOOLKITS[version], cuda
