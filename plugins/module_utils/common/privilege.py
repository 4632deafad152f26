# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the play runs with the privileges the roles that change the host need.

The driver, toolkit and pytorch stages (and the tools venv) write under /etc, /usr and /opt and
run the package manager: without root they fail half way through their changes. Preflight and
each of those roles refuse such a run before the first change. No Ansible import.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The stages of site.yml that change the host, in the order they run.
CHANGING_STAGES = ("driver", "toolkit", "pytorch")


def changing_stages(stages: Iterable[str]) -> list[str]:
    """The stages of `stages` that change the host, in their running order."""
    stages = [str(s).strip() for s in (stages or ())]
    return [s for s in CHANGING_STAGES if s in stages]


def _words(names):
    names = list(names)
    return names[0] if len(names) == 1 else "%s and %s" % (", ".join(names[:-1]), names[-1])


def root_refusal(what: str, user: Mapping[str, Any] | None, plural: bool = False, fix: str = "") -> str:
    """'' when the play runs as root (or its uid is unknown), else the refusal naming `become`.

    what: "the nvidia_driver role", "the driver, toolkit and pytorch stages", ...; plural: whether
    `what` takes "change" rather than "changes". user: {"uid", "name"} as preflight_facts reads them.
    fix: what to do instead of the roles' sentence (setting become on the play or the command line's
    -b / --become), for a caller that knows the command that runs the play.
    """
    user = user or {}
    uid = user.get("uid")
    if uid is None or str(uid).strip() in ("", "0"):
        return ""
    return "%s %s the host and %s root; this play runs as uid %s (%s). %s" % (
        what, "change" if plural else "changes", "need" if plural else "needs", uid, user.get("name") or "unknown user",
        fix or "Set become: true on the play (or -b / --become on the command line, with -K when sudo asks for a "
               "password)")


# site.yml's command line with become (the form every refusal of the site's preflight ends with).
SITE_BECOME = ('Run the play with become (become: true on the play), -K where sudo asks for a password: '
               'make site ARGS="-b -K"')


def stages_root_refusal(stages: Iterable[str], user: Mapping[str, Any] | None) -> str:
    """The refusal for the stages of site.yml that would run without root ('' when none would), ending with
    site.yml's command line with become."""
    changing = changing_stages(stages)
    if not changing:
        return ""
    return root_refusal("the %s stage%s" % (_words(changing), "s" if len(changing) > 1 else ""), user,
                        plural=len(changing) > 1, fix=SITE_BECOME)
