# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The container_toolkit role's preflight decision (containers/plan.py) and its repository key (containers/repo_key.py)."""
from __future__ import annotations

import base64
import stat

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.cdi import fingerprint, record_text
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.plan import (
    deb_arch, driver_problem, in_place, os_label, os_problem, preflight_plan)
from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.repo_key import key_text, repo_key
from openpgp_keys import ED_FPR, ED_KEY, ED_NAME

NVRM = ("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build  "
        "(dvs-builder@U16-I3-B03-4-3)  Tue Sep 23 09:00:00 UTC 2025")
FPR = "C95B321B61E88C1809C4F759DDCAE044F796ECB0"
PACKAGES = ["nvidia-container-toolkit", "nvidia-container-toolkit-base", "libnvidia-container-tools",
            "libnvidia-container1"]
SUPPORTED = ["Ubuntu 22.04", "Ubuntu 24.04", "Debian 12", "Debian 13"]
UBUNTU = {"family": "Debian", "distribution": "Ubuntu", "version": "24.04"}
SPEC = "/etc/cdi/nvidia.yaml"
NO_DRIVER = ("no NVIDIA driver is loaded (/proc/driver/nvidia/version is absent) and the nvidia_driver role did not "
             "run in this play: run it first (site.yml stages driver and containers), or set "
             "container_toolkit_require_driver: false (or blackwell_require_gpu: false) for an image build")
KEY_URL = "https://nvidia.github.io/libnvidia-container/gpgkey"


def _settings(**changes):
    settings = {"os": UBUNTU, "supported_os": SUPPORTED, "require_driver": True, "driver_status": None,
                "runtimes": [], "packages": PACKAGES, "version": "1.17.8-1",
                "repo_url": "https://nvidia.github.io/libnvidia-container/stable/deb/amd64/", "key_url": KEY_URL,
                "key_content": "", "fingerprints": [FPR], "proxy": "", "spec": SPEC, "cdi_args": [],
                "driver_root": "/proc/driver/nvidia", "check_mode": False}
    settings.update(changes)
    return settings


def _probe(*lines, packages="1.17.8-1", held="h"):
    rows = ["root\t%x" % (stat.S_IFDIR | 0o555), "nvrm\t" + NVRM, "gpu\t0000:01:00.0",
            "runtime\tdockerd\t/usr/bin/dockerd\tDocker version 27.5.1, build x", "active\tdocker"]
    if packages:
        rows += ["package\t%s\t%s\t%si " % (name, packages, held) for name in PACKAGES]
    return "\n".join(rows + list(lines))


@pytest.mark.parametrize("machine,arch", [("x86_64", "amd64"), ("aarch64", "arm64"), ("", "amd64"),
                                          ("ppc64le", "ppc64le")])
def test_the_architecture_as_dpkg_names_it(machine, arch):
    assert deb_arch(machine) == arch


@pytest.mark.parametrize("distribution,version,label", [
    ("Ubuntu", "24.04", "Ubuntu 24.04"), ("Debian", "12.11", "Debian 12"), ("Rocky", "9.6", "Rocky 9"),
    ("Debian", "13", "Debian 13")])
def test_the_os_label_is_ubuntus_full_version_and_anothers_major(distribution, version, label):
    assert os_label(distribution, version) == label


def test_an_os_outside_the_supported_ones_or_not_debian_is_refused():
    assert os_problem(UBUNTU, SUPPORTED) is None
    assert os_problem({"family": "Debian", "distribution": "Ubuntu", "version": "20.04"}, SUPPORTED) == (
        "Ubuntu 20.04 is not supported by the container_toolkit role (container_toolkit_supported_os: "
        "Ubuntu 22.04, Ubuntu 24.04, Debian 12, Debian 13)")
    assert os_problem({"family": "RedHat", "distribution": "Rocky", "version": "9.6"}, ["Rocky 9"]) == (
        "Rocky 9 is not supported by the container_toolkit role (container_toolkit_supported_os: Rocky 9)")


def test_no_driver_is_refused_unless_the_driver_stage_ran_or_none_is_required():
    assert driver_problem("", False, True, "/proc/driver/nvidia") == NO_DRIVER
    assert driver_problem("580.95.05", False, True, "/proc/driver/nvidia") is None
    assert driver_problem("", True, True, "/proc/driver/nvidia") is None
    assert driver_problem("", False, False, "/proc/driver/nvidia") is None


def test_the_toolkit_is_in_place_when_every_package_is_installed_at_the_version():
    packages = {name: {"version": "1.17.8-1", "installed": True, "held": False} for name in PACKAGES}
    assert in_place(packages, PACKAGES, "1.17.8-1")
    assert not in_place(packages, PACKAGES, "1.18.0-1")
    assert not in_place({name: packages[name] for name in PACKAGES[:3]}, PACKAGES, "1.17.8-1")
    packages["libnvidia-container1"] = {"version": "1.17.8-1", "installed": False, "held": False}
    assert not in_place(packages, PACKAGES, "1.17.8-1")


def test_a_converged_host_is_in_place_and_keeps_its_spec():
    record = record_text(fingerprint("580.95.05", ["0000:01:00.0"], "1.17.8-1", [], SPEC))
    text = _probe("spec\t" + SPEC, "fingerprint\t" + base64.b64encode(record.encode()).decode())
    plan = preflight_plan(text, _settings())
    assert plan["ok"] and plan["problems"] == [] and plan["in_place"] and plan["ctk_usable"]
    assert plan["driver"] == "580.95.05" and plan["hold"] == [] and plan["state"]["gpus"] == ["0000:01:00.0"]
    assert plan["runtimes"]["configure"] == ["docker"] and plan["runtimes"]["restartable"] == ["docker"]
    assert plan["cdi"]["action"] == "keep"
    assert plan["msg"] == ("toolkit 1.17.8-1 (in place); runtimes found: configure docker; CDI only: none; CDI spec: "
                           "keep (/etc/cdi/nvidia.yaml matches driver 580.95.05 and the GPUs 0000:01:00.0)")


def test_a_fresh_host_installs_holds_and_generates_and_a_check_run_cannot_use_nvidia_ctk():
    plan = preflight_plan(_probe(packages=""), _settings())
    assert plan["ok"] and not plan["in_place"] and plan["ctk_usable"] and plan["hold"] == PACKAGES
    assert plan["cdi"]["action"] == "generate"
    assert plan["msg"] == ("toolkit 1.17.8-1 (to install); runtimes found: configure docker; CDI only: none; "
                           "CDI spec: generate (no CDI spec at /etc/cdi/nvidia.yaml yet (driver 580.95.05))")
    assert not preflight_plan(_probe(packages=""), _settings(check_mode=True))["ctk_usable"]
    assert preflight_plan(_probe(), _settings(check_mode=True))["ctk_usable"]


def test_only_the_packages_not_held_are_held():
    text = _probe(held="i").replace("libnvidia-container1\t1.17.8-1\tii", "libnvidia-container1\t1.17.8-1\thi")
    assert preflight_plan(text, _settings())["hold"] == PACKAGES[:3]


def test_every_refusal_comes_at_once_in_order_os_driver_inputs_runtimes():
    probe = "root\t%x" % (stat.S_IFDIR | 0o555)
    plan = preflight_plan(probe, _settings(os={"family": "RedHat", "distribution": "Rocky", "version": "9"},
                                           version="1.17.8", runtimes=["podman"]))
    assert not plan["ok"] and plan["problems"] == [
        "Rocky 9 is not supported by the container_toolkit role (container_toolkit_supported_os: Ubuntu 22.04, "
        "Ubuntu 24.04, Debian 12, Debian 13)", NO_DRIVER,
        "container_toolkit_version must be a full package version such as 1.17.8-1 (the same for the four toolkit "
        "packages), not '1.17.8'",
        "container_toolkit_runtimes asks for podman, not installed on this host (found: no container engine): install "
        "it first or take it out of container_toolkit_runtimes"]
    assert plan["driver"] == "" and plan["cdi"]["action"] == "defer"


def test_the_driver_stage_having_run_stands_for_a_loaded_driver():
    assert preflight_plan("", _settings(driver_status={"version": "580.95.05", "reboot_required": False}))["ok"]
    assert preflight_plan("", _settings(require_driver=False))["ok"]


def test_a_driver_root_that_is_a_file_is_refused_from_the_probes_reading():
    plan = preflight_plan("root\t%x" % (stat.S_IFREG | 0o644), _settings(require_driver=False))
    assert plan["problems"] == ["container_toolkit_driver_root /proc/driver/nvidia is a file, not a directory: give a "
                                "directory (or a path that is not there yet), e.g. -e "
                                "container_toolkit_driver_root=/proc/driver/nvidia"]


def test_the_cdi_spec_waits_for_the_reboot_of_a_driver_installed_in_this_play():
    pending = {"version": "580.105.08", "reboot_required": True}
    assert preflight_plan(_probe(), _settings(driver_status=pending))["cdi"]["reason"] == (
        "driver 580.105.08 is installed but 580.95.05 is loaded (a reboot is pending): the CDI spec is generated by "
        "the first run after the reboot")
    loaded = dict(pending, reboot_required=False)
    assert preflight_plan(_probe(), _settings(driver_status=loaded))["cdi"]["action"] == "generate"


def test_the_cdi_plan_takes_the_settings_generate_options_and_spec():
    plan = preflight_plan(_probe("spec\t/etc/cdi/x.yaml"), _settings(cdi_args=["--device-name-strategy=uuid"],
                                                                     spec="/etc/cdi/x.yaml"))
    assert plan["cdi"]["fingerprint"] == {"driver": "580.95.05", "gpus": ["0000:01:00.0"], "toolkit": "1.17.8-1",
                                          "args": ["--device-name-strategy=uuid"], "spec": "/etc/cdi/x.yaml",
                                          "management": False}
    assert plan["cdi"]["action"] == "regenerate"


def test_the_key_given_inline_comes_first_then_the_fetched_one_then_the_hosts_copy():
    on_host = {"content": base64.b64encode(b"host key").decode()}
    assert key_text("inline key", {"content": "fetched key"}, on_host) == "inline key"
    assert key_text("", {"content": "fetched key", "status": 200}, on_host) == "fetched key"
    assert key_text("", {"skipped": True}, on_host) == "host key"
    assert key_text("", {}, {"failed": True, "msg": "file not found"}) == ""
    assert key_text("", {}, {"content": "%%% not base64"}) == ""


def test_a_pinned_key_is_trusted():
    result = repo_key("", KEY_URL, {"content": ED_KEY, "status": 200}, {}, [ED_FPR])
    assert result == {"ok": True, "text": ED_KEY, "msg": "pinned key(s): %s (%s)" % (ED_FPR, ED_NAME)}
    on_host = {"content": base64.b64encode(ED_KEY.encode()).decode()}
    assert repo_key("", KEY_URL, {"skipped": True}, on_host, [ED_FPR])["ok"]


def test_a_key_that_cannot_be_fetched_is_refused_with_what_to_change():
    result = repo_key("", KEY_URL, {"status": 404, "content": ""}, {}, [FPR])
    assert result == {"ok": False, "text": "", "msg": (
        "the repository key https://nvidia.github.io/libnvidia-container/gpgkey cannot be fetched (HTTP 404): point "
        "container_toolkit_repo_base_url at a reachable mirror, set container_toolkit_repo_proxy, or give the key in "
        "container_toolkit_repo_key_content")}


def test_a_key_not_pinned_is_refused_naming_where_it_came_from():
    fetched = repo_key("", KEY_URL, {"content": ED_KEY, "status": 200}, {}, [FPR])
    assert fetched["msg"] == (
        "the repository key from %s is not trusted: key(s) not in the pinned list %s: %s (%s). If NVIDIA rotated its "
        "key, add the new fingerprint to container_toolkit_repo_key_fingerprints after checking it out of band"
        % (KEY_URL, FPR, ED_FPR, ED_NAME))
    inline = repo_key(ED_KEY, KEY_URL, {"skipped": True}, {}, [FPR])
    assert not inline["ok"] and inline["msg"].startswith(
        "the repository key from container_toolkit_repo_key_content is not trusted: key(s) not in the pinned list")
