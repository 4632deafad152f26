#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

DOCUMENTATION = r"""
---
module: preflight_facts
short_description: Read in one call everything a host must show before GPU provisioning
version_added: 0.3.0
description:
  - Reads, without changing anything, what the C(blackwell.pytorch.preflight) role checks, that is NVIDIA
    GPUs and the loaded driver (the PCI bus and procfs as M(blackwell.pytorch.gpu_facts) reads them
    without NVML; NVML's facts instead when a driver answers and the module's own Python imports C(nvidia-ml-py),
    or the tools venv of O(tools) holds it), whether that Python imports C(nvidia-ml-py), the
    Secure Boot state (as M(blackwell.pytorch.secure_boot_facts)), the running kernel's headers and
    whether their package can be installed (asked of apt's or dnf's cache, nothing downloaded),
    free disk where paths will live (statvfs of each path's nearest existing ancestor) and whether
    nouveau is loaded.
  - With O(gather_minimal), it also returns the OS facts the collection's roles read, named and valued as
    the setup module's (C(distribution), C(distribution_version), C(distribution_major_version),
    C(os_family), C(kernel), C(architecture), C(system), C(python), C(python_version), C(user_id),
    C(user_uid), C(effective_user_id)), read from C(/etc/os-release), so a play need not gather facts
    first. A play that needs more of Ansible's facts gathers them (C(gather_facts) or M(ansible.builtin.setup)).
  - One module call instead of seven keeps a converged play short; the three modules it shares
    code with stay available on their own.
author:
  - blackwell.pytorch maintainers (@blackwell-pytorch)
extends_documentation_fragment:
  - blackwell.pytorch.attributes
  - blackwell.pytorch.attributes.INFO_MODULE
  - blackwell.pytorch.attributes.FACTS
  - blackwell.pytorch.preflight_questions
options:
  gather_minimal: {description: "Also read and return the OS facts the roles read, as setup names them (see above).", type: bool, default: false}
  os_family:
    description:
      - C(ansible_facts.os_family); picks the package manager asked about the headers package.
      - Default, with O(gather_minimal), the OS family just collected.
      - V(Debian) asks C(apt-cache policy), V(RedHat) asks C(dnf --cacheonly list --available);
        any other value (or none) reports C(installable=unknown).
    type: str
    default: ''
  kernel: {description: Kernel release whose headers are looked for; default the running kernel., type: str}
  stages:
    description:
      - The stages of C(site.yml) this play runs after preflight (V(driver), V(toolkit), V(pytorch), V(verify)).
      - The refusals in RV(refusals) are decided for them; V([]) (a role used alone) decides none.
    type: list
    elements: str
    default: []
  distribution:
    description:
      - C(ansible_facts.distribution), C(distribution_version) and C(distribution_major_version) name the system in
        RV(preflight) (C(os)); default, with O(gather_minimal), the facts just collected.
    type: str
    default: ''
  distribution_version: {description: C(ansible_facts.distribution_version) (see O(distribution))., type: str, default: ''}
  distribution_major_version: {description: C(ansible_facts.distribution_major_version) (see O(distribution))., type: str, default: ''}
  host: {description: "The inventory name of the host, for the messages in RV(refused).", type: str, default: this host}
  supported_os:
    description:
      - The systems the collection supports, as C(<distribution> <version>) (Ubuntu by full version, the others by
        major version). A system not in the list is refused in RV(refused) unless O(allow_unsupported_os).
      - V([]) checks nothing.
    type: list
    elements: str
    default: []
  allow_unsupported_os: {description: Go on with a system not in O(supported_os) (a warning instead of a refusal)., type: bool, default: false}
  require_gpu: {description: "Refuse, in RV(refused), a host without an NVIDIA GPU on the PCI bus.", type: bool, default: false}
  connection: {description: "The play's connection type to this host (C(ansible_connection)); V(local) means this is the controller.", type: str, default: ssh}
  controller_machine_id: {description: "The controller's C(/etc/machine-id): a host with the same id is the controller.", type: str, default: ''}
  disk_checks:
    description: Paths (absolute; they need not exist yet) and the free space each needs.
    type: list
    elements: dict
    default: []
    suboptions:
      path:
        description: Absolute path (it need not exist).
        type: str
        required: true
      min_free_gib:
        description: Free GiB needed; V(0) only reports.
        type: float
        default: 0
"""

EXAMPLES = r"""
- name: Read the host before provisioning
  blackwell.pytorch.preflight_facts:
    os_family: "{{ ansible_facts['os_family'] }}"
    disk_checks:
      - {path: /opt/pytorch, min_free_gib: 25}
  register: preflight

- name: Say what was found
  ansible.builtin.debug:
    msg: >-
      {{ ansible_facts['nvidia_gpus'] | length }} GPU(s); Secure Boot
      {{ ansible_facts['blackwell_secure_boot']['state'] }}; headers installed:
      {{ preflight.kernel_headers.installed }}
"""

RETURN = r"""
ansible_facts:
  description: >-
    C(nvidia_gpus) and C(nvidia_driver) as M(blackwell.pytorch.gpu_facts) sets them without NVML,
    C(blackwell_secure_boot) as M(blackwell.pytorch.secure_boot_facts) sets it, and with
    O(gather_minimal) the OS facts the roles read, as the setup module names them.
  returned: always
  type: dict
kernel_headers:
  description: The running kernel's headers.
  returned: always
  type: dict
  contains:
    release: {description: Kernel release., type: str, sample: 6.8.0-48-generic}
    installed: {description: "Whether /lib/modules/<release>/build is a directory.", type: bool}
    package: {description: "Package that ships them ('' for an unknown OS family).", type: str, sample: linux-headers-6.8.0-48-generic}
    installable:
      description: "V(true) / V(false) from the package cache, or V(unknown) (also when the headers are installed: the cache is not asked then)."
      type: raw
disk:
  description: One entry per disk check (the path, the mount point it lands on, free and needed GiB, enough).
  returned: always
  type: list
  elements: dict
nouveau_loaded: {description: Whether the nouveau kernel module is loaded., returned: always, type: bool}
user:
  description: The user the module ran as (the play's privileges, after C(become)).
  returned: always
  type: dict
  contains:
    uid: {description: Effective uid., type: int, sample: 0}
    name: {description: Its name (the uid as text when the system has no name for it)., type: str, sample: root}
refusals:
  description:
    - What O(stages) cannot do on this host, one sentence each, without the host's name; empty when all can.
    - A stage that changes the host (V(driver), V(toolkit), V(pytorch)) without root; the V(driver) stage
      where it would build the kernel module against a running kernel whose headers are not installed
      and not offered by the package lists (a host with a driver loaded or driver packages installed is
      left to the C(blackwell.pytorch.nvidia_driver) role's own plan).
  returned: always
  type: list
  elements: str
refused:
  description:
    - Every reason to stop before a change, one message each naming O(host) and ending with the command line that
      fixes it, in this order; empty when the host may go on. An OS not in O(supported_os) (unless
      O(allow_unsupported_os)), no GPU when O(require_gpu), each of RV(refusals), the failed disk checks as one
      message, then the refusals of the answers to O(driver), O(toolkit), O(tools) and O(pytorch).
    - One message per cause - a stage answer's refusal of a cause already refused (root, the kernel headers) is left
      out, and the driver stage's headers refusal says how C(site.yml) runs without that stage.
  returned: always
  type: list
  elements: str
  sample: ['No NVIDIA GPU found on the PCI bus of ws1. To provision without one (image builds, tests): make site ARGS="-e blackwell_require_gpu=false"']
preflight:
  description:
    - What the C(blackwell.pytorch.preflight) role publishes as C(blackwell_preflight) (see its documentation), the
      keys C(os), C(gpus), C(driver), C(secure_boot), C(kernel), C(disk), C(nouveau_loaded), C(python), C(user),
      C(connection), C(health) (RV(health)), C(tools) (RV(tools)).
  returned: always
  type: dict
health:
  description:
    - The health reading with O(health) when NVML was read (this Python's or the tools venv's C(pynvml)), else null;
      also RV(preflight) (C(health)).
    - C(reading) is what M(blackwell.pytorch.gpu_health) returns as C(health); C(kernel_log) and C(textfile_dir) the
      O(health) it answers, C(driver_version) the driver it was read under, C(textfile) the textfile's text (null when absent).
  returned: always
  type: dict
summary:
  description: One line about the host (system, GPUs, driver, Secure Boot, headers, nouveau, connection).
  returned: always
  type: str
  sample: >-
    Ubuntu 24.04; 1 NVIDIA GPU(s) sm_120; driver 580.95.05 (open); Secure Boot disabled; headers installed;
    nouveau not loaded; connection ssh
python:
  description: The interpreter the module ran with.
  returned: always
  type: dict
  contains:
    executable: {description: Its path., type: str}
    pynvml: {description: "Whether it imports C(nvidia-ml-py) (the C(blackwell.pytorch.tools) role then needs no venv).", type: bool}
    nvml_from: {description: "Whose C(pynvml) NVML was read with: V(python) (its own), V(tools) (the tools venv's, O(tools)), V('') none.", type: str}
tools:
  description:
    - With O(tools), whether the tools venv holds its requirements (read from its files), else null; also RV(preflight) (C(tools)).
  returned: always
  type: dict
  contains:
    venv: {description: The venv read., type: str}
    requirements: {description: The requirements asked for (O(tools.requirements))., type: list, elements: str}
    ready: {description: "Whether it holds them all (its interpreter resolves, pyvenv.cfg, each distribution at its pin, pynvml there).", type: bool}
    reason: {description: "Why it is not ready ('' when it is).", type: str}
    missing: {description: "The requirements it lacks (all of them when the venv cannot be used).", type: list, elements: str}
    python: {description: "Its interpreter ('' when none resolves).", type: str}
    pynvml_site: {description: "The site-packages directory holding nvidia-ml-py's pynvml at its pin ('' when none).", type: str}
driver: {description: "With O(driver), M(blackwell.pytorch.nvidia_driver_state)'s result for this host, else null.", returned: always, type: dict}
toolkit:
  description:
    - With O(toolkit) answered, M(blackwell.pytorch.cuda_toolkit_state)'s result for this host (C(converged), C(changes), ...), else null.
  returned: always
  type: dict
pytorch:
  description:
    - With O(pytorch) answered, M(blackwell.pytorch.pytorch_plan)'s result for this host (C(plan), C(converged), ...) with
      C(ok) (no refusal; else C(msg)) and C(settled) (what the role publishes is in RV(stage_facts)), else null. On a
      settled host its C(cuda_check) is RV(stage_facts)' C(blackwell_cuda_check) instead.
  returned: always
  type: dict
stage_facts:
  description:
    - What the roles of the stages asked publish on a host the answers find as asked, each fact under its own name
      (C(nvidia_driver_status), C(nvidia_driver_reboot_required), C(cuda_toolkit_status), C(blackwell_pytorch),
      C(blackwell_cuda_check)); empty when none.
  returned: always
  type: dict
  version_added: 0.7.0
waits:
  description: Per stage (V(driver), V(toolkit), V(pytorch)), why its question was not answered here (its role asks it); "" when it was or was not given.
  returned: always
  type: dict
  version_added: 0.7.0
"""

import os
import platform
import sys

from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.common.arg_spec import ArgumentSpecValidator

from ansible_collections.blackwell.pytorch.plugins.module_utils.common.disk_space import space_report
from ansible_collections.blackwell.pytorch.plugins.module_utils.common import preflight as decide
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.os_facts import current_user, host_facts, read_first
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.program_run import runner
from ansible_collections.blackwell.pytorch.plugins.module_utils.common.tools_venv import (
    input_refusals as tools_refusals, nvml_bindings, read_venv)
from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.stage_refusals import (
    query_package_manager, site_leave_out, stage_refusals_by_cause)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.bus_facts import read_bus
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import kernel_log
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.health_probe import probe
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.kernel_headers import (
    headers_package, headers_query, headers_report, package_lists_present)
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.secure_boot import (
    read_secure_boot, run_mokutil)
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages import registry
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.driver import site_words
from ansible_collections.blackwell.pytorch.plugins.module_utils.stages.reading import Reading

try:
    import pynvml
except ImportError:
    pynvml = None

SYS_ROOT = "/sys"
PROC_VERSION = "/proc/driver/nvidia/version"
FIRMWARE_DIR = "/sys/firmware"
MODULES_ROOT = "/lib/modules"
APT_LISTS = "/var/lib/apt/lists"
DNF_CACHE = "/var/cache/dnf"
MACHINE_ID = "/etc/machine-id"
KMSG = "/dev/kmsg"
OS_RELEASE = ("/etc/os-release", "/usr/lib/os-release")
DEBIAN_VERSION = "/etc/debian_version"
TOOLKIT_ROOT = ""  # the toolkit answer's paths (/usr/local/cuda...) are under it ("" on a host)


def minimal_facts(user):
    """The OS facts the roles read (module_utils/common/os_facts.py), ansible_ prefixed. user: current_user()."""
    python = {"executable": sys.executable, "version_info": list(sys.version_info),
              "cpython": platform.python_implementation() == "CPython"}
    return host_facts(read_first(OS_RELEASE), read_first([DEBIAN_VERSION]), platform.release(), platform.machine(),
                      python, user["uid"], os.geteuid(), user["name"])


def stage_options(module, stage):
    """The stage's validated option (its name) against the stage's options as the probe takes them; None when
    omitted. Its errors fail the call, as the stage's own module would."""
    given = module.params[stage.NAME]
    if given is None:
        return None
    validated = ArgumentSpecValidator(registry.probe_spec(stage)).validate(given)
    if validated.error_messages:
        module.fail_json(msg="%s: %s" % (stage.NAME, "; ".join(validated.error_messages)))
    module.no_log_values.update(stage.secrets(validated.validated_parameters))
    return validated.validated_parameters


def main():
    module = AnsibleModule(
        argument_spec=dict(
            gather_minimal=dict(type="bool", default=False),
            os_family=dict(type="str", default=""),
            kernel=dict(type="str"),
            disk_checks=dict(type="list", elements="dict", default=[], options=dict(
                path=dict(type="str", required=True), min_free_gib=dict(type="float", default=0))),
            stages=dict(type="list", elements="str", default=[]),
            distribution=dict(type="str", default=""), distribution_version=dict(type="str", default=""),
            distribution_major_version=dict(type="str", default=""),
            host=dict(type="str", default="this host"),
            supported_os=dict(type="list", elements="str", default=[]),
            allow_unsupported_os=dict(type="bool", default=False),
            require_gpu=dict(type="bool", default=False),
            connection=dict(type="str", default="ssh"),
            controller_machine_id=dict(type="str", default="", no_log=False),
            health=dict(type="dict", options=dict(kernel_log=dict(type="str", default="auto", choices=[
                "auto", "journal", "kmsg", "never"]), textfile_dir=dict(type="path", default=""))),
            tools=dict(type="dict", options=dict(
                venv=dict(type="path", required=True), requirements=dict(type="list", elements="str", required=True),
                base_python=dict(type="str", default=""), wheelhouse=dict(type="str", default=""))),
            driver=dict(type="dict"),  # the stages' questions: each checked against its stage's OPTIONS (stage_options)
            toolkit=dict(type="dict"),
            pytorch=dict(type="dict"),
        ),
        supports_check_mode=True,
    )
    params = module.params
    asked = dict((stage.NAME, stage_options(module, stage)) for stage in registry.STAGES)
    run = runner(module.get_bin_path, module.run_command)
    user = current_user()
    facts = minimal_facts(user) if params["gather_minimal"] else {}
    os_family = params["os_family"] or facts.get("ansible_os_family", "")
    kernel = params["kernel"] or facts.get("ansible_kernel") or platform.release()
    tools = read_venv(params["tools"]["venv"], params["tools"]["requirements"]) if params["tools"] else None
    nvml, nvml_from, without_nvml, tools = nvml_bindings(pynvml, tools, sys.executable)
    gpus, driver, health = probe(read_bus(SYS_ROOT, PROC_VERSION), nvml, without_nvml, params["health"],
                                 lambda mode: kernel_log(mode, module.get_bin_path, module.run_command, KMSG))
    driver["python"] = sys.executable
    secure_boot = read_secure_boot(run_mokutil(module.get_bin_path, module.run_command), FIRMWARE_DIR)
    package = headers_package(os_family, kernel)
    # The package manager is asked (a quarter of a second) only when the headers are missing: that is
    # the only case where whether they can be had decides anything.
    installed = bool(kernel) and os.path.isdir(os.path.join(MODULES_ROOT, kernel, "build"))
    query = None if installed else query_package_manager(run, headers_query(os_family, package))
    try:
        disk = [space_report(check["path"], check["min_free_gib"]) for check in params["disk_checks"]]
    except (ValueError, OSError) as err:
        module.fail_json(msg=str(err))
    headers = headers_report(os_family, kernel, MODULES_ROOT, query,
                             package_lists_present(os_family, APT_LISTS, DNF_CACHE))
    stages = [s.strip() for s in params["stages"]]
    stage_entries = stage_refusals_by_cause(run, stages, user, os_family, headers, driver, asked["toolkit"])
    os_facts = {
        "distribution": params["distribution"] or facts.get("ansible_distribution", ""),
        "version": params["distribution_version"] or facts.get("ansible_distribution_version", ""),
        "major_version": params["distribution_major_version"] or facts.get("ansible_distribution_major_version", ""),
        "family": os_family,
    }
    nouveau = os.path.isdir(os.path.join(SYS_ROOT, "module", "nouveau"))
    python = {"executable": sys.executable, "pynvml": pynvml is not None, "nvml_from": nvml_from}
    connection = {"type": params["connection"], "local": decide.connection_is_local(
        params["connection"], params["controller_machine_id"], read_first([MACHINE_ID]).strip())}
    supported_or_this = params["supported_os"] or [decide.os_label(
        os_facts["distribution"], os_facts["version"], os_facts["major_version"])]
    preflight = decide.published(os_facts, supported_or_this, gpus, driver, params["require_gpu"], secure_boot,
                                 headers, disk, nouveau, python, user, connection)
    preflight.update(health=health, tools=tools)
    found = registry.ask_all(asked, Reading(
        host=params["host"], user=user, gpus=gpus, loaded=driver, preflight=preflight, run=run,
        has_program=lambda name: module.get_bin_path(name) is not None, warn=module.warn, tools=tools,
        check_mode=module.check_mode, machine=platform.machine(), toolkit_root=TOOLKIT_ROOT))
    stage_refused = found["refusals"]
    label = preflight["os"]["label"]
    supported = params["supported_os"]
    if supported and label not in supported and params["allow_unsupported_os"]:
        module.warn("%s is not supported (preflight_allow_unsupported_os is true); nothing is tested there." % label)
    module.exit_json(
        changed=False,
        ansible_facts=dict(facts, nvidia_gpus=gpus, nvidia_driver=driver, blackwell_secure_boot=secure_boot),
        kernel_headers=headers, disk=disk, nouveau_loaded=nouveau,
        python=python,
        user=user,
        refusals=[message for _cause, message in stage_entries],
        refused=decide.one_per_cause(
            decide.refusal_entries(params["host"], label, supported or [label], params["allow_unsupported_os"],
                                   len(gpus), params["require_gpu"], stage_entries, disk)
            + site_words(stage_refused["driver"] + stage_refused["toolkit"], params["host"], headers,
                         site_leave_out(stages, driver, asked["toolkit"]))
            + [(None, message) for message in (tools_refusals(params["host"], **dict(
                (key, params["tools"][key]) for key in ("venv", "base_python", "wheelhouse"))) if params["tools"] else [])]
            + stage_refused["pytorch"]),
        preflight=preflight,
        health=health,
        tools=tools,
        **found["answers"],  # driver, toolkit, pytorch: each stage's answer, None when not asked
        stage_facts=found["facts"],
        waits=found["waits"],
        summary=decide.summary(preflight),
    )


if __name__ == "__main__":
    main()
