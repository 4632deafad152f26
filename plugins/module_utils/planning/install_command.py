# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The one install call of a stack, for either installer, from the same pip arguments.

The plan's arguments (pip_args: the index or wheelhouse, --only-binary, --trusted-host, --proxy, --cert,
--client-cert, --cache-dir, --constraint, then the pins or --require-hashes --requirement <hashes file>)
are pip's. pip_command() runs them as they are; uv_command() gives uv the same pins, hashes,
constraints and indexes: the options uv spells otherwise are renamed, those uv takes from the
environment (proxy, CA bundle, client certificate, retries, timeout) go there, pip-only switches are
dropped. Credentials stay where pip has them: in the URLs (uv sends them as pip does) or in netrc
(uv reads NETRC / ~/.netrc as pip does). No Ansible import.
"""
from __future__ import annotations

INSTALLERS = ("uv", "pip")
# pip option -> uv option (the value, when there is one, follows as it is)
_RENAMED = {"--index-url": "--index-url", "-i": "--index-url", "--extra-index-url": "--extra-index-url",
            "--find-links": "--find-links", "-f": "--find-links", "--only-binary": "--only-binary",
            "--no-binary": "--no-binary", "--trusted-host": "--allow-insecure-host",
            "--constraint": "--constraints", "-c": "--constraints", "--requirement": "--requirement",
            "-r": "--requirement", "--pre": "--prerelease=allow"}
_VALUELESS = ("--no-index", "--require-hashes", "--pre", "--no-deps", "--upgrade", "-U", "--force-reinstall",
              "--no-build-isolation", "--no-cache-dir")
# pip option -> the environment variables uv reads the value from
_TO_ENV = {"--proxy": ("HTTPS_PROXY", "HTTP_PROXY"), "--cert": ("SSL_CERT_FILE",),
           "--client-cert": ("SSL_CLIENT_CERT",), "--retries": ("UV_HTTP_RETRIES",),
           "--timeout": ("UV_HTTP_TIMEOUT",)}
# pip options uv has no use for: their value is dropped with them (uv's cache is the one under the root)
_DROPPED_WITH_VALUE = ("--cache-dir", "--progress-bar", "--log", "--exists-action")
_DROPPED = ("--isolated", "--disable-pip-version-check", "--no-input", "--quiet", "-q", "--no-color",
            "--no-python-version-warning", "--prefer-binary")
_UV_VALUELESS = {"--no-cache-dir": "--no-cache", "-U": "--upgrade"}


def pip_command(python, pip_args):
    """argv of the pip install: the stack's own pip, the arguments as they are."""
    return [python, "-m", "pip", "install", "--disable-pip-version-check", "--no-input"] + list(pip_args)


def _split(arg):
    """"--index-url=URL" -> ("--index-url", "URL"); "-cFILE" is not a form the plan writes."""
    if arg.startswith("--") and "=" in arg:
        name, _sep, value = arg.partition("=")
        return name, value
    return arg, None


def uv_command(uv, python, pip_args, cache_dir, environ=None):
    """(argv, env) of `uv pip install` into the venv of `python` with pip_args translated.

    - `--python <python>`: the stack's venv; `--link-mode hardlink`: a file a kept stack shares with this
      one is the same file in uv's cache (cache_dir, under the stacks' root: the same filesystem);
    - `--compile-bytecode`: the stack holds its modules' bytecode, as pip leaves it. Without it every process
      of a user who cannot write the venv (or runs with PYTHONDONTWRITEBYTECODE) compiles torch on import:
      `import torch` 3.5-4.8 s instead of 1.5-2.0 s, torchvision 4.5-6.6 s instead of 1.5 s (H100 host);
    - `--no-config` and no UV_* variable of `environ` (the module's environment): no uv.toml of a home
      directory and no user setting reaches the install;
    - `--offline` when pip_args say --no-index (a wheelhouse: air-gapped, nothing is fetched);
    - `--index-strategy unsafe-best-match` when an extra index is given: uv would otherwise take a package
      from the first index that has it, pip takes the best match over all of them (the pins then resolve
      as they do for pip);
    - env: environ without UV_*, with UV_CACHE_DIR, UV_NO_CONFIG, UV_PYTHON_DOWNLOADS=never and what
      --proxy, --cert, --client-cert, --retries and --timeout said.
    Options this function does not know are passed on as they are (uv refuses the ones it lacks, naming them).
    """
    env = dict((key, value) for key, value in (environ or {}).items() if not key.startswith("UV_"))
    env.update(UV_CACHE_DIR=cache_dir, UV_NO_CONFIG="1", UV_PYTHON_DOWNLOADS="never", UV_NO_PROGRESS="1")
    out, extra_index, offline = [], False, False
    args = list(pip_args)
    index = 0
    while index < len(args):
        name, value = _split(args[index])
        index += 1
        takes_value = name in _TO_ENV or name in _DROPPED_WITH_VALUE or (
            name in _RENAMED and name not in _VALUELESS)
        if takes_value and value is None:
            value = args[index] if index < len(args) else ""
            index += 1
        if name in _TO_ENV:
            for key in _TO_ENV[name]:
                env[key] = value
        elif name in _DROPPED or name in _DROPPED_WITH_VALUE:
            continue
        elif name in _RENAMED and takes_value:
            extra_index = extra_index or name == "--extra-index-url"
            out += [_RENAMED[name], value]
        elif name in _RENAMED:
            out.append(_RENAMED[name])
        elif name == "--no-index":
            offline = True
            out.append(name)
        elif name in _UV_VALUELESS:
            out.append(_UV_VALUELESS[name])
        else:
            out.append(args[index - 1])
    head = [uv, "pip", "install", "--python", python, "--link-mode", "hardlink", "--compile-bytecode", "--no-config",
            "--cache-dir", cache_dir]
    if offline:
        head.append("--offline")
    if extra_index:
        head += ["--index-strategy", "unsafe-best-match"]
    return head + out, env


def install_command(installer, python, pip_args, uv="", cache_dir="", environ=None):
    """(argv, env) of the one install call: env None for pip (the module's environment, as before)."""
    if installer == "uv":
        return uv_command(uv, python, pip_args, cache_dir, environ)
    return pip_command(python, pip_args), None
