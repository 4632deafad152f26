# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The verify role's container check (tasks/container.yml) run for real with podman (row C10).

Only the GPU is a stand-in: an `nvidia-smi` script first on the host's PATH, and a CDI spec of
the test's own kind (blackwell-test.example/gpu) in /var/run/cdi whose devices mount a stand-in
`nvidia-smi` into the container. podman, its CDI injection, the image import from the host's
files, the role's tasks and the container_toolkit_gpu_match filter are the real ones. podman keeps
its images in a storage of the test's own (vfs under the test's temporary directory), so every
run imports the image afresh and leaves none behind. Needs root (podman's root storage, the CDI
runtime directory): the test layers run as root; CI fails without root or podman.
"""
from __future__ import annotations

import os
import shutil
import subprocess

import pytest

from playbook import ROOT, outcome, results, run

CDI_DIR = "/var/run/cdi"  # the CDI runtime directory podman reads
KIND = "blackwell-test.example/gpu"
IMAGE = "localhost/blackwell-cdi-check:latest"  # the role's default image name
GPU0 = "GPU-5b1c7c2e-0f4a-4c1e-9d0e-1a2b3c4d5e60"
GPU1 = "GPU-8e2d1f3a-7b6c-4d5e-8f9a-0b1c2d3e4f51"
HOST_GPUS = ["GPU 0: NVIDIA H100 80GB HBM3 (UUID: %s)" % GPU0, "GPU 1: NVIDIA H100 80GB HBM3 (UUID: %s)" % GPU1]
CHECK = "Run the verify role's container check"
ROLE = "blackwell.pytorch.verify : "  # how the JSON callback names an included role's tasks
SEES = ROLE + "The container sees the host's GPUs"


_IN_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
# podman's root storage and the CDI runtime directory need root; make test and CI run as root, so the
# check runs there (under CI a run as another user fails below instead of skipping).
pytestmark = pytest.mark.skipif(os.geteuid() != 0 and not _IN_CI,
                                reason="the container check needs root (podman's root storage, %s)" % CDI_DIR)


def _require_podman_as_root():
    """Fail, naming why, when the check cannot run for real here (the module's skipif covers a local run as
    another user)."""
    problems = []
    if os.geteuid() != 0:
        problems.append("it needs root (podman's root storage and the CDI runtime directory %s)" % CDI_DIR)
    if shutil.which("podman") is None:
        problems.append("podman is not installed (make test's bootstrap installs it)")
    if problems:
        pytest.fail("the container check cannot run for real: " + "; ".join(problems))


def _nvidia_smi(path, lines):
    """A stand-in nvidia-smi printing `lines` (shell builtins only: the check image has /bin/sh alone)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + "".join("echo '%s'\n" % line for line in lines))
    path.chmod(0o755)
    return path


def _podman_env(tmp):
    """podman's settings for the play and for the test's own calls: the project's conf, a storage of its own."""
    storage = tmp / "storage.conf"
    storage.write_text('[storage]\ndriver = "vfs"\ngraphroot = "%s"\nrunroot = "%s"\n' % (tmp / "graph", tmp / "run"))
    return {"CONTAINERS_CONF": os.path.join(ROOT, "tests", "fixtures", "images", "containers.conf"),
            "CONTAINERS_STORAGE_CONF": str(storage)}


def _images(podman_env):
    listed = subprocess.run(["podman", "images", "--format", "{{.Repository}}:{{.Tag}}"], env=dict(os.environ, **podman_env),
                            capture_output=True, text=True, check=True)
    # The three hosts are one machine: each imports at once, the last one keeps the name.
    return [name for name in listed.stdout.split() if name != "<none>:<none>"]


@pytest.fixture(scope="module")
def cdi_devices(tmp_path_factory):
    """A CDI spec of the test's own in the runtime directory: device name -> the GPU lines its nvidia-smi prints."""
    _require_podman_as_root()
    tmp = tmp_path_factory.mktemp("cdi")
    token = "%d-%s" % (os.getpid(), tmp.name)  # device names of this run alone (another checkout may run it too)
    listings = {"same": HOST_GPUS, "one-missing": HOST_GPUS[:1]}
    devices = {}
    spec = ['cdiVersion: "0.5.0"', "kind: %s" % KIND, "devices:"]
    for name, lines in listings.items():
        smi = _nvidia_smi(tmp / name / "nvidia-smi", lines)
        devices[name] = "%s=%s-%s" % (KIND, name, token)
        spec += ["- name: %s-%s" % (name, token), "  containerEdits:", "    mounts:",
                 "    - hostPath: %s" % smi, "      containerPath: /usr/bin/nvidia-smi", "      options: [ro, bind]"]
    devices["undefined"] = "%s=undefined-%s" % (KIND, token)
    made_dir = not os.path.isdir(CDI_DIR)
    os.makedirs(CDI_DIR, exist_ok=True)
    spec_path = os.path.join(CDI_DIR, "blackwell-test-%s.yaml" % token)
    with open(spec_path, "w") as handle:
        handle.write("\n".join(spec) + "\n")
    yield devices
    os.remove(spec_path)
    if made_dir:
        try:
            os.rmdir(CDI_DIR)
        except OSError:  # another run's spec is there now
            pass


def _play(tmp, hosts, podman_env, check):
    host_bin = _nvidia_smi(tmp / "host-bin" / "nvidia-smi", HOST_GPUS).parent
    environment = dict(podman_env, PATH="%s:%s" % (host_bin, os.environ.get("PATH", "/usr/bin:/bin")))
    tasks = [{"name": "The stand-in GPU first on PATH, podman's settings", "environment": environment, "block": [
        {"name": CHECK, "ansible.builtin.include_role": {"name": "blackwell.pytorch.verify", "tasks_from": "container"}}]}]
    _rc, stdout, stderr = run(tmp, tasks, hosts, check=check)
    assert "plays" in stdout, stderr
    return stdout


@pytest.fixture(scope="module")
def plays(tmp_path_factory, cdi_devices):
    """The check in check mode, then for real on three hosts, then once more on the host that passed."""
    tmp = tmp_path_factory.mktemp("container-check")
    podman_env = _podman_env(tmp)
    hosts = {name: {"verify_container_device": device} for name, device in cdi_devices.items()}
    done = {"check_mode": _play(tmp_path_factory.mktemp("check-mode"), hosts, podman_env, check=True)}
    done["images_after_check_mode"] = _images(podman_env)
    done["real"] = _play(tmp_path_factory.mktemp("real"), hosts, podman_env, check=False)
    done["images"] = _images(podman_env)
    done["again"] = _play(tmp_path_factory.mktemp("again"), {"same": hosts["same"]}, podman_env, check=False)
    done["devices"] = cdi_devices
    return done


def test_a_container_that_sees_the_hosts_gpus_passes_with_the_success_message(plays):
    result = outcome(plays["real"], "same")
    assert result["failed_task"] is None, result
    # The three hosts are one machine and import at the same time: whichever finds no image imports it.
    imports = [by_host for name, by_host in results(plays["real"])
               if name == ROLE + "Import the check image from the host's files (once)"]
    assert imports and "same" in imports[0] and any(host.get("changed") for host in imports[0].values()), imports
    assert SEES in result["tasks"], result
    assert plays["images"] == [IMAGE]
    messages = [by_host["same"].get("msg") for name, by_host in results(plays["real"])
                if name == SEES]
    assert messages == ["same: the container sees the host's 2 GPU(s): %s, %s" % (GPU0, GPU1)], messages


def test_the_check_image_is_imported_once_and_reused(plays):
    result = outcome(plays["again"], "same")
    assert result["failed_task"] is None, result
    assert result["changed_before"] == [], result  # the image is there: no second import


def test_a_container_missing_a_gpu_fails_naming_the_missing_gpu(plays):
    result = outcome(plays["real"], "one-missing")
    assert result["failed_task"] == SEES, result
    assert result["msg"].startswith(
        "one-missing: podman run --device %s: the container sees 1 of the host's 2 GPU(s); missing: %s (inside: GPU 0:"
        % (plays["devices"]["one-missing"], GPU1)), result["msg"]
    assert "Regenerate the CDI spec (blackwell.pytorch.container_toolkit)" in result["msg"], result["msg"]


def test_a_cdi_device_no_spec_defines_fails_with_podmans_error(plays):
    device = plays["devices"]["undefined"]
    result = outcome(plays["real"], "undefined")
    assert result["failed_task"] == SEES, result
    assert result["msg"].startswith("undefined: podman run --device %s failed (exit 126): "
                                    "Error: setting up CDI devices: unresolvable CDI devices %s." % (device, device)), \
        result["msg"]
    assert "the container sees" not in result["msg"], result["msg"]


def test_check_mode_lists_the_hosts_gpus_and_imports_or_starts_nothing(plays):
    for host in plays["devices"]:
        result = outcome(plays["check_mode"], host)
        assert result["failed_task"] is None, (host, result)
        assert result["tasks"] == [CHECK, ROLE + "List the host's GPUs"], (host, result)
    assert plays["images_after_check_mode"] == []
