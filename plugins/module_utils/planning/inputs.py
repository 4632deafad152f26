# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The pytorch role's inputs read as what they mean, whatever type `-e` or YAML gave them.

`-e name=value` always passes text ("false", "2.10", "torchvision,torchaudio"), and YAML reads
an unquoted 2.10 as the number 2.1. Each function returns the value in its one type or raises
ValueError with a message that names the variable, what it got and what to write instead.
Python 3.9, no Ansible import: the planning entry points (resolve.resolve_stack,
index_catalog.read_catalog) call them, and every filter reads its true/false arguments with as_bool
(plugin_utils.filter_args).
"""
from __future__ import annotations

import json
import re

_TRUE = ("true", "yes", "on", "1", "y", "t")
_FALSE = ("false", "no", "off", "0", "n", "f", "")
_DRIVER = re.compile(r"^\d{3}(\.\d+){0,2}$")
_CUDA = re.compile(r"^(?:cuda[-_ ]?)?(\d{1,2})[.\-_](\d{1,2})(?:[.\-_]\d+)?$", re.I)


def as_bool(value, name):
    """True/False from a bool, 0/1, or text as Ansible reads it ("false", "no", "off", "0", ...)."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if value is None:
        raise ValueError("%s must be true or false, not empty" % name)
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE and text:
        return False
    raise ValueError("%s must be true or false, got %r" % (name, value))


def as_version(value, name):
    """A version as text. A number is refused: YAML reads 2.10 as 2.1, so the meant release is lost."""
    if value is None:
        return ""
    if isinstance(value, bool):
        raise ValueError("%s must be a version such as \"2.9.1\", got %r" % (name, value))
    if isinstance(value, (int, float)):
        raise ValueError("%s is the number %r, not a version: YAML reads 2.10 as 2.1. Quote it (%s: \"%s\")"
                         % (name, value, name, value))
    return str(value).strip()


def as_list(value, name):
    """A list of text: a list as is; text as a JSON/YAML flow list ("[a, b]") or names split on commas
    and spaces ("torchvision,torchaudio"); None and "" -> []. A mapping or a number is refused."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(item).strip() for item in value if str(item).strip()]
    if isinstance(value, dict) or isinstance(value, (int, float)):
        raise ValueError("%s must be a list, got %r" % (name, value))
    text = str(value).strip()
    if text.startswith("{"):
        raise ValueError("%s must be a list, got the mapping %r" % (name, value))
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            items = [item.strip().strip("'\"") for item in text.strip("[]").split(",")]
        if not isinstance(items, list):
            raise ValueError("%s must be a list, got %r" % (name, value))
        return [str(item).strip() for item in items if str(item).strip()]
    return [item for item in re.split(r"[,\s]+", text) if item]


def as_path(value, name, required=False):
    """An absolute path, "" when empty (unless required). A relative path is refused: on the target it
    would resolve against whatever directory the module runs in."""
    text = "" if value is None else str(value).strip()
    if not text:
        if required:
            raise ValueError("%s must be an absolute path, not empty" % name)
        return ""
    if text.startswith("file://"):
        text = text[len("file://"):]
    if not text.startswith("/"):
        raise ValueError("%s must be an absolute path on the target, got %r (relative to what?)" % (name, value))
    return text


def as_cuda(value, name):
    """A CUDA version "X.Y" or "" when unknown: from "13.0", 13.0, "12.8.93", "cuda-12.8" or NVML's 13000.

    A driver version (580.95.05, 580) where a CUDA version belongs is refused with the difference."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return ""
    if isinstance(value, bool):
        raise ValueError("%s must be a CUDA version such as \"13.0\", got %r" % (name, value))
    if isinstance(value, int) or (isinstance(value, str) and value.strip().isdigit() and len(value.strip()) >= 4):
        code = int(value)
        if code >= 10000:
            return "%d.%d" % (code // 1000, (code % 1000) // 10)
    text = repr(value) if isinstance(value, float) else str(value).strip()
    if _DRIVER.match(text):
        raise ValueError("%s is %s, a driver version, not a CUDA version: give the CUDA version the driver "
                         "supports (\"CUDA Version\" of nvidia-smi, e.g. \"13.0\" for driver 580)" % (name, text))
    match = _CUDA.match(text)
    if not match:
        raise ValueError("%s must be a CUDA version such as \"13.0\", got %r" % (name, value))
    return "%d.%d" % (int(match.group(1)), int(match.group(2)))


def as_int(value, name, minimum=None):
    """An integer from a number or its text ("2"); refused below `minimum` or when not whole."""
    if isinstance(value, bool):
        raise ValueError("%s must be a whole number, got %r" % (name, value))
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        raise ValueError("%s must be a whole number, got %r" % (name, value))
    if number != int(number):
        raise ValueError("%s must be a whole number, got %r" % (name, value))
    if minimum is not None and int(number) < minimum:
        raise ValueError("%s must be at least %d, got %r" % (name, minimum, value))
    return int(number)
