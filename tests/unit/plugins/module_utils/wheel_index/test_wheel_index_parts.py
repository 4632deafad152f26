# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import io
import zipfile

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index import metadata, zip_range
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.filenames import (
    fits, parse_wheel, target_tags)
from ansible_collections.blackwell.pytorch.plugins.module_utils.wheel_index.listing import (
    parse_html_page, parse_json_page)


def test_parse_wheel_of_a_channel_index():
    wheel = parse_wheel("https://x/whl/cu128/torch-2.9.1%2Bcu128-cp311-cp311-manylinux_2_28_x86_64.whl")
    assert (wheel["name"], wheel["public"], wheel["label"], wheel["python"], wheel["abi"], wheel["platform"]) == (
        "torch", "2.9.1", "cu128", ["cp311"], ["cp311"], ["manylinux_2_28_x86_64"])
    assert parse_wheel("torch-2.9.1.tar.gz") is None and parse_wheel("a-b-c.whl") is None
    assert parse_wheel("Torch_Vision-0.24.1-1-py3-none-any.whl")["build"] == "1"


@pytest.mark.parametrize("filename,ok", [
    ("torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl", True),
    ("torch-2.9.1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl", True),
    ("torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl", False),
    ("torch-2.9.1-cp311-cp311-manylinux_2_28_aarch64.whl", False),
    ("torch-2.9.1-cp311-cp311-win_amd64.whl", False),
    ("torch-2.9.1-cp311-cp311-macosx_11_0_arm64.whl", False),
    ("torchaudio-2.9.1-cp39-abi3-manylinux_2_28_x86_64.whl", True),
    ("standin-1.0-py3-none-any.whl", True),
])
def test_fits_cp311_x86_64(filename, ok):
    assert fits(parse_wheel(filename), *target_tags("3.11", "amd64")) is ok


def test_target_tags_refuses_what_it_cannot_read():
    assert target_tags("cp312", "linux_aarch64") == ("cp312", "aarch64")
    with pytest.raises(ValueError, match="python tag"):
        target_tags("python3", "x86_64")
    with pytest.raises(ValueError, match="linux x86_64 or aarch64"):
        target_tags("cp311", "ppc64le")


@pytest.mark.parametrize("lines,channel,cuda", [
    (['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Linux" and platform_machine == "x86_64"',
      "nvidia-cudnn-cu12==9.10.2.21"], "cu128", "12.8"),
    (["nvidia-cuda-runtime==13.0.96; sys_platform == 'linux'"], "cu130", "13.0"),
    (['cuda-toolkit[cublas,cudart]==13.0.2; platform_system == "Linux"'], "cu130", "13.0"),
    (["cuda-toolkit==13.2.2"], "cu132", "13.2"),
    (["nvidia-cuda-nvrtc-cu12 (==12.6.77)"], "cu126", "12.6"),
    (["filelock", "sympy>=1.13"], "cpu", None),
    (['nvidia-cuda-runtime-cu12==12.8.90; platform_system == "Windows"'], "cpu", None),
    (['nvidia-cuda-runtime-cu12==12.8.90; platform_machine == "aarch64"'], "cpu", None),
    (["nvidia-cublas-cu12"], None, None),
])
def test_cuda_build_from_requires_dist(lines, channel, cuda):
    found = metadata.cuda_build(lines, "cp311", "x86_64")
    assert (found["channel"], found["cuda"]) == (channel, cuda)


def test_extras_and_python_markers_are_evaluated():
    lines = ['cuda-toolkit==13.0.2; extra == "cuda"', 'nvidia-cuda-runtime-cu12==12.8.90; python_version < "3.10"']
    assert metadata.cuda_build(lines, "cp311", "x86_64")["channel"] == "cpu"
    assert metadata.cuda_build(lines, "cp39", "x86_64")["channel"] == "cu128"


@pytest.mark.parametrize("lines,need", [
    (["torch==2.12.1"], {"exact": "2.12.1"}), (["torch (==2.9.1)"], {"exact": "2.9.1"}),
    (["numpy", "torch>=2.14.0"], {"lower": "2.14.0"}), (["numpy"], {}),
    (['torch==2.9.1; extra == "x"'], {}),
])
def test_torch_requirement(lines, need):
    assert metadata.torch_requirement(lines, "cp311", "x86_64") == need


def test_requires_dist_reads_metadata_text():
    text = "Metadata-Version: 2.1\nName: torch\nRequires-Dist: a\nRequires-Dist: b>=1\n\nbody\n"
    assert metadata.requires_dist(text) == ["a", "b>=1"]


def _zip_bytes(members, meta="Requires-Dist: torch==2.9.1\n"):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as whl:
        whl.writestr("x-1.dist-info/METADATA", "Name: x\n" + meta)
        for index in range(members):
            whl.writestr("x/file_%05d_padding_the_central_directory.py" % index, "y = %d\n" % index)
    return buffer.getvalue()


@pytest.mark.parametrize("members", [0, 3000])
def test_zip_member_through_ranges(members):
    data, asked = _zip_bytes(members), []

    def get_range(start, end):
        asked.append((start, end))
        return (data[start:] if end is None else data[start:end + 1]), len(data)
    found, total = zip_range.list_members(get_range, "w.whl")
    member = zip_range.metadata_member(found)
    assert total == len(data) and member["name"] == "x-1.dist-info/METADATA"
    assert zip_range.read_member(get_range, member, "w.whl") == b"Name: x\nRequires-Dist: torch==2.9.1\n"
    # the tail, the central directory when it starts before the tail, the member: never the whole file
    assert len(asked) == (3 if members else 2)
    if members:
        assert sum(len(data[s:] if e is None else data[s:e + 1]) for s, e in asked) < len(data)


def test_not_a_zip_is_said():
    with pytest.raises(zip_range.ZipError, match="no end of central directory"):
        zip_range.list_members(lambda s, e: (b"<html>not a wheel</html>", 24), "x.whl")


def test_html_and_json_pages_give_the_same_entries():
    html = ('<html><body><a href="../../files/torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl#sha256=ab" '
            'data-dist-info-metadata="sha256=cd">torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl</a>'
            '<a href="/f/torch-2.12.1-cp311-cp311-manylinux_2_28_x86_64.whl" data-yanked="">t</a>'
            '<a href="torch-2.12.1.tar.gz">sdist</a></body></html>')
    json_text = ('{"files": [{"filename": "torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl", '
                 '"url": "../../files/torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl", "core-metadata": {"sha256": "cd"}},'
                 '{"filename": "torch-2.12.1-cp311-cp311-manylinux_2_28_x86_64.whl", '
                 '"url": "/f/torch-2.12.1-cp311-cp311-manylinux_2_28_x86_64.whl", "core-metadata": false, "yanked": "bad"}]}')
    page = "https://mirror.example/simple/torch/"
    for entries in (parse_html_page(html, page), parse_json_page(json_text, page)):
        assert [(e["public"], e["url"], e["metadata_url"], e["yanked"]) for e in entries] == [
            ("2.9.1", "https://mirror.example/files/torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl",
             "https://mirror.example/files/torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl.metadata", False),
            ("2.12.1", "https://mirror.example/f/torch-2.12.1-cp311-cp311-manylinux_2_28_x86_64.whl", None, True)]
