#!/usr/bin/env python3
# The nightly dashboard in a browser: a few nights made here (summaries, shard results, one
# unreadable summary), `rope2d report --site` over them, the page loaded in headless Chromium
# (Debian's chromium). It must log nothing to the console (the page loads nothing and runs no
# script: a control page that breaks its policy must be caught), and every figure it shows
# must equal the summaries'; a screenshot is kept as the test's artifact.
# Usage: site_test.py ROPE2D ARTIFACT_DIR. Exit 77 (SKIPPED) without chromium, unless CI=true.
import html.parser
import json
import os
import shutil
import subprocess
import sys
import tempfile

rope2d, artifacts = sys.argv[1], sys.argv[2]
browser = shutil.which("chromium") or shutil.which("chromium-browser")
if not browser:
    print("site_test: no chromium (Debian's package `chromium`)")
    sys.exit(1 if os.environ.get("CI") == "true" else 77)

# The S terms of the tiers' allowances in units of 2^-24 S (tolerance.cpp's table):
# float32-bound c = 6 + 19u + ..., bf16-noise 2^-8, fp16-noise 2^-11, fp32-noise 2^-24.
S_TERM = {"float32-bound": 6 + 19 * 2.0**-24, "bf16-noise": 65536.0, "fp16-noise": 8192.0, "fp32-noise": 1.0}


def fig(v):
    return "inf" if v == float("inf") else "%.4g" % v


def run(kernel, dtype, verdict, sets, seconds=2.0):
    return {"kernel": kernel, "grad_dtype": dtype, "exit": 0 if verdict == "passed" else 1, "seconds": seconds,
            "report": True, "verdict": verdict,
            "sets": {k: {"disposition": d, "max": m, "elements": 65536} for k, (d, m) in sets.items()}}


def summary(date, status, verify, golden, sweep_max, regressions=(), wall=None, shards=1):
    s = {"date": date, "seed": 1, "commit": "0123abc", "config_digest": "d", "shards": shards, "gpu": True,
         "verify": verify,
         "golden": {"dir": "data/golden-smoke", "skipped": "" if golden else "no golden set",
                    "results": [{"file": f"p{i}.safetensors", "problem": f"p{i}", "disposition": d, "integrity": "ok",
                                 "elements": 10, "max": 0.5, "worst": None} for i, d in enumerate(golden)]},
         "sweep": {"ran": sweep_max is not None, "skipped": "" if sweep_max is not None else "no GPU", "complete": True,
                   "seconds": 71.5 if sweep_max is not None else 0, "max_scaled_error": sweep_max or 0,
                   "over_float32_bound": 0},
         "problems": [] if status == "passed" else ["something failed"], "regressions": list(regressions),
         "status": status}
    if wall is not None:
        s["wall_seconds"] = wall
    return s


def shard(date, index, count, verdicts, premise=None):
    """A shard result; premise: its sincosf premise's disposition (shard 0's item), or none, as
    in shards of builds before the premise item."""
    s = {"schema": "rope2d.nightly-shard/1", "commit": "0123abc", "config_digest": "d", "date": date,
         "shard": {"index": index, "count": count},
         "config": {"submissions": [], "grad_dtypes": ["bf16"], "golden": {"dir": "g", "files": []},
                    "sweep": {"from": 0, "to": 1, "lo": 0, "hi": 1, "chunk": 1, "budget_s": 1, "grads": []}},
         "items": [],
         "verify": [{"kernel": "k", "grad_dtype": "bf16", "exit": 0, "seconds": 1, "report": False, "verdict": v}
                    for v in verdicts],
         "golden": {"results": []}, "sweep": []}
    if premise:
        s["config"]["premise"] = {"measurement": ""}
        s["premise"] = [{"disposition": premise, "reason": "", "program": "sincosf_ulp", "file": "sincosf_ulp.json",
                         "given": False, "k_ulp": 2, "seconds": 1, "device": "GPU", "cuda_runtime": "13.0",
                         "cuda_driver": "13.0", "date": "2026-01-02T02:00:00Z", "functions": [], "exceeded": []}]
    return s


nights = {
    "2026-01-01": summary("2026-01-01", "passed", [
        run("rope2d", "bf16", "passed", {"randn/bf16/2x773": ("passed", 3.7), "subnormal/bf16/1x8192": ("passed", 253.9)}),
        run("rope2d", "fp32", "passed", {"randn/fp32/2x773": ("passed", 2.9)}),
        run("cand.cu", "bf16", "passed", {"randn/bf16/2x773": ("passed", 1.3)}, seconds=5.5)],
        ["passed", "passed", "passed"], 3.138),
    "2026-01-02": summary("2026-01-02", "FAILED", [
        run("rope2d", "bf16", "passed", {"randn/bf16/2x773": ("passed", 3.9)}),
        run("rope2d", "fp32", "passed", {"randn/fp32/2x773": ("passed", 2.7)}),
        run("cand.cu", "bf16", "incorrect", {"randn/bf16/2x773": ("incorrect", 1234.5), "odd/bf16/7": ("failed", None)})],
        ["passed", "incorrect", "passed"], 3.2, regressions=["cand.cu randn/bf16/2x773: newly incorrect"], wall=40.25,
        shards=3),
    "2026-01-03": summary("2026-01-03", "passed", [
        run("rope2d", None, "passed", {"randn/bf16/2x773": ("passed", 3.3), "randn/fp16/2x773": ("passed", 0.75)})],
        [], None),
}
shards = {"2026-01-02": [shard("2026-01-02", 0, 3, ["passed"], premise="incorrect"), shard("2026-01-02", 1, 3, ["incorrect"]),
                         shard("2026-01-02", 2, 3, ["passed", "skipped"])]}
UNREADABLE = "2026-01-04"


class Page(html.parser.HTMLParser):
    """Rows of the page's tables as {data-k: shown text}, keyed by (table id, night, run)."""

    def __init__(self):
        super().__init__()
        self.table, self.row, self.key, self.rows, self.text, self.depth = None, None, None, {}, [], 0
        self.titles = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table":
            self.table = a.get("id")
        elif tag == "tr" and "data-night" in a:
            self.row = (self.table, a["data-night"], a.get("data-run"))
            self.rows[self.row] = {}
        elif tag == "td" and self.row and "data-k" in a:
            self.key, self.text = a["data-k"], []
        elif tag == "span" and self.row and self.key == "shards":
            self.rows[self.row].setdefault("shard-marks", []).append(a.get("class", ""))
        elif tag == "li" and self.key:
            self.key_li = True

    def handle_endtag(self, tag):
        if tag == "td" and self.key:
            self.rows[self.row][self.key] = "".join(self.text).strip()
            self.key = None
        elif tag == "tr":
            self.row = None

    def handle_data(self, data):
        if self.key:
            self.text.append(data)


def worst(r):
    """The run's worst error as the dashboard defines it (nightly_site.hpp)."""
    w = None
    for name, s in r["sets"].items():
        e = float("inf") if s["max"] is None else s["max"]
        if s["disposition"] == "passed" and e > S_TERM["float32-bound"]:
            continue
        if s["disposition"] == "failed" and s["max"] is None:
            continue
        w = e if w is None else max(w, e)
    return w


def expected_rows():
    rows = {}
    for date, s in nights.items():
        runs = sum(v["verdict"] == "passed" for v in s["verify"])
        golden = s["golden"]["results"]
        seconds = s.get("wall_seconds", sum(v["seconds"] for v in s["verify"]) + s["sweep"]["seconds"])
        row = {"status": s["status"], "runs": f"{runs} of {len(s['verify'])}",
               "golden": f"{sum(g['disposition'] == 'passed' for g in golden)} of {len(golden)}" if golden else "skipped",
               "sweep": fig(s["sweep"]["max_scaled_error"]) if s["sweep"]["ran"] else "skipped",
               "seconds": fig(seconds), "regressions": str(len(s["regressions"])) + "".join(s["regressions"])}
        if date in shards:
            ok = [all(v["verdict"] in ("passed", "skipped") for v in sh["verify"]) and
                  all(p["disposition"] in ("passed", "skipped") for p in sh.get("premise", [])) for sh in shards[date]]
            row["shards"] = f"{sum(ok)} of {len(ok)} passed"
            row["shard-marks"] = ["shard " + ("pass" if o else "fail") for o in ok]
        else:
            row["shards"] = "1"
            row["shard-marks"] = ["shard " + ("pass" if s["status"] == "passed" else "fail")]
        rows[("nights", date, None)] = row
        for v in s["verify"]:
            w = worst(v)
            r = {"verdict": v["verdict"], "worst": fig(w)}
            for tier, c in S_TERM.items():
                r["margin " + tier] = fig(c / w) + "x"
            rows[("margins", date, v["kernel"] + " " + (v["grad_dtype"] or "(all dtypes)"))] = r
    rows[("nights", UNREADABLE, None)] = {"status": "unreadable"}
    return rows


def chromium(*args):
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--enable-logging=stderr", "--v=0",
           f"--user-data-dir={profile}", *args]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    console = [line for line in p.stderr.splitlines() if ":CONSOLE" in line]
    return p, console


failures = []
with tempfile.TemporaryDirectory() as tmp:
    root, profile = os.path.join(tmp, "nightly"), os.path.join(tmp, "profile")
    for date, s in nights.items():
        os.makedirs(os.path.join(root, date))
        with open(os.path.join(root, date, "summary.json"), "w") as f:
            json.dump(s, f)
        for sh in shards.get(date, []):
            with open(os.path.join(root, date, f"shard-{sh['shard']['index']}-of-{sh['shard']['count']}.json"), "w") as f:
                json.dump(sh, f)
    os.makedirs(os.path.join(root, UNREADABLE))
    with open(os.path.join(root, UNREADABLE, "summary.json"), "w") as f:
        json.dump({"date": UNREADABLE, "verify": "not a list"}, f)
    os.makedirs(os.path.join(root, "2026-02-30"))  # no day of the calendar: not a night
    with open(os.path.join(root, "2026-02-30", "summary.json"), "w") as f:
        json.dump(nights["2026-01-01"], f)

    p = subprocess.run([rope2d, "report", "--site", root], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"rope2d report --site exited {p.returncode}: {p.stdout}{p.stderr}")
    page = os.path.join(root, "index.html")

    # The control: a page breaking the dashboard's own policy (an inline script, an image from
    # the network) must show up as console messages, or the check below proves nothing.
    with open(page) as f:
        text = f.read()
    control = os.path.join(root, "control.html")
    with open(control, "w") as f:
        f.write(text.replace("</body>", "<script>console.error('x')</script><img src='http://example.invalid/a.png'></body>"))
    _, console = chromium("--dump-dom", "file://" + control)
    if len(console) < 2:
        failures.append(f"the control page's two violations were not both seen in the console log: {console}")

    r, console = chromium("--dump-dom", "file://" + page)
    if r.returncode != 0 or "<table id=\"nights\">" not in r.stdout:
        failures.append(f"chromium --dump-dom exited {r.returncode} without the page: {r.stderr[-2000:]}")
    failures += [f"console: {line}" for line in console]
    parsed = Page()
    parsed.feed(r.stdout)
    for key, want in expected_rows().items():
        got = parsed.rows.get(key)
        if got is None:
            failures.append(f"{key}: no such row in the page")
            continue
        for k, v in want.items():
            if got.get(k) != v:
                failures.append(f"{key} {k}: the page shows {got.get(k)!r}, the summaries give {v!r}")
    reason = parsed.rows.get(("nights", UNREADABLE, None), {}).get("reason", "")
    if not reason.startswith(f"{UNREADABLE}/summary.json: verify"):
        failures.append(f"the unreadable night's reason names no file relative to the page and no field: {reason!r}")
    if root in r.stdout:
        failures.append("the page shows the nightly root's path")
    if ("nights", "2026-02-30", None) in parsed.rows:
        failures.append("2026-02-30 (no day of the calendar) is shown as a night")
    if r.stdout.count("<svg") < 3:
        failures.append(f"expected a margin chart per grad dtype and the time chart, found {r.stdout.count('<svg')} svg")

    os.makedirs(artifacts, exist_ok=True)
    shot = os.path.join(artifacts, "dashboard.png")
    if os.path.exists(shot):
        os.remove(shot)
    chromium("--window-size=1280,2400", "--hide-scrollbars", f"--screenshot={shot}", "file://" + page)
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000:
        failures.append(f"no screenshot at {shot}")
    shutil.copy(page, os.path.join(artifacts, "index.html"))

for f in failures:
    print("FAIL", f)
print(f"site_test: {len(failures)} failures; screenshot {os.path.join(artifacts, 'dashboard.png')}")
sys.exit(1 if failures else 0)
