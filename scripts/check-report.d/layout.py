#!/usr/bin/env python3
"""Checks the layout of an `amble report` page's charts as Chromium draws them at a width.

    layout.py CHROMIUM PAGE.html WIDTH [HEIGHT] [--screenshot FILE.png]

The page is loaded in an iframe WIDTH CSS pixels wide and HEIGHT high (default 2400) (headless Chromium makes no window
narrower than 500 px, so a phone's 390 px is only reached this way; the page's phone CSS
applies inside the iframe), and a script measures every chart's SVG in the browser:

  clipped    a text reaches outside its SVG (cut at the drawing's edge);
  overlap    two texts overlap;
  covered    a text is within 2 px of a bar or an alert marker (reads as covered by it);
  markers    two alert markers overlap (many alerts drawn as one solid bar).

Texts are measured by their ink, not their font box: from the cap height to the baseline
(DejaVu Sans: the box is 1.164 em, 0.928 above the baseline, caps 0.729), which is what the
eye sees touching. Prints each problem and exits 1 when there is one; with --screenshot it
also saves the page at that width.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

SCRIPT = r"""
window.addEventListener('load', () => {
  const out = [];
  const doc = document.getElementById('page').contentDocument;
  const ink = (r) => ({ left: r.left, right: r.right, top: r.top + 0.17 * r.height, bottom: r.bottom - 0.2 * r.height });
  const grow = (r, by) => ({ left: r.left - by, right: r.right + by, top: r.top - by, bottom: r.bottom + by });
  const area = (a, b) => Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top));
  const name = (e) => JSON.stringify(e.textContent.trim());
  doc.querySelectorAll('svg').forEach((svg, index) => {
    const chart = (svg.closest('section') || {}).id || ('svg ' + index);
    const box = svg.getBoundingClientRect();
    // A line each: a text's tspans (a label on two lines), or the text itself.
    const texts = [...svg.querySelectorAll('text')].flatMap(t => t.querySelector('tspan') ? [...t.querySelectorAll('tspan')] : [t])
      .filter(t => t.textContent.trim() !== '');
    const marks = [...svg.querySelectorAll('rect.bar, path.alert')];
    const alerts = [...svg.querySelectorAll('path.alert')];
    texts.forEach((t, i) => {
      const r = t.getBoundingClientRect(), k = ink(r);
      if (r.left < box.left - 0.5 || r.right > box.right + 0.5 || k.top < box.top - 0.5 || k.bottom > box.bottom + 0.5) {
        out.push(`clipped ${chart}: ${name(t)} at ${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)} px`);
      }
      texts.slice(i + 1).forEach(u => {
        if (area(k, ink(u.getBoundingClientRect())) > 1) out.push(`overlap ${chart}: ${name(t)} and ${name(u)}`);
      });
      marks.forEach(m => {
        if (area(grow(k, 2), m.getBoundingClientRect()) > 0) out.push(`covered ${chart}: ${name(t)} by a ${m.getAttribute('class')}`);
      });
    });
    let touching = 0;
    alerts.forEach((a, i) => alerts.slice(i + 1).forEach(b => { if (area(a.getBoundingClientRect(), b.getBoundingClientRect()) > 0.5) touching += 1; }));
    if (touching > 0) out.push(`markers ${chart}: ${touching} pairs of the ${alerts.length} alert markers overlap`);
  });
  document.getElementById('result').textContent = JSON.stringify(out);
});
"""


def main():
    args = sys.argv[1:]
    shot = None
    if "--screenshot" in args:
        at = args.index("--screenshot")
        shot = args[at + 1]
        del args[at:at + 2]
    if len(args) not in (3, 4):
        raise SystemExit(__doc__)
    chromium, page, width = args[0], os.path.abspath(args[1]), int(args[2])
    height = int(args[3]) if len(args) == 4 else 2400
    with tempfile.TemporaryDirectory() as work:
        wrapper = os.path.join(os.path.dirname(page), f".layout-{os.getpid()}-{width}.html")
        with open(wrapper, "w") as f:
            f.write('<!doctype html><html><body style="margin:0"><pre id="result" style="display:none">not measured</pre>'
                    f'<iframe id="page" src="{os.path.basename(page)}" style="width:{width}px;height:{height}px;border:0"></iframe>'
                    f"<script>{SCRIPT}</script></body></html>")
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars", "--no-first-run",
                 "--force-device-scale-factor=1", "--default-background-color=ffffffff", "--allow-file-access-from-files",
                 "--user-data-dir=" + work]
        window = f"--window-size={max(500, width)},{height}"
        try:
            dom = subprocess.run([chromium, *flags, window, "--dump-dom", "file://" + wrapper],
                                 capture_output=True, text=True, timeout=120).stdout
            if shot:
                subprocess.run([chromium, *flags, window, "--screenshot=" + os.path.abspath(shot), "file://" + wrapper],
                               capture_output=True, timeout=120)
        finally:
            os.remove(wrapper)
    found = re.search(r'<pre id="result"[^>]*>(.*?)</pre>', dom, re.S)
    if not found or not found.group(1).startswith("["):
        raise SystemExit(f"{page} at {width} px: Chromium did not measure the page")
    problems = json.loads(found.group(1).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"'))
    for problem in problems:
        print(f"{os.path.basename(page)} at {width} px: {problem}")
    if not problems:
        print(f"{os.path.basename(page)} at {width} px: no text clipped, overlapping or covered; no alert markers overlap")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
