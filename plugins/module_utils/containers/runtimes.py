# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Which container runtimes the container_toolkit role configures, and whether a configuration changes.

docker and containerd get the nvidia runtime through `nvidia-ctk runtime configure`; podman
reads the CDI spec itself and needs no configuration. A runtime asked for that is unknown or not
installed is refused before any change; none asked for: every supported one found on the host.
No Ansible import.
"""
from __future__ import annotations

import json
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


def config_changed(runtime: str, current: str | None, proposed: str) -> bool:
    """Whether writing `proposed` (nvidia-ctk's dry run) changes the runtime's configuration `current`.

    docker's daemon.json is compared as JSON (key order and indentation do not count; a missing
    or empty file is {}); containerd's TOML as text, lines without trailing blanks and blank lines.
    """
    if runtime not in RUNTIMES or not RUNTIMES[runtime]:
        raise ValueError("no configuration file for runtime %r (supported: docker, containerd)" % (runtime,))
    if runtime == "docker":
        try:
            proposed_value = json.loads(proposed or "{}")
        except ValueError as err:
            raise ValueError("nvidia-ctk's dry run for docker printed no JSON: %s" % err)
        try:
            current_value = json.loads(current) if (current or "").strip() else {}
        except ValueError:
            return True  # a broken daemon.json is replaced by what nvidia-ctk writes
        return current_value != proposed_value

    def lines(text):
        return [line.rstrip() for line in (text or "").splitlines() if line.strip()]
    return lines(current) != lines(proposed)
