# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The controller-side version parser: `packaging.version.Version` (packaging ships with ansible-core).

`parse` returns the fields of module_utils/common/versions.py's target-side parser, so the
module_utils functions the filters call take either one (their `parse` argument); `key` is the
Version itself, so versions compare exactly as pip and packaging compare them.
"""
from __future__ import annotations

try:
    from packaging.version import InvalidVersion, Version
except ImportError as err:  # ansible-core requires packaging; a broken controller install may lack it
    PACKAGING_IMPORT_ERROR = err
else:
    PACKAGING_IMPORT_ERROR = None


def parse(text):
    """{"epoch", "release", "pre", "post", "dev", "local", "key"} of `text`; None when it is no version."""
    if PACKAGING_IMPORT_ERROR is not None:
        # Imported here: the module needs nothing but packaging otherwise, so the target-side parser's
        # tests, which compare with this one, run under the targets' Python too (tests/bin/targets-python.sh).
        from ansible.errors import AnsibleError
        raise AnsibleError("the Python package packaging is needed on the controller (ansible-core requires it): %s"
                           % PACKAGING_IMPORT_ERROR)
    try:
        version = Version(str(text if text is not None else ""))
    except InvalidVersion:
        return None
    return {"epoch": version.epoch, "release": version.release, "pre": version.pre, "post": version.post,
            "dev": version.dev, "local": version.local, "key": version}
