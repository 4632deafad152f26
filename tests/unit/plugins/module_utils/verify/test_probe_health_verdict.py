# -*- coding: utf-8 -*-
# Copyright: blackwell.pytorch contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Whether the preflight probe's health reading serves the verify role, and the verdict and textfile judged from it
with gpu_health's own functions (health_gates.evaluate, health_metrics.prometheus)."""
from __future__ import annotations

import pytest

import fake_nvml_health as fh
from ansible_collections.blackwell.pytorch.plugins.module_utils.hardware.gpu_health import nvml_health
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import health_gates, health_metrics
from ansible_collections.blackwell.pytorch.plugins.module_utils.verify.probe_health_verdict import judged

DIR = "/var/lib/node_exporter/textfile"
DRIVER = {"version": "580.159.04", "source": "nvml"}
STORED = {"written": "2026-11-20T08:00:00Z", "benchmark": {}}
REUSE = {"reuse": True, "stored": STORED}


def probe(*gpus, textfile=None, **more):
    reading = nvml_health(fh.HealthNVML(list(gpus)))
    reading.update(hostname="ws1", kernel_log={"source": "journal", "complete": True, "xids": [], "error": None})
    return dict({"kernel_log": "auto", "textfile_dir": DIR, "driver_version": "580.159.04", "textfile": textfile,
                 "reading": reading}, **more)


def request(**more):
    return dict({"host": "ws1", "device": "cuda", "kernel_log": "auto", "textfile_dir": DIR,
                 "gates": dict(health_gates.DEFAULTS), "gates_error": ""}, **more)


def test_a_reading_that_serves_is_judged_as_gpu_health_judges_it():
    sick = probe(dict(fh.H100_HEALTHY, remap=(0, 1, 1, 0)))
    answer = judged(sick, REUSE, DRIVER, request())
    verdict = health_gates.evaluate(sick["reading"], dict(health_gates.DEFAULTS), "ws1", {}, STORED["written"])
    assert answer["use"] is True and answer["reason"] == "the preflight probe's reading (driver 580.159.04)"
    assert answer["health"] == sick["reading"] and answer["verdict"] == verdict and verdict["passed"] is False
    content = health_metrics.prometheus(sick["reading"], verdict, "ws1")
    assert answer["textfile"] == {"path": DIR + "/blackwell_pytorch_health.prom", "content": content, "write": True}


def test_the_textfile_is_written_only_when_its_content_changes():
    healthy = probe(fh.H100_HEALTHY)
    content = judged(healthy, REUSE, DRIVER, request())["textfile"]["content"]
    assert judged(probe(fh.H100_HEALTHY, textfile=content), REUSE, DRIVER, request())["textfile"]["write"] is False
    assert judged(probe(fh.H100_HEALTHY, textfile="# stale\n"), REUSE, DRIVER, request())["textfile"]["write"] is True
    # a trailing slash names the same directory
    answer = judged(probe(fh.H100_HEALTHY, textfile=content), REUSE, DRIVER, request(textfile_dir=DIR + "/"))
    assert answer["use"] is True and answer["textfile"]["write"] is False
    # no textfile directory: nothing to write
    answer = judged(probe(fh.H100_HEALTHY, textfile_dir=""), REUSE, DRIVER, request(textfile_dir=""))
    assert answer["use"] is True and answer["textfile"] == {"path": "", "content": "", "write": False}


@pytest.mark.parametrize("reading, decision, driver, asked, why", [
    (None, REUSE, DRIVER, {}, "the preflight probe read no health (not asked, or nvidia-ml-py missing for its Python)"),
    ({}, REUSE, DRIVER, {}, "the preflight probe read no health (not asked, or nvidia-ml-py missing for its Python)"),
    ("probe", {"reuse": False}, DRIVER, {}, "the stack is verified in this run: its health is read after the benchmark"),
    ("probe", REUSE, DRIVER, {"kernel_log": "never"}, "the probe read the kernel log with 'auto', not 'never'"),
    ("probe", REUSE, DRIVER, {"textfile_dir": "/srv/prom"},
     "the probe read the textfile directory '/var/lib/node_exporter/textfile', not '/srv/prom'"),
    ("probe", REUSE, {"version": None, "source": "none"}, {},
     "the probe read the health under driver 580.159.04, None is loaded now"),
    ("probe", REUSE, DRIVER, {"gates_error": "xid: The value 'maybe' is not a valid boolean."},
     "the gates' options: xid: The value 'maybe' is not a valid boolean."),
    ("probe", REUSE, DRIVER, {"gates": {"xid_ignore": ["x"]}},
     "the gates' options: verify_health_xid_ignore must be a list of Xid numbers (got ['x'])"),
], ids=["no-reading", "empty", "benchmark-run", "kernel-log-mode", "textfile-dir", "driver", "gates-text", "gates"])
def test_anything_else_is_left_to_gpu_health(reading, decision, driver, asked, why):
    answer = judged(probe(fh.H100_HEALTHY) if reading == "probe" else reading, decision, driver, request(**asked))
    assert answer == {"use": False, "reason": why, "health": {}, "verdict": {},
                      "textfile": {"path": "", "content": "", "write": False}}
