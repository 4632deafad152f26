# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
from __future__ import annotations


class ModuleDocFragment(object):
    # How a module reads the package index pip reads (pytorch_plan): the index URLs, the proxy, TLS and pip's
    # extra arguments, with the role variable each option takes.
    DOCUMENTATION = r"""
notes:
  - Reads the index as pip reads it, through Ansible's URL reader - the CA bundle O(ca_path) (pip C(--cert)),
    the client certificate O(client_cert) (pip C(--client-cert)), no certificate check on O(trusted_hosts)
    (pip C(--trusted-host)), credentials in the URL or else from netrc (C(NETRC), C(~/.netrc) of the user the
    module runs as), O(proxy) or the proxy environment variables. C(--cert), C(--client-cert), C(--proxy) and
    C(--trusted-host) in O(pip_extra_args) apply here as they do to pip (after the role's, so they win).
  - Refuses, before reading the index, a O(ca_path) or O(client_cert) that is not a file, a O(client_cert)
    without its private key, and O(pip_extra_args) that send pip to another index (C(--index-url),
    C(--extra-index-url), C(--no-index), C(--find-links)). A certificate the CA bundle does not vouch for, a
    server that wants a client certificate, and HTTP 401 / 403 are refusals naming the option to set.
  - The secret part of a URL (C(user:password@), a token) in O(index), O(channel_base), O(extra_indexes),
    O(proxy) and O(pip_extra_args) never appears in the result or a message; neither does the content of
    O(client_cert) or of a netrc file.
options:
  index:
    description: The full index URL pip reads (C(pytorch_index_url), e.g. V(https://pypi.org/simple)); empty for none.
    type: str
    default: ""
    version_added: 0.3.0
  channel_base:
    description: Base of the per-channel indexes (C(pytorch_channel_base_url)); empty plans from the version table.
    type: str
    default: ""
    version_added: 0.3.0
  extra_indexes:
    description: Extra index URLs pip also reads; only their credentials are used here (masked in the output).
    type: list
    elements: str
    default: []
    version_added: 0.3.0
  proxy:
    description: http(s) proxy for reading the index (C(pytorch_proxy)); empty for the proxy environment variables.
    type: str
    default: ""
    version_added: 0.3.0
  ca_path:
    description:
      - A CA bundle (PEM) on the target that vouches for the index's certificate (C(pytorch_index_ca_path));
        it must be a file. Only this bundle is trusted for the index (pip C(--cert)). Empty for the system's.
    type: path
    default: ""
    version_added: 0.3.0
  client_cert:
    description:
      - A PEM file on the target with the TLS client certificate and its private key, unencrypted
        (C(pytorch_index_client_cert), pip C(--client-cert)); it must be a file holding both. Empty for none.
    type: path
    default: ""
    version_added: 0.3.0
  trusted_hosts:
    description: Hosts (V(host) or V(host:port)) whose certificate is not checked, as pip C(--trusted-host) (C(pytorch_trusted_hosts)).
    type: list
    elements: str
    default: []
    version_added: 0.3.0
  pip_extra_args:
    description:
      - The extra arguments pip gets (C(pytorch_pip_extra_args)); their C(--cert), C(--client-cert), C(--proxy) and
        C(--trusted-host) apply to reading the index too, and options that name another index are refused.
    type: list
    elements: str
    default: []
    version_added: 0.3.0
  offline_fallback:
    description: Plan from the version table when the index cannot be read (a warning says so) instead of refusing.
    type: bool
    default: false
    version_added: 0.3.0
  index_timeout:
    description: Seconds each request to the index may take.
    type: int
    default: 30
    version_added: 0.3.0
"""
