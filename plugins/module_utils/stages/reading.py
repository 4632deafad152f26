# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""What the preflight probe read of a host, as every stage takes it when it answers its question in the probe's
call (stages/registry.py). No Ansible import."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

# run(argv) -> (rc, stdout, stderr), rc 127 when the program is absent (common/program_run.py)
Run = Callable[[list], tuple]
# a stage's ask(): (its answer, the facts its role publishes from it, {} when none)
Answer = Tuple[Dict[str, Any], Dict[str, Any]]


@dataclass
class Reading:
    """The probe's reading of one host: `host` its inventory name, `user` {"uid", "name"}, `gpus` and `loaded` the
    GPU and driver facts (ansible_facts nvidia_gpus / nvidia_driver), `preflight` what the preflight role publishes,
    `tools` the tools venv's reading (None when not asked); `run`, `has_program(name)` and `warn(text)` the module's;
    `machine` platform.machine(), `toolkit_root` the root the toolkit's paths are under ("" on a host)."""

    host: str
    user: dict
    gpus: list
    loaded: dict
    preflight: dict
    run: Run
    has_program: Callable[[str], bool]
    warn: Callable[[str], None]
    tools: Optional[dict] = None
    check_mode: bool = False
    machine: str = ""
    toolkit_root: str = ""

    def os_family(self) -> str:
        """The OS family the probe read ('' when unknown)."""
        return str((self.preflight.get("os") or {}).get("family") or "")
