# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""`nvidia-ctk runtime configure --dry-run` of toolkit 1.18+ for containerd: the drop-in and the top-level file, split
at the tool's own log lines and compared with the files on the host (containers/runtimes.py).

The shapes are the real tool's: logrus text lines on stderr (`time="..." level=info msg="..."`), the drop-in then the
top-level TOML on stdout, each followed by a newline (pkg/config/engine/containerd/config_drop_in.go, pkg/config/raw.go
at v1.20.0), go-toml's layout (nested tables indented by two blanks), the dry run's import `/etc/containerd/conf.d/*.toml`
(v1.18.1 on; v1.18.0: config.d)."""
from __future__ import annotations

import json

import pytest

from ansible_collections.blackwell.pytorch.plugins.module_utils.containers.runtimes import config_changed, split_dry_run

LOG = 'time="2026-11-29T11:00:00Z" level=info msg="%s"'
DROP_IN = """version = 2

[plugins]

  [plugins."io.containerd.grpc.v1.cri"]
    enable_cdi = true

    [plugins."io.containerd.grpc.v1.cri".containerd]

      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes]

        [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
          privileged_without_host_devices = false
          runtime_engine = ""
          runtime_root = ""
          runtime_type = "io.containerd.runc.v2"

          [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
            BinaryName = "/usr/bin/nvidia-container-runtime"
"""
TOP_LEVEL = 'imports = ["/etc/containerd/conf.d/*.toml"]\nversion = 2\n'


def _dry_run(drop_in=DROP_IN, top_level=TOP_LEVEL):
    return "\n".join([LOG % "Using config version 2", LOG % 'Using CRI runtime plugin name \\"io.containerd.grpc.v1.cri\\"',
                      'time="2026-11-29T11:00:00Z" level=warning msg="Could not infer options from runtimes [runc]"',
                      LOG % "Drop-in config:", drop_in, LOG % "Top-level config:", top_level])


def test_the_dry_run_splits_at_the_tools_log_lines_and_drops_the_others():
    parts = split_dry_run(_dry_run())
    assert parts["drop_in"].strip() == DROP_IN.strip()
    assert parts["top_level"].strip() == TOP_LEVEL.strip()


def test_a_dry_run_without_the_drop_in_mark_is_the_top_level_file_alone():
    text = 'level=info msg="Using config version 1"\n[plugins.cri]\n  enable_cdi = true\n'
    assert split_dry_run(text) == {"top_level": "[plugins.cri]\n  enable_cdi = true", "drop_in": None}


@pytest.mark.parametrize("current,drop_in,changed", [
    ("", "", True),  # a fresh host: neither file
    (TOP_LEVEL, "", True),  # the import is there, the drop-in is not
    ("version = 2\n", DROP_IN, True),  # the drop-in is there, the import is not
    (TOP_LEVEL, DROP_IN, False),  # converged
    (TOP_LEVEL + "\n\n", DROP_IN.replace("\n\n", "\n") + "   \n", False),  # blank lines and trailing blanks
    (TOP_LEVEL, DROP_IN.replace("enable_cdi = true", "enable_cdi = false"), True),
], ids=["fresh", "no-drop-in", "no-import", "converged", "blank-lines", "drop-in-differs"])
def test_containerd_compares_the_drop_in_and_the_top_level_file(current, drop_in, changed):
    assert config_changed("containerd", current, _dry_run(), drop_in) is changed


def test_a_toolkit_before_118_compares_the_one_file_as_before():
    proposed = 'version = 2\n\n[plugins."io.containerd.grpc.v1.cri"]\n  enable_cdi = true\n'
    assert config_changed("containerd", proposed, proposed) is False
    assert config_changed("containerd", "version = 2\n", proposed) is True


def test_docker_is_unchanged_and_its_log_lines_do_not_count():
    proposed = json.dumps({"runtimes": {"nvidia": {"args": [], "path": "nvidia-container-runtime"}}}, indent=4)
    text = 'time="2026-11-29T11:00:00Z" level=warning msg="Ignoring executable-path"\n' + proposed
    assert config_changed("docker", proposed, text) is False
    assert config_changed("docker", "{}", text) is True
