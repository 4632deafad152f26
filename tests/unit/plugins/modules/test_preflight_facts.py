# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations

import os
import pwd
import sys

import pytest
from ansible.module_utils import basic

import fake_pynvml as fake

from ansible_collections.blackwell.pytorch.plugins.modules import preflight_facts
from sysfs_tree import OPEN_LINE, add_pci

APT_CANDIDATE = ("linux-headers-6.8.0-48-generic:\n  Installed: (none)\n  Candidate: 6.8.0-48.48\n"
                 "  Version table:\n     6.8.0-48.48 500\n")
APT_NONE = "linux-headers-6.8.0-48-generic:\n  Installed: (none)\n  Candidate: (none)\n"


@pytest.fixture
def host(tmp_path, monkeypatch):
    """A fake machine under tmp_path: sysfs, procfs, firmware, /lib/modules and a package manager."""
    sys_root = tmp_path / "sys"
    (sys_root / "bus" / "pci" / "devices").mkdir(parents=True)
    firmware = sys_root / "firmware"
    firmware.mkdir()
    modules = tmp_path / "lib_modules"
    modules.mkdir()
    proc = tmp_path / "proc_version"
    monkeypatch.setattr(preflight_facts, "SYS_ROOT", str(sys_root))
    monkeypatch.setattr(preflight_facts, "PROC_VERSION", str(proc))
    monkeypatch.setattr(preflight_facts, "FIRMWARE_DIR", str(firmware))
    monkeypatch.setattr(preflight_facts, "MODULES_ROOT", str(modules))
    monkeypatch.setattr(preflight_facts, "pynvml", None)
    apt_lists, dnf_cache = tmp_path / "apt_lists", tmp_path / "dnf_cache"
    apt_lists.mkdir()
    (apt_lists / "deb.debian.org_debian_dists_bookworm_main_binary-amd64_Packages").write_text("Package: dkms\n")
    (dnf_cache / "baseos-1234" / "repodata").mkdir(parents=True)
    monkeypatch.setattr(preflight_facts, "APT_LISTS", str(apt_lists))
    monkeypatch.setattr(preflight_facts, "DNF_CACHE", str(dnf_cache))

    class Host:
        programs = {}  # program -> (rc, stdout)
        commands = []

        def gpu(self, bus_id, device):
            add_pci(sys_root, bus_id, 0x10DE, device, 0x030200)

        def driver(self, line):
            proc.write_text(line)
            (sys_root / "module" / "nvidia").mkdir(parents=True, exist_ok=True)

        def nouveau(self):
            (sys_root / "module" / "nouveau").mkdir(parents=True, exist_ok=True)

        def headers(self, release):
            (modules / release / "build").mkdir(parents=True)

        def no_package_lists(self):
            for entry in apt_lists.iterdir():
                entry.unlink()

        def efi(self, secure_boot_byte):
            efivars = firmware / "efi" / "efivars"
            efivars.mkdir(parents=True)
            (efivars / "SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c").write_bytes(
                b"\x06\x00\x00\x00" + bytes([secure_boot_byte]))

    fake = Host()

    def get_bin_path(self, name, *args, **kwargs):
        return "/usr/bin/" + name if name in fake.programs else None

    def run_command(self, argv, *args, **kwargs):
        fake.commands.append(list(argv))
        rc, out = fake.programs[argv[0].rsplit("/", 1)[-1]]
        if callable(out):
            out = out(argv)
        return rc, out, ""

    monkeypatch.setattr(basic.AnsibleModule, "get_bin_path", get_bin_path)
    monkeypatch.setattr(basic.AnsibleModule, "run_command", run_command)
    return fake


def test_a_bare_debian_host_with_a_5090(host, run_module, tmp_path):
    host.gpu("0000:01:00.0", 0x2B85)
    host.programs["apt-cache"] = (0, APT_CANDIDATE)
    host.efi(0)
    status, result = run_module(preflight_facts, {
        "os_family": "Debian", "kernel": "6.8.0-48-generic",
        "disk_checks": [{"path": str(tmp_path / "opt" / "pytorch"), "min_free_gib": 0}]})
    assert status == "exit" and result["changed"] is False
    (gpu,) = result["ansible_facts"]["nvidia_gpus"]
    assert (gpu["name"], gpu["sm"], gpu["source"], gpu["nvml_visible"]) == (
        "NVIDIA GeForce RTX 5090", "sm_120", "sysfs", False)
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["loaded"], driver["version"], driver["source"]) == (False, None, "none")
    assert result["ansible_facts"]["blackwell_secure_boot"] == {
        "state": "disabled", "method": "efivars", "detail": "EFI variable SecureBoot=0"}
    assert result["kernel_headers"] == {"release": "6.8.0-48-generic", "installed": False,
                                        "package": "linux-headers-6.8.0-48-generic", "installable": True}
    assert host.commands == [["/usr/bin/apt-cache", "policy", "linux-headers-6.8.0-48-generic"]]
    (disk,) = result["disk"]
    assert disk["measured_at"] == str(tmp_path) and disk["ok"] is True
    assert result["nouveau_loaded"] is False


def test_driver_loaded_headers_present_nouveau_and_secure_boot_on(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.headers("6.8.0-48-generic")
    host.nouveau()
    host.efi(1)
    host.programs["apt-cache"] = (0, APT_NONE)
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic"})
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["loaded"], driver["version"], driver["kernel_module_flavor"], driver["source"]) == (
        True, "580.159.04", "open", "procfs")
    assert result["kernel_headers"]["installed"] is True
    # installed headers: the package manager is not asked (nothing depends on the answer)
    assert result["kernel_headers"]["installable"] == "unknown"
    assert not any(command[0].endswith("apt-cache") for command in host.commands), host.commands
    assert result["ansible_facts"]["blackwell_secure_boot"]["state"] == "enabled"
    assert result["nouveau_loaded"] is True
    assert result["disk"] == []


@pytest.mark.parametrize("family,programs,installable,asked", [
    ("RedHat", {"dnf": (0, "kernel-devel.x86_64 5.14.0-427 baseos\n")}, True, "dnf"),
    ("RedHat", {"dnf": (1, "")}, False, "dnf"),
    ("RedHat", {}, "unknown", None),           # no dnf: nothing asked
    ("Debian", {}, "unknown", None),           # no apt-cache (a minimal image)
    ("Suse", {"apt-cache": (0, APT_CANDIDATE)}, "unknown", None),  # an unknown family asks nothing
])
def test_headers_installable_per_package_manager(host, run_module, family, programs, installable, asked):
    host.programs.update(programs)
    status, result = run_module(preflight_facts, {"os_family": family, "kernel": "5.14.0-427.el9.x86_64"})
    assert status == "exit"
    assert result["kernel_headers"]["installable"] == installable
    assert [c[0].rsplit("/", 1)[-1] for c in host.commands] == ([asked] if asked else [])


def test_mokutil_answers_before_the_firmware(host, run_module):
    host.programs["mokutil"] = (0, "SecureBoot enabled\n")
    host.efi(0)
    status, result = run_module(preflight_facts, {})
    assert result["ansible_facts"]["blackwell_secure_boot"]["method"] == "mokutil"
    assert result["ansible_facts"]["blackwell_secure_boot"]["state"] == "enabled"
    assert result["kernel_headers"]["package"] == ""


def test_a_relative_disk_path_is_refused(host, run_module):
    status, result = run_module(preflight_facts, {"disk_checks": [{"path": "opt/pytorch"}]})
    assert status == "fail" and "opt/pytorch" in result["msg"]


def test_gather_minimal_returns_the_os_facts_the_roles_read(host, run_module, tmp_path, monkeypatch):
    host.programs["apt-cache"] = (0, APT_CANDIDATE)
    host.programs["dnf"] = (0, "kernel-devel\n")
    os_release = tmp_path / "os-release"
    os_release.write_text('PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\nID=debian\n')
    debian_version = tmp_path / "debian_version"
    debian_version.write_text("12.7\n")
    monkeypatch.setattr(preflight_facts, "OS_RELEASE", (str(tmp_path / "absent"), str(os_release)))
    monkeypatch.setattr(preflight_facts, "DEBIAN_VERSION", str(debian_version))
    status, result = run_module(preflight_facts, {"gather_minimal": True})
    assert status == "exit"
    facts = result["ansible_facts"]
    assert (facts["ansible_distribution"], facts["ansible_distribution_version"],
            facts["ansible_distribution_major_version"], facts["ansible_os_family"]) == ("Debian", "12.7", "12", "Debian")
    for key in ("ansible_kernel", "ansible_python", "ansible_architecture", "ansible_effective_user_id",
                "ansible_user_id"):
        assert key in facts, key
    assert not any(key.startswith("ansible_pkg_mgr") for key in facts)  # Ansible's collectors are not run
    assert facts["ansible_python"]["executable"]
    # The headers are asked about for the OS family and kernel just collected.
    assert result["kernel_headers"]["release"] == facts["ansible_kernel"]
    assert result["kernel_headers"]["package"].endswith(facts["ansible_kernel"])
    assert "nvidia_gpus" in facts and "blackwell_secure_boot" in facts


def test_without_gather_minimal_no_os_fact_is_returned(host, run_module):
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.1.0-13-amd64"})
    assert sorted(result["ansible_facts"]) == ["blackwell_secure_boot", "nvidia_driver", "nvidia_gpus"]


def test_nvml_facts_when_the_interpreter_has_nvidia_ml_py(host, run_module, monkeypatch):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    status, result = run_module(preflight_facts, {})
    assert result["python"]["pynvml"] is False
    assert result["ansible_facts"]["nvidia_driver"]["source"] == "procfs"
    assert result["ansible_facts"]["nvidia_driver"]["nvml_error"].startswith("NVML not used (nvidia-ml-py is not installed")
    monkeypatch.setattr(preflight_facts, "pynvml", fake.FakeNVML([fake.H100]))
    status, result = run_module(preflight_facts, {})
    assert result["python"]["pynvml"] is True
    (gpu,) = result["ansible_facts"]["nvidia_gpus"]
    assert (gpu["name"], gpu["source"], gpu["nvml_visible"], gpu["uuid"] is not None) == (
        "NVIDIA H100 80GB HBM3", "nvml", True, True)
    driver = result["ansible_facts"]["nvidia_driver"]
    assert (driver["source"], driver["cuda_driver_version"], driver["nvml_error"]) == ("nvml", "13.0", None)
    # a driver that does not answer: the bus's facts, NVML's error named, no failure and no warning
    monkeypatch.setattr(preflight_facts, "pynvml", fake.FakeNVML([], init_error=fake.NVMLError_DriverNotLoaded))
    status, result = run_module(preflight_facts, {})
    assert status == "exit" and result["warnings"] == []
    assert result["ansible_facts"]["nvidia_driver"]["nvml_error"] == "NVMLError_DriverNotLoaded: Driver Not Loaded"
    assert result["ansible_facts"]["nvidia_gpus"][0]["source"] == "sysfs"


DEBIAN_99 = {"os_family": "Debian", "kernel": "6.1.0-99-amd64"}
APT_NONE_99 = "linux-headers-6.1.0-99-amd64:\n  Installed: (none)\n  Candidate: (none)\n"


def test_missing_uninstallable_headers_refused_for_the_driver_stage(host, run_module):
    host.programs["apt-cache"] = (0, APT_NONE_99)
    host.programs["dpkg-query"] = (1, "")  # no driver package installed
    status, result = run_module(preflight_facts, dict(DEBIAN_99, stages=["driver", "toolkit", "pytorch", "verify"]))
    assert status == "exit" and result["kernel_headers"]["installable"] is False
    (refusal,) = result["refusals"]
    assert refusal.startswith("the driver stage builds the NVIDIA kernel module with DKMS for the running kernel "
                              "6.1.0-99-amd64, whose headers are not installed and not in the package lists (no "
                              "linux-headers-6.1.0-99-amd64).")
    assert refusal.endswith('or install the driver yourself and leave the driver stage out: '
                            'make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify"')
    assert [c[0].rsplit("/", 1)[-1] for c in host.commands] == ["apt-cache", "dpkg-query"]


def test_no_refusal_without_the_driver_stage_or_with_a_driver_there(host, run_module):
    host.programs["apt-cache"] = (0, APT_NONE_99)
    host.programs["dpkg-query"] = (0, "nvidia-open\t580.95.05-1\tii \nnvidia-driver-pinning-580\t580.95.05-1\thi \n")
    for stages in ([], ["toolkit", "pytorch", "verify"]):
        status, result = run_module(preflight_facts, dict(DEBIAN_99, stages=stages))
        assert result["refusals"] == []
    # driver packages in place: the nvidia_driver role's own plan decides
    status, result = run_module(preflight_facts, dict(DEBIAN_99, stages=["driver"]))
    assert result["refusals"] == []
    # a loaded driver: not even the packages are asked for
    host.driver(OPEN_LINE)
    host.commands.clear()
    status, result = run_module(preflight_facts, dict(DEBIAN_99, stages=["driver"]))
    assert result["refusals"] == [] and [c[0].rsplit("/", 1)[-1] for c in host.commands] == ["apt-cache"]


def test_without_package_lists_the_headers_are_unknown_and_not_refused(host, run_module):
    host.no_package_lists()
    host.programs["apt-cache"] = (0, APT_NONE_99)
    status, result = run_module(preflight_facts, dict(DEBIAN_99, stages=["driver"]))
    assert result["kernel_headers"]["installable"] == "unknown"
    assert result["refusals"] == []


def test_the_user_is_the_effective_one_and_root_runs_every_stage(host, run_module):
    status, result = run_module(preflight_facts, {"stages": ["driver", "toolkit", "pytorch"]})
    assert result["user"] == {"uid": os.geteuid(), "name": pwd.getpwuid(os.geteuid()).pw_name}
    if os.geteuid() == 0:
        assert result["refusals"] == []
    else:
        assert result["refusals"][0].startswith("the driver, toolkit and pytorch stages change the host and need root")


def test_the_published_fact_the_refusals_and_the_report_come_from_the_one_call(
        host, run_module, tmp_path, monkeypatch):
    machine_id = tmp_path / "machine-id"
    machine_id.write_text("abc123\n")
    monkeypatch.setattr(preflight_facts, "MACHINE_ID", str(machine_id))
    host.gpu("0000:01:00.0", 0x2B85)
    host.programs["apt-cache"] = (0, APT_CANDIDATE)
    status, result = run_module(preflight_facts, {
        "os_family": "Debian", "kernel": "6.8.0-48-generic", "distribution": "Debian",
        "distribution_version": "12.7", "distribution_major_version": "12", "host": "ws1",
        "supported_os": ["Debian 12"], "require_gpu": True, "connection": "ssh", "controller_machine_id": "abc123",
        "disk_checks": [{"path": str(tmp_path / "opt"), "min_free_gib": 1000000}]})
    assert status == "exit"
    published = result["preflight"]
    assert published["os"] == {"label": "Debian 12", "distribution": "Debian", "version": "12.7",
                               "family": "Debian", "supported": True}
    assert published["gpus"] == {"count": 1, "required": True, "pci": ["0000:01:00.0"],
                                 "names": ["NVIDIA GeForce RTX 5090"], "sm": ["sm_120"]}
    # the controller's machine id on an ssh connection: the play runs on the machine it provisions
    assert published["connection"] == {"type": "ssh", "local": True}
    assert published["kernel"]["headers_package"] == "linux-headers-6.8.0-48-generic"
    (refusal,) = result["refused"]
    assert refusal.startswith("Not enough free disk on ws1: %s needs 1000000.0 GiB free and its mount " % (
        tmp_path / "opt"))
    assert result["summary"].startswith("Debian 12; 1 NVIDIA GPU(s) sm_120; driver none (")


def test_an_unsupported_os_is_refused_or_warned_about_when_allowed(host, run_module, tmp_path, monkeypatch):
    monkeypatch.setattr(preflight_facts, "MACHINE_ID", str(tmp_path / "absent"))
    args = {"os_family": "RedHat", "kernel": "6.11.4-301.fc41.x86_64", "distribution": "Fedora",
            "distribution_version": "41", "distribution_major_version": "41", "host": "ws2",
            "supported_os": ["Debian 12", "Rocky 9"]}
    status, result = run_module(preflight_facts, args)
    assert result["refused"] == ["blackwell.pytorch supports Debian 12, Rocky 9; ws2 runs Fedora 41. To try anyway "
                                 '(untested): make site ARGS="-e preflight_allow_unsupported_os=true"']
    assert result["preflight"]["connection"] == {"type": "ssh", "local": False}
    status, result = run_module(preflight_facts, dict(args, allow_unsupported_os=True))
    assert result["refused"] == []
    assert result["preflight"]["os"]["supported"] is False
    assert any("Fedora 41 is not supported" in w for w in result.get("warnings", [])), result


def test_the_driver_and_toolkit_stages_are_answered_in_the_same_call(host, run_module, no_log_values, tmp_path, monkeypatch):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.headers("6.8.0-48-generic")
    lines = "nvidia-open\t580.159.04-1\thi \nnvidia-driver-pinning-580\t580.159.04-1\thi \n"
    host.programs["dpkg-query"] = (0, lambda argv: "" if "cuda-toolkit-[0-9]*" in argv else lines)
    monkeypatch.setattr(preflight_facts, "TOOLKIT_ROOT", str(tmp_path))  # no toolkit there
    driver = {"branch": "580", "manage": "false", "kernel_headers": False, "persistenced": False,
              "blacklist_nouveau": False, "uu_exclude": False,
              "repo": {"configure": False, "proxy": "http://lab:Sup3rS3cret@proxy.lab:3128"}}
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic", "host": "h100-01",
                                                  "driver": driver, "toolkit": {"versions": ["12.8"], "manage": "false"}})
    assert status == "exit", result
    assert result["driver"]["converged"] and result["driver"]["status"]["version"] == "580.159.04"
    assert result["toolkit"]["driver"] == "580.159.04" and not result["toolkit"]["ok"]
    assert result["refused"] == [result["toolkit"]["msg"]] and result["toolkit"]["msg"].startswith("h100-01: ")
    assert "Sup3rS3cret" in no_log_values


def test_a_stage_option_that_is_no_option_fails_the_probe(host, run_module):
    status, result = run_module(preflight_facts, {"os_family": "Debian", "driver": {"hold": "maybe"}})
    assert status == "fail" and result["msg"].startswith("driver: ") and "hold" in result["msg"]
    status, result = run_module(preflight_facts, {"os_family": "Debian", "toolkit": {"host": "x"}})
    assert status == "fail" and result["msg"].startswith("toolkit: ") and "host" in result["msg"]


def test_the_pytorch_stage_is_answered_in_the_same_call_with_the_probes_gpus(host, run_module, no_log_values):
    host.gpu("0000:01:00.0", 0x2B85)
    host.headers("6.8.0-48-generic")
    python_version = (0, "Python 3.12.3\n")  # what `python --version` answers (the host's fake programs)
    host.programs.update({sys.executable: python_version, os.path.basename(sys.executable): python_version})
    pytorch = {"python": sys.executable, "version": "2.9.1", "channel": "cu128", "keep": 0,
               "index": "https://lab:T0kenS3cret@mirror.lab/simple"}
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic", "host": "ws-1",
                                                  "pytorch": pytorch})
    assert status == "exit" and result["waits"] == {"driver": "", "toolkit": "", "pytorch": ""}, result
    answer = result["pytorch"]
    assert not answer["ok"] and answer["msg"].startswith("pytorch_keep_stacks is 0") and answer["settled"] is False
    assert result["stage_facts"] == {}
    assert result["refused"] == [answer["msg"]] and "T0kenS3cret" in no_log_values
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic", "host": "ws-1",
                                                  "pytorch": dict(pytorch, keep=2, index="")})
    assert result["refused"] == [] and result["pytorch"]["ok"], result
    assert "GPU 0 (NVIDIA GeForce RTX 5090" in result["pytorch"]["summary"]  # the bus's GPU, no driver loaded


def test_the_pytorch_stage_waits_for_a_driver_stage_that_changes_the_driver(host, run_module):
    host.gpu("0000:18:00.0", 0x2330)
    host.driver(OPEN_LINE)
    host.headers("6.8.0-48-generic")
    host.programs["dpkg-query"] = (0, "nvidia-open\t575.57.08-1\tii \n")
    driver = {"branch": "580", "manage": "true", "kernel_headers": False, "persistenced": False,
              "blacklist_nouveau": False, "uu_exclude": False, "hold": False}
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic", "host": "h100-01",
                                                  "driver": driver, "pytorch": {"python": sys.executable}})
    assert status == "exit" and not result["driver"]["converged"], result
    assert result["pytorch"] is None and result["waits"]["pytorch"] == "the driver stage changes the driver first"
    assert result["stage_facts"] == {}


def test_a_pytorch_option_that_is_no_option_fails_the_probe(host, run_module):
    bad = {"python": "/usr/bin/python3", "method": "conda"}
    status, result = run_module(preflight_facts, {"os_family": "Debian", "pytorch": bad})
    assert status == "fail" and result["msg"].startswith("pytorch: ") and "method" in result["msg"]
    status, result = run_module(preflight_facts, {"os_family": "Debian", "pytorch": {"python": "/x", "host": "y"}})
    assert status == "fail" and result["msg"].startswith("pytorch: ") and "host" in result["msg"]


SITE_STAGES = ["driver", "toolkit", "pytorch", "verify"]
# site.yml's driver and toolkit questions on a fresh host: the vendor's packages to install, no toolkit version set
SITE_DRIVER = {"branch": "580", "kernel_headers": True, "persistenced": False, "blacklist_nouveau": False,
               "uu_exclude": False, "repo": {"configure": False}}
SITE_TOOLKIT = {"versions": [], "driver": ""}


def test_each_cause_is_refused_once_and_each_refusal_ends_with_its_command(host, run_module, monkeypatch):
    # was: the headers refusal twice (the probe's and the driver stage's answer, in two wordings) and root twice,
    # glued into one blob ("...sudo asks for a password). the driver stage builds..."), no command line to run
    monkeypatch.setattr(preflight_facts, "current_user", lambda: {"uid": 1000, "name": "alice"})
    host.programs["apt-cache"] = (0, APT_NONE_99)
    host.programs["dpkg-query"] = (1, "")  # no driver package installed
    status, result = run_module(preflight_facts, dict(DEBIAN_99, host="ws", stages=SITE_STAGES, require_gpu=True,
                                                      driver=SITE_DRIVER, toolkit=SITE_TOOLKIT))
    assert status == "exit", result
    assert result["refused"] == [
        "No NVIDIA GPU found on the PCI bus of ws. To provision without one (image builds, tests): "
        'make site ARGS="-e blackwell_require_gpu=false"',
        "ws: the driver, toolkit and pytorch stages change the host and need root; this play runs as uid 1000 (alice). "
        'Run the play with become (become: true on the play), -K where sudo asks for a password: make site ARGS="-b -K"',
        "ws: the driver stage builds the NVIDIA kernel module with DKMS for the running kernel 6.1.0-99-amd64, whose "
        "headers are not installed and not in the package lists (no linux-headers-6.1.0-99-amd64). Install that "
        "kernel's headers from where the kernel came, or boot a kernel whose headers the repositories have (the "
        "distribution's current one) and run again, or install the driver yourself and leave the driver stage out "
        "(while no driver is loaded, the toolkit stage needs the driver's version, VERSION below, e.g. 580.95.05): "
        'make site ARGS="-e blackwell_site_stages=toolkit,pytorch,verify -e cuda_toolkit_driver_version=VERSION"']
    # the driver stage's answer refused the same two causes itself (the role alone says them so): folded above
    assert not result["driver"]["ok"] and len(result["driver"]["refusals"]) == 2


def test_driver_inputs_refused_before_the_host_is_read_are_one_refusal_of_the_probe(host, run_module):
    # the answer of inputs refused alone has no plan: its refusal stands without a cause
    host.gpu("0000:01:00.0", 0x2B85)
    host.headers("6.8.0-48-generic")
    status, result = run_module(preflight_facts, {"os_family": "Debian", "kernel": "6.8.0-48-generic", "host": "ws-1",
                                                  "driver": {"branch": "470"}})
    assert status == "exit" and not result["driver"]["ok"] and "plan" not in result["driver"], result
    (message,) = result["refused"]
    assert message.startswith("ws-1: nvidia_driver_branch 470 cannot drive the GPUs here: NVIDIA GeForce RTX 5090")
    assert result["stage_facts"] == {} and result["waits"] == {"driver": "", "toolkit": "", "pytorch": ""}


def test_the_driver_stages_headers_refusal_is_said_in_site_words_when_only_its_plan_sees_it(host, run_module):
    # driver packages installed (the probe leaves the build to the driver's plan), an upgrade asked: only the
    # driver stage's answer refuses the headers, and says how site.yml runs without that stage
    host.programs["apt-cache"] = (0, APT_NONE_99)
    host.programs["dpkg-query"] = (0, "nvidia-open\t580.95.05-1\tii \nnvidia-driver-pinning-580\t580.95.05-1\tii \n")
    status, result = run_module(preflight_facts, dict(DEBIAN_99, host="ws", stages=["driver", "pytorch"],
                                                      driver=dict(SITE_DRIVER, upgrade=True)))
    assert status == "exit" and result["refusals"] == [], result
    (refusal,) = result["refused"]
    assert refusal.startswith("ws: the driver stage builds the NVIDIA kernel module with DKMS"), refusal
    assert refusal.endswith('leave the driver stage out: make site ARGS="-e blackwell_site_stages=pytorch"'), refusal
