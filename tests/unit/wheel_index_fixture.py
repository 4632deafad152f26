# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Package indexes that look like the real ones, built at test time (nothing binary is committed).

build(root) writes, under root:
  files/*.whl            tiny real zip wheels with real METADATA (torch's carry 1500 members, so the
                         central directory starts before a 64 KiB tail, as in a real wheel)
  pypi/<name>/index.html PEP 503 page of a PyPI-like index: unlabelled torch wheels declaring their
                         CUDA runtime per version; PEP 658 metadata announced for some files only
  pypi/<name>/index.json the PEP 691 JSON of the same page
  whl/cu126, whl/cu128   download.pytorch.org-like channel indexes (labelled wheels)
  wheelhouse/            a flat directory of wheels
serve(root) runs a loopback http.server that honours Range, content-negotiates JSON / HTML on
/pypi/, records every request (path, Range header; Authorization apart), and also answers as an HTTP proxy (it
serves its own tree for any host, recording the proxied URLs).
"""
from __future__ import annotations

import http.server
import json
import os
import re
import threading
import zipfile

DATE = (2026, 1, 1, 0, 0, 0)
X86 = "cp311-cp311-manylinux_2_28_x86_64"
LINUX = '; platform_system == "Linux" and platform_machine == "x86_64"'
# torch version -> its Requires-Dist for CUDA (PyPI's real shapes, docs/domain.md section 4)
PYPI_TORCH = {
    "2.7.1": ["nvidia-cuda-runtime-cu12==12.6.77" + LINUX, "nvidia-cublas-cu12==12.6.4.1" + LINUX],
    "2.9.1": ["nvidia-cuda-nvrtc-cu12==12.8.93" + LINUX, "nvidia-cuda-runtime-cu12==12.8.90" + LINUX],
    "2.12.1": ["cuda-toolkit[cublas,cudart,nvrtc]==13.0.2" + LINUX],
    "2.14.1": ["cuda-toolkit[cublas,cudart,nvrtc]==13.0.2" + LINUX],
    "2.15.0": ["cuda-toolkit[cublas,cudart,nvrtc]==13.2.2" + LINUX],
}
PYPI_COMPANIONS = [("torchvision", "0.22.1", "torch==2.7.1"), ("torchvision", "0.24.1", "torch==2.9.1"),
                   ("torchvision", "0.27.1", "torch==2.12.1"), ("torchvision", "0.28.0", "torch==2.13.0"),
                   ("torchvision", "0.29.1", "torch>=2.14.0"), ("torchaudio", "2.7.1", "torch==2.7.1"),
                   ("torchaudio", "2.9.1", "torch==2.9.1")]
# files whose PEP 658 metadata the PyPI-like index serves (the others need range requests)
WITH_METADATA = ("torch-2.9.1-", "torchvision-0.24.1-", "torchaudio-2.9.1-")


def wheel(directory, name, version, requires, tag=X86, members=0):
    """A real zip wheel with METADATA first (far from the end) and `members` filler files."""
    filename = "%s-%s-%s.whl" % (name, version, tag)
    dist = "%s-%s.dist-info" % (name, version.split("+")[0])
    meta = "Metadata-Version: 2.1\nName: %s\nVersion: %s\n%s\nfixture wheel\n" % (
        name, version, "".join("Requires-Dist: %s\n" % line for line in requires))
    with zipfile.ZipFile(os.path.join(directory, filename), "w", zipfile.ZIP_DEFLATED) as whl:
        whl.writestr(zipfile.ZipInfo(dist + "/METADATA", DATE), meta)
        for index in range(members):
            whl.writestr(zipfile.ZipInfo("%s/lib/part_%04d_with_a_long_member_name.py" % (name, index), DATE),
                         "x = %d\n" % index)
        whl.writestr(zipfile.ZipInfo(dist + "/WHEEL", DATE), "Wheel-Version: 1.0\nTag: %s\n" % tag)
    with open(os.path.join(directory, filename + ".metadata"), "w") as handle:
        handle.write(meta)
    return filename


def _page(directory, name, files, meta_for, files_dir):
    os.makedirs(os.path.join(directory, name), exist_ok=True)
    rel = os.path.relpath(files_dir, os.path.join(directory, name))
    anchors, entries = [], []
    for filename in sorted(files):
        served = filename.startswith(meta_for)
        attr = ' data-dist-info-metadata="sha256=00" data-core-metadata="sha256=00"' if served else ""
        anchors.append('<a href="%s/%s#sha256=00"%s>%s</a><br/>' % (
            rel, filename.replace("+", "%2B"), attr, filename))
        entries.append({"filename": filename, "url": "%s/%s" % (rel, filename.replace("+", "%2B")),
                        "hashes": {"sha256": "00"}, "core-metadata": {"sha256": "00"} if served else False})
    with open(os.path.join(directory, name, "index.html"), "w") as handle:
        handle.write("<!DOCTYPE html><html><body><h1>Links for %s</h1>\n%s\n</body></html>\n" % (name, "\n".join(anchors)))
    with open(os.path.join(directory, name, "index.json"), "w") as handle:
        json.dump({"meta": {"api-version": "1.1"}, "name": name, "files": entries}, handle)


def build(root):
    files = os.path.join(root, "files")
    house = os.path.join(root, "wheelhouse")
    os.makedirs(files)
    os.makedirs(house)
    pypi = {"torch": [], "torchvision": [], "torchaudio": []}
    for version, requires in PYPI_TORCH.items():
        pypi["torch"].append(wheel(files, "torch", version, requires + ["filelock", "sympy>=1.13.3"], members=1500))
    pypi["torch"].append(wheel(files, "torch", "2.9.1", [], tag="cp312-cp312-manylinux_2_28_x86_64"))
    pypi["torch"].append(wheel(files, "torch", "2.9.1", [], tag="cp311-cp311-win_amd64"))
    for name, version, need in PYPI_COMPANIONS:
        pypi[name].append(wheel(files, name, version, [need]))
    for name, names in pypi.items():
        _page(os.path.join(root, "pypi"), name, names, WITH_METADATA, files)
    for channel in ("cu126", "cu128"):
        chan = {"torch": [wheel(files, "torch", "2.9.1+" + channel, [])],
                "torchvision": [wheel(files, "torchvision", "0.24.1+" + channel, ["torch==2.9.1"])],
                "torchaudio": [wheel(files, "torchaudio", "2.9.1+" + channel, ["torch==2.9.1"])]}
        for name, names in chan.items():
            _page(os.path.join(root, "whl", channel), name, names, ("torch",), files)
    wheel(house, "torch", "2.12.1", PYPI_TORCH["2.12.1"])
    wheel(house, "torchvision", "0.27.1", ["torch==2.12.1"])
    for leftover in os.listdir(house):
        if leftover.endswith(".metadata"):
            os.unlink(os.path.join(house, leftover))
    return root


class _Handler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def do_GET(self):
        if self.path.startswith("http://"):  # asked as a proxy: GET http://host/path
            self.server.proxied.append(self.path)
            self.path = "/" + self.path.split("/", 3)[3]
        self.server.seen.append((self.path, self.headers.get("Range")))
        self.server.auth.append(self.headers.get("Authorization"))
        path = self.translate_path(self.path)
        if self.path.startswith("/pypi/") and os.path.isdir(path):
            json_wanted = "application/vnd.pypi.simple.v1+json" in (self.headers.get("Accept") or "")
            json_wanted = json_wanted and self.server.json_pages
            kind = ("index.json", "application/vnd.pypi.simple.v1+json") if json_wanted else ("index.html", "text/html")
            return self._send(os.path.join(path, kind[0]), kind[1])
        if os.path.isdir(path):
            return self._send(os.path.join(path, "index.html"), "text/html")
        return self._send(path, "application/octet-stream")

    def _send(self, path, content_type):
        if not os.path.isfile(path):
            return self.send_error(404)
        with open(path, "rb") as handle:
            data = handle.read()
        wanted = re.match(r"^bytes=(\d*)-(\d*)$", self.headers.get("Range") or "")
        if wanted and self.server.ranges:
            start, end = wanted.groups()
            first = len(data) - int(end) if not start else int(start)
            last = len(data) - 1 if (not start or not end) else min(int(end), len(data) - 1)
            self.send_response(206)
            self.send_header("Content-Range", "bytes %d-%d/%d" % (first, last, len(data)))
            data = data[first:last + 1]
        else:
            self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def serve(root, json_pages=True, ranges=True):
    """(server, base URL): a loopback server of root in a thread; server.seen lists (path, Range)."""
    def handler(*args, **kwargs):
        return _Handler(*args, directory=root, **kwargs)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.seen, server.proxied, server.json_pages, server.ranges = [], [], json_pages, ranges
    server.auth = []  # the Authorization header of every request (None without one)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d" % server.server_address[1]
