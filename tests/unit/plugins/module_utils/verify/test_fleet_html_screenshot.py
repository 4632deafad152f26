"""The fleet report's HTML of a mixed fleet, rendered for real by headless Chromium.

A fleet with a silently slow GPU, a GPU that dropped since its last verification, a host not in
the play, a failed host, a host never verified, a busy host and a pair of H200 with its P2P
figures: the page is rendered to a PNG, which must not be blank and must show the highlights (the
rows of passed, failed, flagged and busy hosts, the bars and the ticks at the expected figures).
Chromium is installed by tests/bin/bootstrap.sh (the test layers run as root); outside CI, where
it is absent, the test is skipped with that reason, and under CI a missing Chromium fails it.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess

import pytest

from fleet_results import mixed_fleet
from png_pixels import pixels

from ansible_collections.blackwell.pytorch.plugins.module_utils.verify import fleet_html, fleet_report

_IN_CI = os.environ.get("CI", "").lower() in ("true", "1", "yes")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None and not _IN_CI,
                                reason="chromium is not installed (tests/bin/bootstrap.sh installs it when root)")
# the page's own colours: rows of passed, failed, flagged and busy hosts, bars of flagged, failed and healthy
# figures, and the tick at the figure expected of the model
ROW_PASS, ROW_FAIL, ROW_FLAG, ROW_BUSY = (0xdd, 0xff, 0xdd), (0xff, 0xdd, 0xdd), (0xea, 0xd7, 0xf5), (0xd6, 0xea, 0xf8)
BAR_FLAG, BAR_FAIL, BAR_OK = (0x8e, 0x44, 0xad), (0xc0, 0x39, 0x2b), (0x2e, 0x86, 0xc1)
TICK_EXPECTED = (0x27, 0xae, 0x60)


def test_the_mixed_fleet_page_renders_with_its_highlights(tmp_path):
    if CHROMIUM is None:
        pytest.fail("chromium is not installed, and this is CI: tests/bin/bootstrap.sh installs it")
    documents, earlier, play = mixed_fleet(6)
    report = fleet_report.fleet(documents, previous=json.dumps(fleet_report.fleet(earlier)), play_hosts=play)
    page = tmp_path / "fleet.html"
    page.write_text(fleet_html.html(report))
    png = tmp_path / "fleet.png"
    subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync", "--no-first-run",
                    "--user-data-dir=%s" % (tmp_path / "profile"), "--screenshot=%s" % png, "--window-size=1400,2400",
                    "file://%s" % page], check=True, timeout=120, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert png.is_file() and png.stat().st_size > 10000
    width, height, colours = pixels(str(png))
    assert (width, height) == (1400, 2400)
    seen = set(colours)
    assert len(seen) > 50  # text, tables and bars: far from a single colour
    missing = [name for name, colour in (("passed row", ROW_PASS), ("failed row", ROW_FAIL), ("flagged row", ROW_FLAG),
                                         ("busy row", ROW_BUSY), ("flagged bar", BAR_FLAG), ("failed bar", BAR_FAIL),
                                         ("healthy bar", BAR_OK), ("expected tick", TICK_EXPECTED))
               if colour not in seen]
    assert missing == [], "not drawn: %s" % ", ".join(missing)
