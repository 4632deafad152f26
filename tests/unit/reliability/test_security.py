# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Security (docs/reliability.md): secrets never shown (-v --diff, check mode and real), files written
root-owned with explicit modes, keys of another fingerprint refused. The plays are in conftest.py."""
from __future__ import annotations

import os
import stat

from conftest import SECRET
from keys import ED_FPR, RSA_FPR
from recap import files_under, recap


def test_no_secret_in_the_verbose_diff_output_of_a_check_run(check_run):
    assert recap(check_run["output"], "secret_proxy")["changed"] > 0  # the proxy file would be written: its diff was asked for
    assert '"changes": ["key directory", "key", "proxy", "source"]' in check_run["output"]
    assert SECRET not in check_run["output"]


def test_no_secret_in_the_verbose_diff_output_of_a_real_run(real_run):
    assert recap(real_run["output"], "secret_proxy")["failed"] == 1  # apt refused the stopped server: its message too
    assert SECRET not in real_run["output"]


def test_the_proxy_password_is_only_in_the_root_only_proxy_file(real_run):
    base = real_run["hosts"]["secret_proxy"]["rely_dir"]
    proxy = os.path.join(base, "apt.conf.d", "90nvidia-cuda-proxy")
    keyring = os.path.join(base, "keyrings", "nvidia-cuda.asc")
    written = files_under(base)
    assert [name for name in written if "/lists/" not in name and "/cache/" not in name] == sorted([proxy, keyring])
    assert [name for name in written if name != proxy and SECRET in open(name, errors="replace").read()] == []
    info = os.stat(proxy)
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o600, 0, 0)
    assert 'Acquire::http::Proxy::127.0.0.1 "http://lab:%s@proxy.lab:3128";' % SECRET in open(proxy).read()
    info = os.stat(keyring)
    assert (stat.S_IMODE(info.st_mode), info.st_uid, info.st_gid) == (0o644, 0, 0)
    assert SECRET not in open(keyring).read()


def test_pip_index_credentials_are_never_shown(real_run):
    output = real_run["output"]
    assert "pip could not install nvidia-ml-py==" in output and "Check blackwell_tools_pip_index_url" in output
    assert "'no_log: true' was specified for this result" in output
    assert recap(output, "tools_secret")["failed"] == 1 and SECRET not in output


def test_a_key_with_another_fingerprint_is_refused_and_nothing_is_written(check_run, real_run):
    for run in (check_run, real_run):
        output = run["output"]
        assert ("The repository key from nvidia_driver_repo_key_content is not trusted on other_key: key(s) not in "
                "the pinned list %s: %s" % (RSA_FPR, ED_FPR)) in output
        assert recap(output, "other_key")["changed"] == 0 and recap(output, "other_key")["failed"] == 1
        assert files_under(run["hosts"]["other_key"]["rely_dir"]) == []
