#!/usr/bin/python3
"""The demo's HTML report, rendered in headless Chromium: every image loads, no error happens.

    test_report_browser.py STRATA_CLI OUTDIR

Runs `strata demo --out` (a small run: about a second), builds index.html with
scripts/report/report.py, checks the page is self-contained (images inline, no script, no
network), then loads a copy with a small checking script in Chromium: the script records script
errors, console errors and resources that failed to load, checks every <img> decoded, and
writes its verdict into the DOM, which --dump-dom prints. The same run takes a screenshot
(OUTDIR/report-screenshot.png, kept for people to look at), checked for drawn plots. A broken
page (an image that does not decode, a script error) must fail the same check: the check can
fail.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reportcheck  # noqa: E402

CHECKER = """<script>
window.__failures = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  window.__failures.push(t && t.tagName ? 'failed to load: <' + t.tagName.toLowerCase() + '> ' +
                         String(t.src || t.href || '').slice(0, 60) : 'error: ' + e.message);
}, true);
var consoleError = console.error;
console.error = function () {
  window.__failures.push('console.error: ' + Array.prototype.join.call(arguments, ' '));
  consoleError.apply(console, arguments);
};
window.addEventListener('load', function () {
  var images = document.images, i;
  for (i = 0; i < images.length; i++)
    if (!images[i].complete || images[i].naturalWidth === 0)
      window.__failures.push('image not loaded: ' + images[i].alt);
  var out = document.createElement('pre');
  out.id = 'report-check';
  out.textContent = 'images=' + images.length + ' failures=' + window.__failures.length +
                    '\\n' + window.__failures.join('\\n');
  document.body.appendChild(out);
});
</script>"""

BROKEN = ("<!DOCTYPE html><html><head></head><body><img alt='broken' "
          "src='data:image/png;base64,AAAA'><script>no_such_function();</script></body></html>")


def fail(msg):
    print(f"FAIL: {msg}")
    sys.exit(1)


def browse(chromium, page, workdir, screenshot=None):
    """Load `page` (with the checker) in headless Chromium; returns (images, failures)."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    checked = page + ".checked.html"
    with open(checked, "w", encoding="utf-8") as f:
        f.write(text.replace("<head>", "<head>" + CHECKER, 1))
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-extensions", "--hide-scrollbars",
           f"--user-data-dir={os.path.join(workdir, 'chromium-profile')}", "--dump-dom"]
    if screenshot:
        cmd += [f"--screenshot={screenshot}", "--window-size=1200,3200"]
    cmd.append("file://" + os.path.abspath(checked))
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    m = re.search(r'<pre id="report-check">images=(\d+) failures=(\d+)\n?(.*?)</pre>',
                  run.stdout, re.S)
    if run.returncode != 0 or m is None:
        fail(f"chromium did not report on {page} (exit {run.returncode}):\n"
             + run.stderr[-3000:])
    return int(m.group(1)), [l for l in m.group(3).splitlines() if l]


def check_static(page, plots):
    """Self-contained: every plot an inline PNG; no script, no stylesheet or image fetched."""
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if re.search(r"<script|<link|<iframe", text, re.I):
        fail("the report holds a script, a linked resource or a frame")
    refs = re.findall(r'(?:src|href)\s*=\s*"([^"]*)"', text)
    remote = [r for r in refs if not (r.startswith("data:image/png;base64,") or r.startswith("#"))]
    if remote:
        fail(f"the report refers to outside resources: {remote[:3]}")
    images = len(re.findall(r'<img src="data:image/png;base64,', text))
    if images != plots:
        fail(f"{plots} plots declared, {images} images in the page")
    if "could not be drawn" in text:
        fail("a plot could not be drawn")


def check_screenshot(path):
    """The screenshot shows plots: mostly white page, but a real share of coloured pixels."""
    import matplotlib.image
    import numpy as np
    img = matplotlib.image.imread(path)[:, :, :3]
    if img.shape[0] < 1000 or img.shape[1] < 1000:
        fail(f"screenshot is {img.shape[1]}x{img.shape[0]}")
    spread = img.max(axis=2) - img.min(axis=2)  # 0 for greys, large for colours
    coloured = float((spread > 0.25).mean())
    ink = float((img.min(axis=2) < 0.5).mean())
    print(f"screenshot {path}: {img.shape[1]}x{img.shape[0]}, {coloured:.1%} coloured, "
          f"{ink:.1%} dark pixels")
    if coloured < 0.02 or ink < 0.005:
        fail("the screenshot shows no plots")


def main():
    cli, outdir = sys.argv[1], sys.argv[2]
    reportcheck.require_matplotlib()
    chromium = reportcheck.find_chromium()
    reportcheck.require("chromium", chromium is not None, "apt-get install chromium")
    with tempfile.TemporaryDirectory() as work:
        demo = os.path.join(work, "demo")
        run = subprocess.run([cli, "demo", "--out", demo], capture_output=True, text=True,
                             timeout=240)
        if run.returncode != 0:
            fail(f"strata demo failed:\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        with open(os.path.join(demo, "demo.json"), encoding="utf-8") as f:
            plots = sum(1 for it in json.load(f)["items"] if "plot" in it)
        if plots < 4:
            fail(f"the demo declares {plots} plots")
        gen = subprocess.run(["/usr/bin/python3",
                              os.path.join(reportcheck.GENERATOR_DIR, "report.py"), demo,
                              "--title", "Strata demo (test)", "--strict"],
                             capture_output=True, text=True, timeout=240)
        page = os.path.join(demo, "index.html")
        if gen.returncode != 0 or not os.path.exists(page):
            fail(f"report.py failed:\n{gen.stdout}{gen.stderr}")
        check_static(page, plots)
        shot = os.path.join(outdir, "report-screenshot.png")
        images, failures = browse(chromium, page, work, shot)
        if images != plots or failures:
            fail(f"in Chromium: {images} of {plots} images, failures: {failures}")
        check_screenshot(shot)
        # the check must be able to fail
        broken = os.path.join(work, "broken.html")
        with open(broken, "w", encoding="utf-8") as f:
            f.write(BROKEN)
        _, failures = browse(chromium, broken, work)
        if not any("image not loaded" in f for f in failures) or \
                not any("no_such_function" in f for f in failures):
            fail(f"the checker missed a broken image or a script error: {failures}")
    print(f"ok: {plots} plots rendered in Chromium without errors; screenshot in {shot}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
