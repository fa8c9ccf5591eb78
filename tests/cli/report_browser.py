#!/usr/bin/python3
"""The report as a reader sees it: headless Chromium opens the HTML file from disk; the test fails on
any console error, checks the rendered plots and tables against the figures `headroom analyze` and
`headroom project` print for the same inputs, and saves a full-page screenshot and a PDF print.

usage: report_browser.py REPORT.HTML ANALYSIS_DIR OUT_DIR
  ANALYSIS_DIR holds NAME.analysis.json and NAME.projection.json for each workload NAME
Debian's python3-selenium drives Debian's chromium through chromium-driver; nothing is downloaded.
"""
import base64
import json
import pathlib
import sys
import tempfile

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

report, analysis_dir, out_dir = map(pathlib.Path, sys.argv[1:4])
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


def percent(fraction, decimals=1):
    return f"{100 * fraction:.{decimals}f}%"


profile = tempfile.TemporaryDirectory(prefix="headroom-chromium-")
options = webdriver.ChromeOptions()
options.binary_location = "/usr/bin/chromium"
for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--disable-dev-shm-usage", f"--user-data-dir={profile.name}", "--window-size=1100,900",
             "--force-device-scale-factor=1"):
    options.add_argument(flag)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
try:
    driver.get(report.resolve().as_uri())
    js = driver.execute_script

    # Nothing may go wrong on the page: no script errors, no failed loads, no blocked requests.
    for entry in driver.get_log("browser"):
        print("console:", entry["level"], entry["message"])
        check(entry["level"] not in ("SEVERE",), f"console error: {entry['message']}")
    resources = js("return performance.getEntriesByType('resource').map(e => e.name)")
    check(resources == [], f"the report fetched {resources}: it must be self-contained")

    # Every plot is drawn at a readable size, and none of its text is cut off by its own edges.
    plots = js("""return [...document.querySelectorAll('svg.plot')].map(svg => {
        const box = svg.getBoundingClientRect();
        const clipped = [...svg.querySelectorAll('text')].filter(t => {
          const b = t.getBoundingClientRect();
          return b.width > 0 && (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1);
        }).map(t => t.textContent);
        return {id: svg.id, width: box.width, height: box.height, clipped: clipped};
      })""")
    check(len(plots) >= 4, f"only {len(plots)} plots")
    for p in plots:
        check(p["width"] > 300 and p["height"] > 60, f"plot {p['id']} is drawn {p['width']}x{p['height']}")
        check(not p["clipped"], f"plot {p['id']} cuts off its text {p['clipped']}")

    summary_rows = js("""return [...document.querySelectorAll('table.workloads tbody tr')].map(
        tr => [...tr.cells].map(td => td.textContent))""")
    estimate_rows = js("""return [...document.querySelectorAll('table.estimates tbody tr')].map(
        tr => [...tr.cells].map(td => td.textContent))""")
    for analysis_file in sorted(analysis_dir.glob("*.analysis.json")):
        name = analysis_file.name[: -len(".analysis.json")]
        a = json.loads(analysis_file.read_text())["total"]
        f, fx, idle = a["addressable_fraction"], a["addressable_exclusive_fraction"], a["idle_fraction"]
        anchor = "workload-" + "".join(c if c.isalnum() else "-" for c in name)

        # The stacked bar: each segment as wide as its share of the window, all of them the window.
        bar = js("""const svg = document.getElementById(arguments[0]);
            return [...svg.querySelectorAll('rect[data-share]')].map(r => ({
              share: parseFloat(r.dataset.share), width: r.getBoundingClientRect().width,
              category: r.dataset.category, addressable: r.dataset.addressable}));""", anchor + "-wall-clock")
        total_width = sum(s["width"] for s in bar)
        check(abs(sum(s["share"] for s in bar) - 1) < 1e-3, f"{name}: the bar's shares add up to {sum(s['share'] for s in bar)}")
        for s in bar:
            check(abs(s["width"] - s["share"] * total_width) < 1.0, f"{name}: segment {s} not drawn to scale")
        idle_bar = sum(s["share"] for s in bar if s["category"] == "idle")
        check(abs(idle_bar - idle) < 1e-4, f"{name}: idle {idle_bar} in the bar, {idle} in the analysis")
        addressable_bar = sum(s["share"] for s in bar if s["addressable"] == "yes")
        # Attribution splits overlapped time, so it lies between the exclusive f and f.
        check(fx - 1e-4 <= addressable_bar <= f + 1e-4, f"{name}: addressable {addressable_bar} outside [{fx}, {f}]")

        # The Amdahl plot: its ceiling and its reference points are the analysis' figures.
        amdahl = js("""const svg = document.getElementById(arguments[0]);
            return {ceilings: [...svg.querySelectorAll('line[data-ceiling]')].map(l => parseFloat(l.dataset.ceiling)),
                    points: [...svg.querySelectorAll('circle[data-kernel-speedup]')].map(c => [
                      parseFloat(c.dataset.kernelSpeedup), parseFloat(c.dataset.endToEnd)])};""", anchor + "-amdahl")
        check(any(abs(c - 1 / (1 - f)) < 1e-5 for c in amdahl["ceilings"]), f"{name}: no ceiling 1/(1-f) in {amdahl['ceilings']}")
        for s, e in amdahl["points"]:
            check(abs(e - 1 / ((1 - f) + f / s)) < 1e-5, f"{name}: Amdahl at {s}x drawn as {e}")
        check(len(amdahl["points"]) == 4, f"{name}: {len(amdahl['points'])} reference points")

        # The tables say what the analysis says.
        row = next((r for r in summary_rows if r[0] == name), None)
        check(row is not None, f"{name}: not in the summary table")
        if row:
            check(row[4] == percent(f) and row[5] == percent(fx) and row[3] == percent(idle),
                  f"{name}: summary row {row} against f {percent(f)}, exclusive {percent(fx)}, idle {percent(idle)}")
        projection = json.loads((analysis_dir / f"{name}.projection.json").read_text())
        for s in projection["sources"]:
            row = next((r for r in estimate_rows if r[0] == name and r[1] == s["source"]), None)
            check(row is not None, f"{name}: no estimates row for {s['source']}")
            if row:
                check(row[2].startswith(percent(s["published"]["time_saved"], 2)),
                      f"{name} / {s['source']}: published estimate {row[2]}, projection says {s['published']['time_saved']}")
                check((row[3] == "n/a") == (s["expectation"] is None), f"{name} / {s['source']}: expectation {row[3]}")

    # A full-page screenshot a person can look at, and the print a reader would make.
    height = js("return document.documentElement.scrollHeight")
    driver.set_window_size(1100, height + 100)
    driver.save_screenshot(str(out_dir / "report.png"))
    pdf = base64.b64decode(driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": True, "preferCSSPageSize": True})["data"])
    check(pdf.startswith(b"%PDF") and len(pdf) > 10000, "printing to PDF gave no document")
    (out_dir / "report.pdf").write_bytes(pdf)
    print(f"screenshot: {out_dir / 'report.png'} (1100x{height + 100}); print: {out_dir / 'report.pdf'}")
    for entry in driver.get_log("browser"):
        check(entry["level"] != "SEVERE", f"console error while printing: {entry['message']}")
finally:
    driver.quit()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print("OK")
