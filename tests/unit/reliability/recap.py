# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Read the default callback's output: a host's recap line, the files a host's directory holds."""
from __future__ import annotations

import os
import re


def recap(output, host):
    """{"ok": n, "changed": n, "failed": n, ...} from the PLAY RECAP line of `host`."""
    match = re.search(r"^%s\s+:\s+(.*)$" % re.escape(host), output, re.M)
    assert match, "no recap line for %s" % host
    return dict((key, int(value)) for key, value in re.findall(r"(\w+)=(\d+)", match.group(1)))


def files_under(path):
    """Every regular file under `path` (the empty directories the test made do not count)."""
    return sorted(os.path.join(top, name) for top, _dirs, names in os.walk(path) for name in names)
