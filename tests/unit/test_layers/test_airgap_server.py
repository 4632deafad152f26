# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""tests/fixtures/pypi_index/serve.py, the airgap scenario's lab server, serves what the pytorch plan needs.

Run for real on 127.0.0.1: a wheelhouse laid out as docs/airgap.md lays it out (a directory per
project) is listed as a PEP 503 project page, and a companion wheel's METADATA is read through byte
ranges (206), which python3 -m http.server refuses (docs/runbook.md quotes that refusal).
"""
from __future__ import annotations

import os
import subprocess
import sys
import urllib.request
import zipfile

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.classify import read_metadata
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.fetch import Fetcher
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.listing import list_project

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
SERVE = os.path.join(ROOT, "tests", "fixtures", "pypi_index", "serve.py")
WHEEL = "torchvision-0.24.1+cu128-py3-none-any.whl"


@pytest.fixture
def server(tmp_path):
    project = tmp_path / "pypi" / "simple" / "torchvision"
    project.mkdir(parents=True)
    with zipfile.ZipFile(str(project / WHEEL), "w", zipfile.ZIP_DEFLATED) as whl:
        whl.writestr("torchvision/__init__.py", "x = 1\n" * 4000)  # enough that a range is not the whole file
        whl.writestr("torchvision-0.24.1+cu128.dist-info/METADATA",
                     "Metadata-Version: 2.1\nName: torchvision\nVersion: 0.24.1+cu128\nRequires-Dist: torch==2.9.1\n")
    process = subprocess.Popen([sys.executable, SERVE, "0", str(tmp_path), "127.0.0.1"],
                               stderr=subprocess.PIPE, text=True)
    try:
        port = process.stderr.readline().split()[-1]
        yield "http://127.0.0.1:%s/pypi/simple/" % port
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stderr.close()


def test_airgap_server_lists_a_project_directory_as_its_pep503_page(server):
    wheels = list_project(server, "torchvision", Fetcher(server))
    assert [wheel["filename"] for wheel in wheels] == [WHEEL]
    assert wheels[0]["url"] == server + "torchvision/torchvision-0.24.1%2Bcu128-py3-none-any.whl"


def test_airgap_server_answers_byte_ranges_so_the_plan_reads_metadata(server):
    url = server + "torchvision/torchvision-0.24.1%2Bcu128-py3-none-any.whl"
    request = urllib.request.Request(url, headers={"Range": "bytes=-22"})
    with urllib.request.urlopen(request, timeout=10) as response:
        assert response.status == 206 and len(response.read()) == 22
        assert response.headers["Content-Range"].startswith("bytes ")
    text, how = read_metadata({"url": url, "local_path": None, "metadata_url": None}, Fetcher(server))
    assert how == "range requests" and "Requires-Dist: torch==2.9.1" in text
