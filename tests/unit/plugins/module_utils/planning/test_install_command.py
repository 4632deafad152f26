# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one install call of a stack: pip's as it always was, uv's from the same pip arguments."""
from __future__ import annotations

import os

from ansible_collections.blackwell.pytorch.plugins.module_utils.planning import lifecycle, role_messages
from ansible_collections.blackwell.pytorch.plugins.module_utils.planning.install_command import (
    carries_credentials, install_command, pip_command, private_credentials, uv_command)

PY = "/opt/pytorch/venvs/torch-2.9.1-cu128/bin/python"
UV = "/opt/blackwell/tools/bin/uv"
CACHE = "/opt/pytorch/.cache/uv"
PINS = ["torch==2.9.1+cu128", "torchvision==0.24.1+cu128", "torchaudio==2.9.1+cu128"]
HEAD = [UV, "pip", "install", "--python", PY, "--link-mode", "hardlink", "--compile-bytecode", "--no-config", "--cache-dir",
        CACHE]
LOGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "uv_logs")


def uv(pip_args, environ=None):
    return uv_command(UV, PY, pip_args, CACHE, environ)


def test_pip_runs_the_arguments_as_they_are():
    args = ["--index-url", "https://download.pytorch.org/whl/cu128", "--only-binary", "torch"] + PINS
    assert pip_command(PY, args) == [PY, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"] + args
    assert install_command("pip", PY, args, UV, CACHE, {"UV_CACHE_DIR": "/home/u/.cache/uv"}, "/tmp/p") == (
        pip_command(PY, args), None, {})


def test_uv_gets_the_same_index_pins_and_binary_rule():
    argv, env = uv(["--index-url", "https://download.pytorch.org/whl/cu128", "--only-binary",
                    "torch,torchvision,torchaudio"] + PINS)
    assert argv == HEAD + ["--index-url", "https://download.pytorch.org/whl/cu128",
                           "--only-binary", "torch,torchvision,torchaudio"] + PINS
    assert env == {"UV_CACHE_DIR": CACHE, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}


def test_an_extra_index_makes_uv_choose_over_all_indexes_as_pip_does():
    argv, _env = uv(["--index-url", "https://mirror.lab/cu128", "--extra-index-url=https://pypi.org/simple",
                     "--extra-index-url", "https://more.lab/simple", "torch==2.9.1+cu128"])
    assert argv == HEAD + ["--index-strategy", "unsafe-best-match", "--index-url", "https://mirror.lab/cu128",
                           "--extra-index-url", "https://pypi.org/simple", "--extra-index-url",
                           "https://more.lab/simple", "torch==2.9.1+cu128"]


def test_a_wheelhouse_is_offline_and_a_source_build_wheelhouse_is_found_too():
    argv, _env = uv(["--no-index", "--find-links", "/srv/wheels", "--find-links", "/opt/pytorch/wheelhouse",
                     "--only-binary", "torch"] + PINS)
    assert argv == HEAD + ["--offline", "--no-index", "--find-links", "/srv/wheels", "--find-links",
                           "/opt/pytorch/wheelhouse", "--only-binary", "torch"] + PINS


def test_hashes_and_constraints_keep_their_files():
    argv, _env = uv(["--index-url", "https://mirror.lab/cu128", "--constraint", "/etc/pip/c.txt",
                     "--require-hashes", "--requirement", "/etc/pip/hashes.txt"])
    assert argv == HEAD + ["--index-url", "https://mirror.lab/cu128", "--constraints", "/etc/pip/c.txt",
                           "--require-hashes", "--requirement", "/etc/pip/hashes.txt"]
    argv, _env = uv(["-c", "/etc/pip/c.txt", "-r", "/etc/pip/h.txt", "--require-hashes"])
    assert argv == HEAD + ["--constraints", "/etc/pip/c.txt", "--requirement", "/etc/pip/h.txt", "--require-hashes"]


def test_proxy_tls_and_network_settings_go_through_the_environment_uv_reads():
    argv, env = uv(["--index-url", "https://lab:s3cret@mirror.lab/simple", "--proxy", "http://p:pw@proxy:3128",
                    "--cert", "/etc/ssl/lab-ca.pem", "--client-cert", "/etc/ssl/me.pem", "--trusted-host=mirror.lab",
                    "--retries", "0", "--timeout=2", "--cache-dir", "/var/cache/pip", "--isolated"] + PINS)
    assert argv == HEAD + ["--index-url", "https://lab:s3cret@mirror.lab/simple", "--allow-insecure-host",
                           "mirror.lab"] + PINS
    assert env == {"UV_CACHE_DIR": CACHE, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1",
                   "HTTPS_PROXY": "http://p:pw@proxy:3128", "HTTP_PROXY": "http://p:pw@proxy:3128",
                   "SSL_CERT_FILE": "/etc/ssl/lab-ca.pem", "SSL_CLIENT_CERT": "/etc/ssl/me.pem",
                   "UV_HTTP_RETRIES": "0", "UV_HTTP_TIMEOUT": "2"}


def test_the_callers_uv_settings_do_not_leak_in_and_netrc_stays():
    environ = {"PATH": "/usr/bin", "HOME": "/root", "NETRC": "/root/.netrc-lab", "UV_INDEX_URL": "https://other/simple",
               "UV_LINK_MODE": "copy", "UV_CACHE_DIR": "/root/.cache/uv", "UV_CONFIG_FILE": "/root/uv.toml"}
    _argv, env = uv(PINS, environ)
    assert env == {"PATH": "/usr/bin", "HOME": "/root", "NETRC": "/root/.netrc-lab", "UV_CACHE_DIR": CACHE,
                   "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never", "UV_NO_PROGRESS": "1"}


def test_pip_only_switches_are_renamed_or_dropped_and_unknown_ones_pass():
    argv, _env = uv(["--pre", "--no-cache-dir", "-U", "--progress-bar", "off", "--no-deps", "--some-new-flag"] + PINS)
    assert argv == HEAD + ["--prerelease=allow", "--no-cache", "--upgrade", "--no-deps", "--some-new-flag"] + PINS


def _log(name):
    with open(os.path.join(LOGS, name)) as handle:
        return handle.read()


def test_uv_progress_from_its_real_output():
    # uv's own output into a file (uv 0.13.9, a cold and a warm cache, an unsatisfiable pin)
    cold = _log("cold_cache.log")
    assert lifecycle.pip_progress(cold) == "2 downloads, 28.4 MB; Installed 5 packages in 42ms"
    during = cold[:cold.index(" Downloaded numpy")]
    assert lifecycle.pip_progress(during) == "2 downloads, 28.4 MB; Downloading numpy (16.2MiB)"
    assert lifecycle.pip_progress(cold[:cold.index("Downloading")]) == "0 downloads, 0.0 MB; Resolved 5 packages in 370ms"
    assert lifecycle.pip_progress(_log("warm_cache.log")) == "0 downloads, 0.0 MB; Installed 2 packages in 27ms"
    assert lifecycle.pip_progress(_log("unsatisfiable.log")) == (
        "0 downloads, 0.0 MB; error: No solution found when resolving dependencies")
    assert lifecycle.pip_progress(_log("cold_cache.log").split("Resolved")[0]) == "0 downloads, 0.0 MB; starting"
    assert role_messages.poll_report("uv install", "ws", 15, False, during) == (
        "uv install on ws: 0:00:15 elapsed, running; 2 downloads, 28.4 MB; Downloading numpy (16.2MiB)")


SECRET_ARGS = ["--index-url", "https://iuser:1ndexPass@mirror.lab/cu128", "--extra-index-url=https://pypi.org/simple",
               "--trusted-host", "mirror.lab", "--proxy", "http://kuser:k1llPass@proxy.lab:3128", "--only-binary",
               "torch"] + PINS
PROXY = "http://kuser:k1llPass@proxy.lab:3128"


def test_credentials_never_reach_pips_command_line_but_its_requirements_file_and_environment():
    argv, env, files = install_command("pip", PY, SECRET_ARGS, environ={"PATH": "/usr/bin", "no_proxy": "localhost"},
                                       secrets_dir="/tmp/blackwell-pytorch-x")
    assert argv == pip_command(PY, ["--trusted-host", "mirror.lab", "--only-binary", "torch"] + PINS + [
        "--requirement", "/tmp/blackwell-pytorch-x/indexes.txt"])
    # the whole kind moves: pip reads the file's --index-url as replacing the command line's indexes
    assert files == {"/tmp/blackwell-pytorch-x/indexes.txt": (
        "--index-url https://iuser:1ndexPass@mirror.lab/cu128\n--extra-index-url https://pypi.org/simple\n")}
    assert env == {"PATH": "/usr/bin", "no_proxy": "localhost", "https_proxy": PROXY, "http_proxy": PROXY,
                   "HTTPS_PROXY": PROXY, "HTTP_PROXY": PROXY}
    assert not [arg for arg in argv if "1ndexPass" in arg or "k1llPass" in arg]


def test_credentials_never_reach_uvs_command_line_but_the_environment_uv_reads():
    argv, env, files = install_command("uv", PY, SECRET_ARGS + ["--find-links", "https://t0ken@wheels.lab/torch/"],
                                       UV, CACHE, {"PATH": "/usr/bin"}, "/tmp/blackwell-pytorch-x")
    assert argv == HEAD + ["--index-strategy", "unsafe-best-match", "--allow-insecure-host", "mirror.lab",
                           "--only-binary", "torch"] + PINS
    assert files == {}
    assert env == {"PATH": "/usr/bin", "UV_CACHE_DIR": CACHE, "UV_NO_CONFIG": "1", "UV_PYTHON_DOWNLOADS": "never",
                   "UV_NO_PROGRESS": "1", "HTTPS_PROXY": PROXY, "HTTP_PROXY": PROXY,
                   "UV_INDEX_URL": "https://iuser:1ndexPass@mirror.lab/cu128",
                   "UV_EXTRA_INDEX_URL": "https://pypi.org/simple", "UV_FIND_LINKS": "https://t0ken@wheels.lab/torch/"}


def test_urls_without_credentials_stay_on_the_command_line():
    args = ["--index-url", "https://mirror.lab/cu128", "--extra-index-url", "https://pypi.org/simple", "--proxy",
            "http://proxy.lab:3128", "--find-links", "/opt/pytorch/wheelhouse"] + PINS
    assert private_credentials(args) == (args, {"index": [], "find_links": [], "proxy": ""})
    assert install_command("pip", PY, args, secrets_dir="/tmp/p") == (pip_command(PY, args), None, {})
    assert carries_credentials("https://t0ken@host/simple") and not carries_credentials("https://host/a@b")
