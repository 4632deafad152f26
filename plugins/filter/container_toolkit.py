# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Filters of the container_toolkit role and of the verify role's container check: thin shells over
module_utils/containers, each documented in the file of its name beside this one."""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.plugin_utils.filter_args import as_bool, as_dict, as_list, call, text
from ansible_collections.blackwell.pytorch.plugins.plugin_utils.lazy_import import module_utils

cdi = module_utils("containers.cdi")
cdi_compat = module_utils("containers.cdi_compat")
gpu_match = module_utils("containers.gpu_match")
inputs = module_utils("containers.inputs")
plan = module_utils("containers.plan")
probe = module_utils("containers.probe")
repo_key = module_utils("containers.repo_key")
runtimes = module_utils("containers.runtimes")


def container_toolkit_probe(probe_text):
    """The role's probe output read into driver, GPUs, runtimes, packages and the CDI spec's recorded fingerprint."""
    return probe.read_probe(text(probe_text))


def container_toolkit_inputs(repo_url, key_url="", key_content="", fingerprints=None, proxy="", version="", spec="",
                             driver_root="", driver_root_mode=None):
    """{ok, problems} of the repository inputs, the pinned version, the CDI spec path and the driver directory."""
    fingerprints = _fingerprints(fingerprints, "container_toolkit_inputs")
    problems = inputs.input_problems(text(repo_url), text(key_url), text(key_content), fingerprints, text(proxy),
                                     text(version), text(spec), text(driver_root),
                                     None if driver_root_mode is None else int(driver_root_mode))
    return {"ok": not problems, "problems": problems}


def container_toolkit_runtimes(asked, present=None, active=None):
    """The runtimes to configure (asked, or those present), and the refusals."""
    name = "container_toolkit_runtimes"
    if isinstance(asked, str):  # -e container_toolkit_runtimes=docker,containerd
        asked = asked.split(",")
    return runtimes.runtime_plan(as_list(asked, "asked", name), as_list(present, "present", name),
                                 as_list(active, "active", name))


def container_toolkit_config_changed(proposed, current="", runtime="docker", drop_in=""):
    """Whether nvidia-ctk's dry run changes the runtime's configuration file (and containerd's drop-in file)."""
    return call("container_toolkit_config_changed", runtimes.config_changed, text(runtime), text(current), text(proposed),
                text(drop_in))


def container_toolkit_cdi_plan(driver_version, gpus=None, recorded="", spec_exists=False, toolkit_version="",
                               args=None, spec="", installed_driver="", management=False, management_exists=False):
    """generate / regenerate / keep / defer the CDI spec, with the reason and the fingerprint to record."""
    name = "container_toolkit_cdi_plan"
    return cdi.cdi_plan(text(driver_version), [text(g) for g in as_list(gpus, "gpus", name)], text(recorded),
                        as_bool(spec_exists, "spec_exists", name), text(toolkit_version),
                        [text(a) for a in as_list(args, "args", name)], text(spec), text(installed_driver),
                        as_bool(management, "management", name), as_bool(management_exists, "management_exists", name))


def _fingerprints(value, name):
    """The pinned fingerprints: text is left to the check, which refuses it naming the variable."""
    return value if isinstance(value, str) else as_list(value, "fingerprints", name)


# The plan's settings read as text.
_PLAN_TEXT = ("version", "repo_url", "key_url", "key_content", "proxy", "spec", "driver_root")


def container_toolkit_plan(probe_text, settings=None):
    """The role's preflight decision over its probe's output: refusals, runtimes, toolkit in place, CDI spec."""
    name = "container_toolkit_plan"
    given = as_dict(settings, "settings", name)
    status = given.get("driver_status")
    if status is not None:
        status = as_dict(status, "driver_status", name)
        status["reboot_required"] = as_bool(status.get("reboot_required") or False, "driver_status.reboot_required", name)
    asked = given.get("runtimes")
    if isinstance(asked, str):  # -e container_toolkit_runtimes=docker,containerd
        asked = asked.split(",")
    typed = {key: text(given.get(key)) for key in _PLAN_TEXT}
    typed.update(
        os={key: text(value) for key, value in as_dict(given.get("os"), "os", name).items()},
        supported_os=[text(item) for item in as_list(given.get("supported_os"), "supported_os", name)],
        require_driver=as_bool(given.get("require_driver", True), "require_driver", name),
        driver_status=status, runtimes=[text(item) for item in as_list(asked, "runtimes", name)],
        packages=[text(item) for item in as_list(given.get("packages"), "packages", name)],
        fingerprints=_fingerprints(given.get("fingerprints"), name),
        cdi_args=[text(item) for item in as_list(given.get("cdi_args"), "cdi_args", name)],
        check_mode=as_bool(given.get("check_mode", False), "check_mode", name),
        management=as_bool(given.get("management", False), "management", name))
    return call(name, plan.preflight_plan, text(probe_text), typed)


def container_toolkit_cdi_check(listing, spec, limits=None, management_spec="", ignore_dirs=None, preview=False):
    """The specs after generation: nvidia.com/gpu=all defined once, the management spec, versions the engines read."""
    name = "container_toolkit_cdi_check"
    return call(name, cdi_compat.cdi_check, text(listing), text(spec),
                [as_dict(item, "limits", name) for item in as_list(limits, "limits", name)], text(management_spec),
                [text(item) for item in as_list(ignore_dirs, "ignore_dirs", name)], as_bool(preview, "preview", name))


def container_toolkit_repo_key(sources, fingerprints=None):
    """The repository key (inline, fetched, or the host's copy) and whether it may be trusted, with the refusal."""
    name = "container_toolkit_repo_key"
    given = as_dict(sources, "_input", name)
    return repo_key.repo_key(text(given.get("content")), text(given.get("url")),
                             as_dict(given.get("fetched"), "fetched", name), as_dict(given.get("on_host"), "on_host", name),
                             [text(item) for item in as_list(fingerprints, "fingerprints", name)])


def container_toolkit_deb_arch(machine):
    """dpkg's name of the architecture (uname -m), which the repository's layout uses."""
    return plan.deb_arch(text(machine))


def container_toolkit_gpu_match(host_text, container_text=""):
    """Whether nvidia-smi -L in a container lists exactly the host's GPUs."""
    return gpu_match.gpu_match(text(host_text), text(container_text))


class FilterModule(object):
    """blackwell.pytorch container toolkit filters."""

    def filters(self):
        return {"container_toolkit_probe": container_toolkit_probe,
                "container_toolkit_inputs": container_toolkit_inputs,
                "container_toolkit_runtimes": container_toolkit_runtimes,
                "container_toolkit_config_changed": container_toolkit_config_changed,
                "container_toolkit_cdi_plan": container_toolkit_cdi_plan,
                "container_toolkit_cdi_check": container_toolkit_cdi_check,
                "container_toolkit_plan": container_toolkit_plan,
                "container_toolkit_repo_key": container_toolkit_repo_key,
                "container_toolkit_deb_arch": container_toolkit_deb_arch,
                "container_toolkit_gpu_match": container_toolkit_gpu_match}
