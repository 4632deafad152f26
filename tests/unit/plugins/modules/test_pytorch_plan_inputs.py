# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""pytorch_plan refuses the request's inputs alone before anything is read or planned (planning/host_plan.py
input_refusals over common/path_inputs.py and common/value_inputs.py): a relative path, a file where a directory
is due and a directory where a file is due, a version YAML read as a number, a URL option that is no URL. The
refusals come back in `refusals` and `msg` (the role fails the call on them), with no plan made."""
from __future__ import annotations

import sys

import yaml

from ansible_collections.blackwell.pytorch.plugins.modules import pytorch_plan

RTX_5090 = {"index": 0, "name": "NVIDIA GeForce RTX 5090", "compute_capability": "12.0", "sm": "sm_120"}


def args(**changes):
    base = {"python": sys.executable, "version": "2.9.1", "channel": "cu128", "gpus": [RTX_5090],
            "driver_cuda": "13.0", "host": "ws-1"}
    base.update(changes)
    return base


def refused(run_module, **changes):
    """The refusals of pytorch_plan for these options; nothing was planned."""
    status, result = run_module(pytorch_plan, args(**changes))
    assert status == "exit" and result["standing"] == "refused" and "plan" not in result, result
    assert result["msg"] == " ".join(result["refusals"])
    return result["refusals"]


def test_a_relative_root_is_refused_naming_the_variable(run_module):
    # it used to be planned; the install then walked up from "opt" forever (disk_space.nearest_existing)
    assert refused(run_module, root="opt/pytorch", paths={"pytorch_uv_cache_dir": "opt/pytorch/.cache/uv"}) == [
        "pytorch_root must be an absolute path on the target, got 'opt/pytorch' (relative to what? it would depend "
        "on the directory the module runs in): give the full path, e.g. -e pytorch_root=/opt/pytorch."]


def test_a_root_that_is_a_file_is_refused_before_any_change(tmp_path, run_module):
    root = tmp_path / "pytorch"
    root.write_text("a file\n")
    # it used to be planned; the install failed in its background job ("Not a directory: '<root>/venvs'")
    assert refused(run_module, root=str(root)) == [
        "pytorch_root %s is a file, not a directory: give a directory (or a path that is not there yet), "
        "e.g. -e pytorch_root=/opt/pytorch." % root]
    assert root.read_text() == "a file\n"


def test_a_directory_as_python_is_refused_saying_it_is_a_directory(tmp_path, run_module):
    # it used to be reported as "Python 0.0"
    assert refused(run_module, python=str(tmp_path)) == [
        "pytorch_python %s is a directory, not a file: give the interpreter itself (Python 3.10 or newer), "
        "e.g. -e pytorch_python=/usr/bin/python3." % tmp_path]


def test_a_version_yaml_reads_as_a_number_is_refused_saying_to_quote_it(run_module):
    version = yaml.safe_load("pytorch_version: 2.10")["pytorch_version"]
    # it used to become "2.1": "torch 2.1 is not in the version matrix"
    assert refused(run_module, version=version) == [
        "pytorch_version is the number 2.1, not text: YAML reads an unquoted 2.10 as 2.1, so the digits meant may "
        "be lost. Quote it: pytorch_version: \"2.10\" in YAML, -e pytorch_version='\"2.10\"' on the command line "
        "(the digits you meant)."]
    assert [message.split(" ")[0] for message in refused(run_module, version="2.9.1", channel=13.0, torchvision=0.24,
                                                         torchaudio=2)] == [
        "pytorch_cuda_channel", "pytorch_torchvision_version", "pytorch_torchaudio_version"]


def test_an_index_url_that_is_no_url_is_refused_naming_pytorch_index_url(run_module):
    # it used to be reported as a pytorch_wheelhouse error
    assert refused(run_module, index="not a url") == [
        "pytorch_index_url must be a URL of scheme http, https, file, got 'not a url' (spaces, quotes and braces "
        "are in no URL): e.g. -e pytorch_index_url=https://pypi.org/simple."]


def test_every_url_option_is_checked_as_its_own_variable(run_module):
    found = refused(run_module, channel_base="download.pytorch.org/whl", extra_indexes=["https://ok.lab/simple", "x y"],
                    proxy="proxy.lab:3128")
    assert [message.split(" ")[0] for message in found] == [
        "pytorch_channel_base_url", "pytorch_extra_index_urls", "pytorch_proxy"]
    assert found[2] == ("pytorch_proxy must be a URL of scheme http, https, socks5, socks5h, got 'proxy.lab:3128': "
                        "e.g. -e pytorch_proxy=http://proxy.lab:3128.")


def test_every_path_option_relative_or_of_the_wrong_kind_is_refused_at_once(tmp_path, run_module):
    afile, other = tmp_path / "afile", tmp_path / "other"
    afile.write_text("x\n")
    other.write_text("x\n")
    found = refused(run_module, uv=str(tmp_path), cuda_home=str(afile), wheelhouse="wheels", constraints_file="c.txt",
                    hashes_file="h.txt", ca_path="ca.pem", client_cert="client.pem", adopt_path=str(afile),
                    profile_path=str(tmp_path), paths={"pytorch_pip_cache_dir": "cache", "pytorch_source_dir":
                                                       str(other / "src"), "pytorch_uv_cache_dir": ""})
    assert [message.split(" ")[0] for message in found] == [
        "pytorch_uv", "pytorch_cuda_home", "pytorch_wheelhouse", "pytorch_constraints_file", "pytorch_hashes_file",
        "pytorch_index_ca_path", "pytorch_index_client_cert", "pytorch_adopt_path", "pytorch_profile_path",
        "pytorch_pip_cache_dir", "pytorch_source_dir"]
    assert found[0] == ("pytorch_uv %s is a directory, not a file: give the uv executable itself, "
                        "e.g. -e pytorch_uv=/opt/blackwell/tools/bin/uv." % tmp_path)
    assert found[-1] == ("pytorch_source_dir %s cannot be created: %s is a file, not a directory: give a path under "
                         "a directory, e.g. -e pytorch_source_dir=/opt/pytorch/src/pytorch." % (other / "src", other))


def test_good_paths_versions_and_urls_plan_as_before(tmp_path, run_module):
    status, result = run_module(pytorch_plan, args(
        root=str(tmp_path / "pytorch"), profile_path=str(tmp_path / "profile.d" / "pytorch.sh"),
        paths={"pytorch_uv_cache_dir": str(tmp_path / "pytorch" / ".cache" / "uv"), "pytorch_pip_cache_dir": ""},
        channel_base="", proxy="http://lab:pw@proxy.lab:3128"))
    assert status == "exit" and result["refusals"] == [] and result["plan"]["stack"] == "torch-2.9.1-cu128", result
