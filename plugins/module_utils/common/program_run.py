# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The `run(argv)` the read-only host readers take (driver/host_probe.py, driver/stage_answers.py,
driver/stage_refusals.py): the program as the module finds it, run in the C locale, rc 127 when it is absent.

No Ansible import: the modules pass AnsibleModule.get_bin_path and run_command.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

ABSENT_RC = 127


def runner(get_bin_path: Callable[[str], str | None],
           run_command: Callable[..., tuple[int, str, str]]) -> Callable[[Sequence[str]], tuple[int, str, str]]:
    """run(argv) -> (rc, stdout, stderr): argv[0] found with get_bin_path (the PATH and the sbin directories), run by
    run_command with LC_ALL=C; (127, "", "<name>: command not found") when it is not found."""
    def run(argv):
        program = get_bin_path(argv[0])
        if not program:
            return ABSENT_RC, "", "%s: command not found" % argv[0]
        return run_command([program] + list(argv[1:]), environ_update={"LC_ALL": "C"})
    return run
