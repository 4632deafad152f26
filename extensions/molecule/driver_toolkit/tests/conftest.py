# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""testinfra enters the containers as the molecule connection does (tests/fixtures/molecule/podman_enter.py).

testinfra's podman backend starts `podman exec` for every command it runs (0.45 s each on the 2-core test machine);
as root, with nsenter there, a command runs through nsenter and setpriv into the container's namespaces with the
environment and capabilities `podman exec` gives. Anything else (not root, no nsenter, BLACKWELL_TEST_NSENTER=0, a
user given in the host spec) keeps testinfra's own `podman exec`.
"""
from __future__ import annotations

import os
import subprocess
import sys

from testinfra.backend import podman

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "tests", "fixtures",
                                "molecule"))
import podman_enter  # noqa: E402  pylint: disable=wrong-import-position

_PODMAN_EXEC = podman.PodmanBackend.run


def _run_entered(self, command, *args, **kwargs):
    """PodmanBackend.run through podman_enter.enter_argv() where it applies, else testinfra's own."""
    entered = podman_enter.enter_argv(self.name) if self.user is None else None
    if entered is None:
        return _PODMAN_EXEC(self, command, *args, **kwargs)
    argv, environ = entered
    cmd = self.get_command(command, *args)
    done = subprocess.run(argv + ["/bin/sh", "-c", cmd], env=environ, stdin=subprocess.DEVNULL, capture_output=True,
                          check=False)
    return self.result(done.returncode, self.encode(cmd), done.stdout, done.stderr)


podman.PodmanBackend.run = _run_entered
