# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the driver stage can build its kernel module against the running kernel.

DKMS builds the NVIDIA module against the headers of the running kernel. When they are not
installed and the package manager's lists do not offer their package (a kernel from backports,
a custom or superseded kernel), the package install dies on "No package matching
'linux-headers-...'" half way through the driver stage. The driver stage is refused before any
change then, with what to do, but only when it will build a module: a host whose fitting driver
is in place, or a play without the driver stage, builds nothing. No Ansible import.
"""
from __future__ import annotations

from ansible_collections.blackwell.pytorch.plugins.module_utils.driver.policy import installed_driver, parse_package_lines

# (rpm / dpkg) queries that list the installed driver packages as "name<TAB>version<TAB>status"
# lines (policy.parse_package_lines), the same the nvidia_driver role asks.
_PACKAGE_QUERIES = {
    "Debian": ["dpkg-query", "-W", "-f=${Package}\t${Version}\t${db:Status-Abbrev}\n", "nvidia-*",
               "libnvidia-*", "cuda-drivers*"],
    "RedHat": ["rpm", "-qa", "--qf", "%{NAME}\t%{VERSION}-%{RELEASE}\tii\n", "nvidia-*", "kmod-nvidia*",
               "libnvidia-*", "cuda-drivers*"],
}


def _headers(headers):
    """preflight_facts' kernel_headers, or blackwell_preflight.kernel (headers_* keys), as the former."""
    headers = dict(headers or {})
    for key in ("installed", "package", "installable"):
        if key not in headers and "headers_" + key in headers:
            headers[key] = headers["headers_" + key]
    return headers


def driver_packages_query(os_family):
    """argv that lists the installed driver packages on this OS family, or None."""
    query = _PACKAGE_QUERIES.get(os_family)
    return list(query) if query else None


def not_installable(headers):
    """Whether the package manager said (from lists it has) that the headers package is not there."""
    value = _headers(headers).get("installable")
    return value is False or str(value).lower() == "false"


def running_headers_to_install(headers):
    """The running kernel's headers package to install, '' when there is none to ask for.

    A package the lists do not offer is left out: asked for, it stops the install on "No package
    matching"; where the module must be built that case is refused (headers_refusal) instead.
    """
    headers = _headers(headers)
    return "" if not headers.get("package") or not_installable(headers) else str(headers["package"])


def build_planned(action, in_place):
    """Whether the driver stage installs driver packages, which builds the module with DKMS."""
    return action == "manage" and not in_place


def build_planned_before_plan(loaded, packages_text):
    """Whether the driver stage will build a module, told before its plan (site.yml's preflight).

    With no driver loaded and no driver package installed, the nvidia_driver role installs packages
    whatever its settings (or refuses: nvidia_driver_manage false on a host without a driver).
    A loaded driver or installed packages leave the answer to the role's own plan (driver_plan).
    """
    if (loaded or {}).get("loaded"):
        return False
    return not installed_driver(parse_package_lines(packages_text or ""))["names"]


def headers_refusal(headers, build, leave_out):
    """'' or the refusal of a module build against a kernel whose headers cannot be had.

    headers: preflight_facts' kernel_headers ({"release", "installed", "package", "installable"}) or
    blackwell_preflight.kernel (the same with headers_ before the last three);
    build: whether a module will be built (build_planned); leave_out: how to run without the
    driver stage where it is run from, ending with the command line (stage_refusals.site_leave_out,
    plan.ROLE_LEAVE_OUT).
    """
    headers = _headers(headers)
    if not build or headers.get("installed") is True or str(headers.get("installed")).lower() == "true":
        return ""
    if not headers.get("package") or not not_installable(headers):
        return ""
    return ("the driver stage builds the NVIDIA kernel module with DKMS for the running kernel %s, whose headers are "
            "not installed and not in the package lists (no %s). Install that kernel's headers from where the kernel "
            "came, or boot a kernel whose headers the repositories have (the distribution's current one) and run "
            "again, or %s" % (headers.get("release"), headers["package"], leave_out))
