# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which container runtimes the container_toolkit role configures, and whether a configuration changes.

docker and containerd get the nvidia runtime through `nvidia-ctk runtime configure` (containerd's settings in a
drop-in file from toolkit 1.18.0, the top-level file importing it); podman
reads the CDI spec itself and needs no configuration. A runtime asked for that is unknown or not
installed is refused before any change; none asked for: every supported one found on the host.
No Ansible import.
"""
from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

# Runtime -> the configuration file nvidia-ctk edits (None: CDI only, nothing to configure).
RUNTIMES = {"docker": "/etc/docker/daemon.json", "containerd": "/etc/containerd/config.toml", "podman": None}
VARIABLE = "container_toolkit_runtimes"


def runtime_plan(asked: Sequence[str] = (), present: Collection[str] = (),
                 active: Collection[str] = ()) -> dict[str, Any]:
    """{ok, problems, configure, cdi_only, restartable, msg} for the runtimes asked (empty: those present)."""
    present = sorted(set(str(p) for p in present or ()) & set(RUNTIMES))
    active = set(str(a) for a in active or ())
    asked = [str(a).strip() for a in asked or () if str(a).strip()]
    problems = []
    unknown = [name for name in asked if name not in RUNTIMES]
    if unknown:
        problems.append("%s: unknown runtime %s (supported: %s)" % (
            VARIABLE, ", ".join(repr(n) for n in unknown), ", ".join(sorted(RUNTIMES))))
    missing = [name for name in asked if name in RUNTIMES and name not in present]
    if missing:
        problems.append("%s asks for %s, not installed on this host (found: %s): install %s first or take %s "
                        "out of %s" % (VARIABLE, ", ".join(missing), ", ".join(present) or "no container engine",
                                       "it" if len(missing) == 1 else "them", "it" if len(missing) == 1 else "them",
                                       VARIABLE))
    chosen = sorted(set(asked)) if asked else present
    chosen = [name for name in chosen if name in present]
    configure = [name for name in chosen if RUNTIMES[name]]
    cdi_only = [name for name in chosen if not RUNTIMES[name]]
    if asked:
        how = "asked for"
    else:
        how = "found" if chosen else "none found: the CDI spec only (an engine installed later reads it)"
    msg = "runtimes %s%s" % (how, (": configure " + (", ".join(configure) or "none") + "; CDI only: "
                                   + (", ".join(cdi_only) or "none")) if chosen else "")
    return {"ok": not problems, "problems": problems, "configure": configure, "cdi_only": cdi_only,
            "restartable": [name for name in configure if name in active],
            "paths": dict((name, RUNTIMES[name]) for name in configure), "msg": msg}


# nvidia-ctk logs to stderr (logrus text: `time="..." level=info msg="..."`); the role runs the dry run with 2>&1.
_LOG = re.compile(r'^(?:time="[^"]*" )?level=(\w+) msg="(.*)"\s*$')
# From 1.18.0 a containerd dry run prints the drop-in, then the top-level file, each after one of these log lines
# (pkg/config/engine/containerd/config_drop_in.go, ConfigWithDropIn.Save).
DROP_IN_MARK, TOP_LEVEL_MARK = "Drop-in config:", "Top-level config:"


def split_dry_run(text: str) -> dict[str, Any]:
    """nvidia-ctk's dry run (stdout and stderr together) -> {top_level, drop_in}: the log lines left out; drop_in is
    None when the output has no drop-in part (docker, toolkit before 1.18.0, a containerd version 1 file)."""
    parts = {"before": [], "drop_in": [], "top_level": []}
    part, marked = "before", False
    for line in (text or "").splitlines():
        log = _LOG.match(line)
        if log:
            if log.group(2) == DROP_IN_MARK:
                part, marked = "drop_in", True
            elif log.group(2) == TOP_LEVEL_MARK:
                part = "top_level"
            continue
        parts[part].append(line)
    if not marked:
        return {"top_level": "\n".join(parts["before"] + parts["top_level"]), "drop_in": None}
    return {"top_level": "\n".join(parts["top_level"]), "drop_in": "\n".join(parts["drop_in"])}


def config_changed(runtime: str, current: str | None, proposed: str, drop_in: str | None = None) -> bool:
    """Whether writing `proposed` (nvidia-ctk's dry run, log lines allowed) changes the runtime's configuration
    `current` (and its drop-in file `drop_in`, from 1.18.0).

    docker's daemon.json is compared as JSON (key order and indentation do not count; a missing
    or empty file is {}); containerd's TOML as text, lines without trailing blanks and blank lines: the drop-in part
    of the dry run against `drop_in`, the top-level part (with its `imports`) against `current`.
    """
    if runtime not in RUNTIMES or not RUNTIMES[runtime]:
        raise ValueError("no configuration file for runtime %r (supported: docker, containerd)" % (runtime,))
    parts = split_dry_run(proposed)
    if runtime == "docker":
        try:
            proposed_value = json.loads(parts["top_level"] or "{}")
        except ValueError as err:
            raise ValueError("nvidia-ctk's dry run for docker printed no JSON: %s" % err)
        try:
            current_value = json.loads(current) if (current or "").strip() else {}
        except ValueError:
            return True  # a broken daemon.json is replaced by what nvidia-ctk writes
        return current_value != proposed_value

    def lines(text):
        return [line.rstrip() for line in (text or "").splitlines() if line.strip()]
    if parts["drop_in"] is not None and lines(parts["drop_in"]) != lines(drop_in):
        return True
    return lines(current) != lines(parts["top_level"])
