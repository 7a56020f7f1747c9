"""The release report in a real browser: headless Chromium loads it with no console message
and no request leaving the file, and its screenshot is not blank.

Chromium is driven from the command line only (no extra Python package): ``--screenshot``
draws the page, ``--enable-logging=stderr`` prints every console message (the report has no
script, so any message - a blocked resource, a parse error - is a failure) and
``--log-net-log`` records every request the page makes. A control page with an external
image and a console message proves first that both are caught. ``.ci/run`` installs
Chromium from the distribution's packages; without one the tests skip, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import warnings
import zlib

import pytest

import pdanon
from tests._helpers.html_checks import accessibility_problems

#: a headless browser per test: the exhaustive suite's (``pytest --full``, conftest.py)
pytestmark = pytest.mark.slow
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
FLAGS = ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--disable-default-apps", "--disable-extensions",
         "--disable-domain-reliability", "--no-pings", "--enable-logging=stderr", "--v=0")
LOCAL = ("file:", "data:", "about:", "chrome:", "chrome-error:")


def _browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium found (looked for " + ", ".join(BROWSERS) + "); .ci/run installs "
                "the distribution's chromium package, or run: apt-get install chromium")


def render(page_path, tmp_path, width: int = 1280, height: int = 2000) -> dict:
    """Open ``page_path`` in headless Chromium; return its console messages, the URLs the
    page requested and the screenshot's path."""
    browser = _browser()
    shot, netlog = tmp_path / "shot.png", tmp_path / "net.json"
    cmd = [browser, *FLAGS, f"--user-data-dir={tmp_path / 'profile'}",
           f"--log-net-log={netlog}", f"--screenshot={shot}",
           f"--window-size={width},{height}", page_path.resolve().as_uri()]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "HOME": str(tmp_path)})
    if not shot.exists():
        pytest.fail(f"Chromium wrote no screenshot (exit {proc.returncode}): "
                    f"{proc.stderr[-2000:]}")
    console = [line for line in proc.stderr.splitlines() if ":CONSOLE" in line]
    return {"console": console, "requests": page_requests(netlog), "screenshot": shot}


def page_requests(netlog) -> list:
    """URLs of the requests made on behalf of a file:// page (the browser's own background
    requests carry another network isolation key and no initiator)."""
    try:
        data = json.loads(netlog.read_text())
    except json.JSONDecodeError:  # the log may lack its closing bracket
        text = netlog.read_text().rstrip().rstrip(",")
        data = json.loads(text + ("]}" if not text.endswith("}") else ""))
    names = {v: k for k, v in data["constants"]["logEventTypes"].items()}
    out = []
    for event in data.get("events", []):
        params = event.get("params") or {}
        if names.get(event["type"]) != "URL_REQUEST_START_JOB" or "url" not in params:
            continue
        key = params.get("network_isolation_key", "")
        by_page = "file://" in key or params.get("initiator") not in (None, "not an origin")
        if by_page:
            out.append(params["url"])
    return out


def png_pixels(path):
    """(distinct colours, share of non-white pixels) of a PNG; matplotlib decodes it when
    installed, else the filtered scanlines are read with zlib (a blank page filters to
    zeros, so the share of non-zero bytes stands in for non-white pixels)."""
    try:
        import matplotlib.image as mpimg
        import numpy as np
    except ImportError:
        raw = path.read_bytes()
        assert raw[:8] == b"\x89PNG\r\n\x1a\n"
        pos, idat = 8, b""
        while pos < len(raw):
            length = int.from_bytes(raw[pos:pos + 4], "big")
            if raw[pos + 4:pos + 8] == b"IDAT":
                idat += raw[pos + 8:pos + 8 + length]
            pos += 12 + length
        data = zlib.decompress(idat)
        return len(set(data)), sum(1 for b in data if b) / len(data)
    img = mpimg.imread(str(path))[..., :3]
    flat = (img.reshape(-1, 3) * 255).round().astype(np.int64)
    codes = flat[:, 0] * 65536 + flat[:, 1] * 256 + flat[:, 2]
    return len(np.unique(codes)), float((codes != 0xFFFFFF).mean())


def test_the_harness_catches_console_messages_and_requests(tmp_path):
    page = tmp_path / "control.html"
    page.write_text('<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>c'
                    '</title></head><body><h1>control</h1><img alt="x" src="http://'
                    'example.invalid/x.png"><script>console.error("CONTROL-ERROR")</script>'
                    "</body></html>", encoding="utf-8")
    seen = render(page, tmp_path, 400, 300)
    assert any("CONTROL-ERROR" in line for line in seen["console"]), seen["console"]
    assert "http://example.invalid/x.png" in seen["requests"], seen["requests"]


def _adult_report(path):
    df = pdanon.datasets.load_adult(nrows=3000)  # remembers the customary roles
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(10, algorithm="mondrian")
    return out.anon.report(df, path, title="Adult, k = 10 (Mondrian)")


def test_report_loads_offline_without_errors_and_is_not_blank(tmp_path):
    page = tmp_path / "report.html"
    rep = _adult_report(page)
    assert accessibility_problems(rep.to_html()) == []
    seen = render(page, tmp_path)
    assert seen["console"] == []
    leaving = [u for u in seen["requests"] if not u.startswith(LOCAL)]
    assert leaving == []
    colours, inked = png_pixels(seen["screenshot"])
    assert colours > 20 and inked > 0.02, (colours, inked)


#: what the instrumented copy of a report logs once laid out (the report has no script;
#: only this test copy does)
MEASURE = """<script>
addEventListener("load", () => {
  const h1 = document.querySelector("h1");
  const svgs = [...document.querySelectorAll("svg")];
  const figures = [...document.querySelectorAll("figure")];
  console.log("PDANON-FACTS " + JSON.stringify({
    height: document.documentElement.scrollHeight,
    width: document.documentElement.scrollWidth,
    after_title: h1.nextElementSibling.className,
    first_heading: document.querySelector("h2").textContent,
    svgs: svgs.length,
    unlabelled: svgs.filter(s => s.getAttribute("role") !== "img" || !s.getAttribute(
      "aria-label") || !s.querySelector("title")).length,
    uncaptioned: figures.filter(f => !f.querySelector("figcaption")).length,
  }));
});
</script>"""


def probed(page_path, tmp_path, width: int, script: str, marker: str) -> dict:
    """What ``script`` (added to a copy of ``page_path``) logs after ``marker`` once the page
    is laid out at ``width`` px."""
    probe = tmp_path / f"probed-{marker.strip().lower()}-{width}.html"
    probe.write_text(page_path.read_text(encoding="utf-8").replace("</body>",
                                                                   script + "</body>"),
                     encoding="utf-8")
    seen = render(probe, tmp_path, width, 900)
    for line in seen["console"]:
        if marker in line:
            text = line.split(marker, 1)[1]
            return json.loads(text[: text.rindex("}") + 1])
    pytest.fail(f"the measuring script logged nothing: {seen['console']}")


def laid_out(page_path, tmp_path, width: int = 1280) -> dict:
    """The facts MEASURE logs for ``page_path`` at ``width`` px."""
    return probed(page_path, tmp_path, width, MEASURE, "PDANON-FACTS ")


def _discharge_reports(tmp_path):
    """The 50,000-row discharge example (examples/report_discharges.py): its report and its
    internal report."""
    raw = pdanon.datasets.make_discharges(50_000, seed=0)
    roles = pdanon.datasets.DISCHARGE_ROLES
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = raw.anon.k_anonymize(
            5, l=2, algorithm="mondrian",
            options={"calendar": {"birth_date": "year", "admission_date": "month"}}, **roles)
    paths = tmp_path / "report.html", tmp_path / "internal.html"
    release.anon.report(raw, paths[0])
    release.anon.report(raw, paths[1], internal=True)
    return paths


def test_discharge_report_reads_verdict_first_and_stays_short(tmp_path):
    """As a reader meets it: the verdict box is the first thing under the title, the page
    of a 50,000-row release stays under 8,000 px at 1280 px (it grows with the columns, not
    the rows), nothing overflows sideways, and every figure has a text alternative."""
    _browser()
    for path in _discharge_reports(tmp_path):
        facts = laid_out(path, tmp_path)
        assert facts["after_title"].startswith("verdict"), facts
        assert facts["first_heading"].startswith("Verdict: "), facts
        assert facts["height"] < 8000, facts
        assert facts["width"] <= 1280, facts
        assert facts["svgs"] >= 3 and facts["unlabelled"] == 0, facts
        assert facts["uncaptioned"] == 0, facts
        if path.name == "internal.html":
            assert facts["svgs"] >= 3 + 6, facts  # a before/after figure per column
        seen = render(path, tmp_path)  # the report itself: no message, no request
        assert seen["console"] == [] and [u for u in seen["requests"]
                                          if not u.startswith(LOCAL)] == []


#: what the instrumented copy logs about the figures' boxes once laid out
MEASURE_BOXES = """<script>
addEventListener("load", () => {
  const box = e => e.getBoundingClientRect();
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5 &&
                           a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 &&
                          a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
  const figures = [...document.querySelectorAll("figure")].filter(f => f.querySelector("svg"));
  const problems = [];
  figures.forEach((f, i) => {
    const fb = box(f), s = f.querySelector("svg"), sb = box(s);
    const name = s.getAttribute("aria-label");
    if (!inside(sb, fb)) problems.push("chart outside its figure: " + name);
    if (sb.right > document.documentElement.clientWidth + 0.5)
      problems.push("chart past the page's right edge: " + name);
    figures.forEach((g, j) => {
      if (j > i && meets(box(s), box(g.querySelector("svg"))))
        problems.push("charts overlap: " + name + " / " + g.querySelector("svg").getAttribute("aria-label"));
    });
    [...s.querySelectorAll("rect")].filter(r => r.querySelector("title") &&
        parseFloat(r.getAttribute("height")) > 0).forEach(r => {
      const rb = box(r);
      if (!(rb.height > 0) || !inside(rb, sb))
        problems.push("bar not visible in " + name + ": " + r.querySelector("title").textContent);
    });
  });
  console.log("PDANON-BOXES " + JSON.stringify({figures: figures.length, problems: problems}));
});
</script>"""


def boxes(page_path, tmp_path, width: int) -> dict:
    """The facts MEASURE_BOXES logs for ``page_path`` at ``width`` px."""
    return probed(page_path, tmp_path, width, MEASURE_BOXES, "PDANON-BOXES ")


def test_the_harness_sees_a_chart_overflowing_its_figure(tmp_path):
    page = tmp_path / "control.html"
    chart = ('<figure style="width:100px"><svg role="img" aria-label="wide" width="300" '
             'height="50"><rect x="250" y="0" width="10" height="10"><title>far</title></rect>'
             '</svg><figcaption>c</figcaption></figure>')
    page.write_text(f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>c'
                    f'</title></head><body><div style="display:flex">{chart}{chart}</div>'
                    f'</body></html>', encoding="utf-8")
    found = boxes(page, tmp_path, 800)["problems"]
    assert any(p.startswith("chart outside its figure") for p in found), found
    assert any(p.startswith("charts overlap") for p in found), found


@pytest.mark.parametrize("width", [1280, 800])
def test_no_chart_overlaps_or_leaves_its_figure(tmp_path, width):
    """Each chart sits inside its figure, no two overlap and every bar is drawn, at 1280 and
    800 px: the release report (class sizes beside risk, both 520 px wide in 340 px cells,
    overlapped) and the internal report (a before/after figure per column)."""
    _browser()
    page = tmp_path / "report.html"
    rep = _adult_report(page)
    assert accessibility_problems(rep.to_html()) == []
    internal = tmp_path / "internal.html"
    df = pdanon.datasets.load_adult(nrows=3000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = df.anon.k_anonymize(10, algorithm="mondrian")
        out.anon.report(df, internal, internal=True)
    for path in (page, internal):
        facts = boxes(path, tmp_path, width)
        assert facts["figures"] >= 2 and facts["problems"] == [], (path.name, facts)
