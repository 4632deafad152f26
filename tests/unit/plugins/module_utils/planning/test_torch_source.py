from __future__ import annotations

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.source_build import (
    accepted_names, arch_list, arch_list_entries, arch_rejections, build_rejections, max_jobs, nvcc_rejections,
    nvcc_version)

# The two shapes of the numeric test in select_compute_arch.cmake: trees from before Blackwell match a
# single-digit major; current trees any number of digits and an optional "a".
NEW_TREE = r'''
    if(arch_name MATCHES "(.*)\\+PTX$")
      set(add_ptx TRUE)
    endif()
    if(arch_name MATCHES "^([0-9]+\\.[0-9]a?(\\([0-9]+\\.[0-9]\\))?)$")
      set(arch_bin ${CMAKE_MATCH_1})
    else()
      if(${arch_name} STREQUAL "Kepler+Tesla")
      elseif(${arch_name} STREQUAL "Hopper")
      elseif(${arch_name} STREQUAL "Blackwell")
      else()
        message(SEND_ERROR "Found Unknown CUDA Architecture Name in CUDA_SELECT_NVCC_ARCH_FLAGS: ${arch_name} ")
'''
OLD_TREE = NEW_TREE.replace(r"^([0-9]+\\.[0-9]a?(\\([0-9]+\\.[0-9]\\))?)$", r"^([0-9]\\.[0-9](\\([0-9]\\.[0-9]\\))?)$")
GPUS_A = [{"compute_capability": "12.0"}, {"sm": "sm_89"}]
GPUS_B = [{"compute_capability": "8.9"}, {"compute_capability": "9.0"}]


def test_arch_list_over_hosts():
    assert arch_list([GPUS_A, GPUS_B]) == "8.9;9.0;12.0"
    assert arch_list([GPUS_A], ptx=True) == "8.9;12.0+PTX"
    assert arch_list([[], []]) == ""


def test_arch_list_entries():
    assert arch_list_entries("8.9;12.0+PTX") == ["8.9", "12.0+PTX"]
    assert arch_list_entries(" 9.0 10.0a ") == ["9.0", "10.0a"]


def test_accepted_names():
    found = accepted_names(NEW_TREE)
    assert found["numeric"] == r"^([0-9]+\.[0-9]a?(\([0-9]+\.[0-9]\))?)$"
    assert found["names"] == ["Blackwell", "Hopper", "Kepler+Tesla"]


@pytest.mark.parametrize("names", ["8.9;12.0", "9.0a;10.0a", "12.0+PTX", "Hopper;Blackwell", "7.5(7.0)"])
def test_new_tree_accepts(names):
    assert arch_rejections(NEW_TREE, names) == []


def test_old_tree_rejects_two_digit_majors():
    rejected = arch_rejections(OLD_TREE, "8.9;12.0+PTX;10.0")
    assert [item["name"] for item in rejected] == ["12.0+PTX", "10.0"]
    assert rejected[0]["reason"] == (r"12.0 does not match the tree's pattern ^([0-9]\.[0-9](\([0-9]\.[0-9]\))?)$ "
                                     "and is not one of its names (Blackwell, Hopper, Kepler+Tesla)")


def test_no_pattern_at_all():
    assert arch_rejections("", "9.0")[0]["reason"] == "the tree's select_compute_arch.cmake has no numeric pattern"


def test_nvcc_rejections():
    listed = "compute_75\ncompute_80\ncompute_86\ncompute_89\ncompute_90\ncompute_100\ncompute_120\n"
    assert nvcc_rejections(listed, "8.9;12.0+PTX") == []
    assert nvcc_rejections("compute_75\ncompute_90\n", "9.0;12.0")[0] == {
        "name": "12.0", "reason": "nvcc --list-gpu-arch has no compute_120"}
    assert nvcc_rejections("", "12.0") == []


@pytest.mark.parametrize("cpus,memory,per_job,override,jobs", [
    (2, 6144, 4, 0, 1), (16, 65536, 4, 0, 16), (122, 65536, 4, 0, 16), (8, 1000, 4, 0, 1), (8, 65536, 4, 3, 3),
])
def test_max_jobs(cpus, memory, per_job, override, jobs):
    assert max_jobs(cpus, memory, per_job, override)["max_jobs"] == jobs


def test_max_jobs_reason():
    assert max_jobs(2, 6144, 4)["reason"] == "2 cores, 6144 MiB available / 4 GiB per job = 1: MAX_JOBS=1"


@pytest.mark.parametrize("args,message", [
    (("many", 1024), "must be numbers"), ((4, None, None), "must be numbers"), ((4, 1024, 0), "gib_per_job must be more than 0"),
])
def test_max_jobs_refuses_bad_numbers(args, message):
    with pytest.raises(ValueError, match=message):
        max_jobs(*args)


def test_nvcc_version():
    assert nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.8, V12.8.93\n") == "12.8"
    assert nvcc_version("garbage") is None


def test_build_rejections_name_what_the_tree_or_the_toolkit_cannot_build():
    cmake = 'if(arch_name MATCHES "^([0-9]+\\\\.[0-9]+a?)$")\nset(CUDA_KNOWN_GPU_ARCHITECTURES "Ampere" "Hopper")\n'
    assert build_rejections("9.0;12.0", "", "compute_90") == [
        {"name": "9.0", "reason": "the tree's select_compute_arch.cmake has no numeric pattern"},
        {"name": "12.0", "reason": "the tree's select_compute_arch.cmake has no numeric pattern"},
        {"name": "12.0", "reason": "nvcc --list-gpu-arch has no compute_120"}]
    assert build_rejections("9.0;12.0", cmake) == []
