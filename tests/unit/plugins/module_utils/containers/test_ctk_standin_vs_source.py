# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The nvidia-ctk stand-in (tests/fixtures/apt_repo/nvidia_ctk_standin.py) against what NVIDIA's source says, release by
release, and the role's comparison (containers/runtimes.py) over its output.

The real tool cannot be built or installed where the tests run (its source and the Go module proxy are not
reachable there, and no distribution packages it), so the molecule scenario runs this stand-in. Every option and
behaviour it imitates is a row below, with the file of github.com/NVIDIA/nvidia-container-toolkit and the tag it was
read from:

Each behaviour: what 1.17.8, 1.18.0 and 1.18.1 up to 1.20.0 do; then where it was read.
- `runtime configure` options runtime, config, dry-run, cdi.enabled (aliases cdi.enable, enable-cdi),
  nvidia-runtime-name, nvidia-set-as-default: every release.
  cmd/nvidia-ctk/runtime/configure/configure.go v1.17.8, v1.20.0
- `--drop-in-config` (docker: refused): 1.17.8 refuses it ("flag provided but not defined"); default
  /etc/containerd/config.d/99-nvidia.toml in 1.18.0, /etc/containerd/conf.d/99-nvidia.toml from 1.18.1.
  configure.go v1.18.0, v1.18.1 (CHANGELOG "Fix containerd drop-in config path")
- containerd, a version 2 file: 1.17.8 writes the one file; from 1.18.0 the runtime goes to the drop-in and the
  top-level file `imports` the drop-in's directory.
  pkg/config/engine/containerd/config_drop_in.go v1.18.0, v1.20.0
- dry run: from 1.18.0 the "Drop-in config:" and "Top-level config:" log lines (stderr) come before each part
  (stdout), and the import names the fixed directory (config.d/*.toml in 1.18.0, conf.d/*.toml from 1.18.1).
  config_drop_in.go (Save, importPattern) v1.18.0, v1.18.1
- the output on stdout ends with a newline: every release. pkg/config/raw.go v1.20.0
- `cdi generate` options output (env NVIDIA_CTK_CDI_OUTPUT_FILE_PATH), format, mode, device-name-strategy,
  driver-root, vendor, class: every release. cmd/nvidia-ctk/cdi/generate/generate.go v1.17.8, v1.20.0
- `cdi generate --feature-flag`: from 1.18.0. generate.go v1.18.0
- device-node GIDs (CDI 0.7.0) unless `--feature-flag=no-additional-gids-for-device-nodes`: from 1.19.0.
  pkg/nvcdi/api.go, internal/edits/device.go v1.19.0, v1.20.0; CDI specs-go/version.go
- `--mode=management`: one device `all`; the vendor flag defaults to nvidia.com: every release.
  pkg/nvcdi/management.go, options.go, generate.go v1.20.0
- `cdi list --spec-dir` (repeatable; default /etc/cdi, /var/run/cdi; a later directory wins): every release.
  cmd/nvidia-ctk/cdi/list/list.go v1.17.8, v1.20.0; CDI pkg/cdi/cache.go
- nvidia-cdi-refresh.{path,service} writing /var/run/cdi/nvidia.yaml, enabled and started at install: none in
  1.17.8; in /etc/systemd/system (postinst) in 1.18.0; in /lib/systemd/system (`dh --with systemd`) in 1.20.0.
  deployments/systemd/, packaging/debian/ v1.18.0, v1.20.0 (tests/fixtures/apt_repo/container_toolkit.sh)

What the stand-in does not imitate: the TOML rewrite of a file it did not write (go-toml re-marshals it, comments
lost), containerd version 1 files with 1.18+, and a driver behind the spec (it reads a fixture directory).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.runtimes import config_changed, split_dry_run

STANDIN = os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "fixtures", "apt_repo",
                       "nvidia_ctk_standin.py")
VERSION_LINE = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build"


@pytest.fixture
def ctk(tmp_path):
    driver = tmp_path / "driver"
    (driver / "gpus" / "0000:01:00.0").mkdir(parents=True)
    (driver / "version").write_text(VERSION_LINE + "\n")

    def run(version, *args, env=None, ok=True):
        script = tmp_path / ("nvidia-ctk-" + version)
        with open(STANDIN) as handle:
            script.write_text(handle.read().replace("@VERSION@", version))
        environ = dict(os.environ, NVIDIA_CTK_STANDIN_DRIVER_ROOT=str(driver),
                       NVIDIA_CTK_STANDIN_STATE=str(tmp_path / "state"), **(env or {}))
        done = subprocess.run([sys.executable, str(script)] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, universal_newlines=True, env=environ, check=False)
        assert (done.returncode == 0) is ok, done.stdout
        return done.stdout
    return run


def test_the_version_line(ctk):
    assert ctk("1.20.0-1", "--version").splitlines()[0] == "NVIDIA Container Toolkit CLI version 1.20.0"


def test_117_has_no_drop_in_and_its_dry_run_is_the_one_file(ctk, tmp_path):
    config = tmp_path / "config.toml"
    out = ctk("1.17.8-1", "runtime", "configure", "--runtime=containerd", "--config=%s" % config, "--dry-run",
              "--cdi.enabled")
    assert split_dry_run(out)["drop_in"] is None and "enable_cdi = true" in out
    assert ctk("1.17.8-1", "runtime", "configure", "--runtime=containerd", "--drop-in-config=/x.toml",
               ok=False) == 'level=error msg="flag provided but not defined: -drop-in-config"\n'


@pytest.mark.parametrize("version,directory", [("1.18.0-1", "config.d"), ("1.20.0-1", "conf.d")])
def test_118_dry_run_prints_the_drop_in_then_the_top_level_file_importing_the_fixed_directory(ctk, tmp_path, version,
                                                                                              directory):
    out = ctk(version, "runtime", "configure", "--runtime=containerd", "--config=%s" % (tmp_path / "c.toml"),
              "--dry-run", "--cdi.enabled")
    parts = split_dry_run(out)
    assert "containerd.runtimes.nvidia.options]" in parts["drop_in"] and "enable_cdi = true" in parts["drop_in"]
    assert parts["top_level"].splitlines() == ['imports = ["/etc/containerd/%s/*.toml"]' % directory, "version = 2"]


def test_118_writes_both_files_and_the_role_sees_no_change_afterwards(ctk, tmp_path):
    config, drop_in = tmp_path / "containerd" / "config.toml", "/etc/containerd/conf.d/99-nvidia.toml"
    out = ctk("1.20.0-1", "runtime", "configure", "--runtime=containerd", "--config=%s" % config, "--dry-run",
              "--cdi.enabled")
    assert config_changed("containerd", "", out, "") is True
    written = tmp_path / "conf.d" / "99-nvidia.toml"
    ctk("1.20.0-1", "runtime", "configure", "--runtime=containerd", "--config=%s" % config,
        "--drop-in-config=%s" % written, "--cdi.enabled")
    assert config.read_text().startswith('imports = ["%s/*.toml"]\n' % written.parent)
    # the role runs the tool's default drop-in, whose directory the dry run imports: the same text
    config.write_text(config.read_text().replace(str(written.parent), os.path.dirname(drop_in)))
    again = ctk("1.20.0-1", "runtime", "configure", "--runtime=containerd", "--config=%s" % config, "--dry-run",
                "--cdi.enabled")
    assert config_changed("containerd", config.read_text(), again, written.read_text()) is False


def test_docker_keeps_its_settings_and_refuses_a_drop_in(ctk, tmp_path):
    daemon = tmp_path / "daemon.json"
    daemon.write_text('{"log-driver": "journald"}')
    out = ctk("1.20.0-1", "runtime", "configure", "--runtime=docker", "--config=%s" % daemon, "--dry-run", "--cdi.enabled")
    assert json.loads(out) == {"log-driver": "journald", "features": {"cdi": True},
                               "runtimes": {"nvidia": {"args": [], "path": "nvidia-container-runtime"}}}
    assert "does not support drop-in configs" in ctk("1.20.0-1", "runtime", "configure", "--runtime=docker",
                                                     "--drop-in-config=/x.toml", ok=False)


@pytest.mark.parametrize("version,args,cdi_version", [
    ("1.17.8-1", [], "0.5.0"), ("1.18.0-1", [], "0.5.0"), ("1.20.0-1", [], "0.7.0"),
    ("1.20.0-1", ["--feature-flag=no-additional-gids-for-device-nodes"], "0.5.0")])
def test_the_spec_version_follows_the_release_and_the_feature_flag(ctk, version, args, cdi_version):
    assert ctk(version, "cdi", "generate", *args).splitlines()[1] == "cdiVersion: %s" % cdi_version


def test_117_has_no_feature_flag_and_the_management_mode_names_its_vendor(ctk):
    refused = ctk("1.17.8-1", "cdi", "generate", "--feature-flag=x", ok=False)
    assert "flag provided but not defined: -feature-flag" in refused
    spec = ctk("1.20.0-1", "cdi", "generate", "--mode=management", "--vendor=management.nvidia.com", "--class=gpu")
    assert "kind: management.nvidia.com/gpu" in spec and spec.count("- name:") == 1 and "- name: all" in spec


def test_the_refresh_units_output_variable_and_the_listing_of_each_directory(ctk, tmp_path):
    etc, run = tmp_path / "etc-cdi", tmp_path / "run-cdi"
    ctk("1.20.0-1", "cdi", "generate", "--output=%s" % (etc / "nvidia.yaml"))
    ctk("1.20.0-1", "cdi", "generate", env={"NVIDIA_CTK_CDI_OUTPUT_FILE_PATH": str(run / "nvidia.yaml")})
    listed = ctk("1.20.0-1", "cdi", "list", "--spec-dir=%s" % etc, "--spec-dir=%s" % run).splitlines()
    assert listed[1:] == ["nvidia.com/gpu=0", "nvidia.com/gpu=all"]  # the later directory wins, listed once
    assert ctk("1.20.0-1", "cdi", "list", "--spec-dir=%s" % run).splitlines()[1:] == listed[1:]
