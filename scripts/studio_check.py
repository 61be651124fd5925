"""Drives `reach studio` in headless Chromium as a designer would.

    python3 scripts/studio_check.py REACH_BINARY CHROMIUM OUT_DIR

Starts `reach studio OUT_DIR/studio.toml --port 0` (a file that does not
exist yet: the studio opens its starter board) and drives Chromium over the
DevTools protocol on a pipe (`--remote-debugging-pipe`; Python's standard
library only), with real mouse input:

1. loads the page and fails on any console error or uncaught exception;
2. draws a piece by dragging down two empty cells and waits for the
   count, which must equal `reach count` of the text the page then shows;
3. types a mistake into the puzzle file and sees the error at the line
   `reach count` names for the same text;
4. plays the solution: the page's player, pressed End, shows its last move,
   and its length is `reach solve`'s;
5. runs the census, compares it with `reach census`, opens its hardest
   start as the board and checks the page's count of it against the CLI;
6. saves the file and checks it on disk;
7. checks that a request with a foreign Host or Origin is refused (403);
8. steps a twisty puzzle's solution page (`solve cube2.tws --html`) to
   its end, with its moves, God's-number table and plot;
9. pastes a twisty puzzle's `.tws` text into the studio's editor: the page
   turns to twisty puzzles (its metrics, no board), shows the God's-number
   table of `reach count --moves U,F,R` (God's number 11), solves
   a typed scramble in `reach solve`'s number of moves and plays it to the
   end; a scramble with a move the file lacks is shown as a mistake;
10. runs that puzzle's census in `<U,F,R>`, compares it and its hardest
   patterns with `reach census`, and opens the first as the file's
   `ScrambleState`: its solution takes the census's distance.
Screenshots are left in OUT_DIR (studio-*.png) for a person to look at.
"""

import base64
import http.client
import json
import os
import re
import subprocess
import sys
import time

BIN, CHROMIUM, OUT = sys.argv[1], sys.argv[2], os.path.abspath(sys.argv[3])
os.makedirs(OUT, exist_ok=True)
FILE = os.path.join(OUT, "studio.toml")
if os.path.exists(FILE):
    os.remove(FILE)
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def cli(*args, ok=True):
    run = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=300)
    if ok and run.returncode != 0:
        raise SystemExit(f"reach {' '.join(args)} failed: {run.stderr}")
    return run


def cli_json(*args):
    return json.loads(cli(*args, "--json").stdout)


def with_text(text, name):
    path = os.path.join(OUT, name)
    with open(path, "w") as f:
        f.write(text)
    return path


studio = subprocess.Popen([BIN, "studio", FILE, "--port", "0", "-j", "2"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
URL = studio.stdout.readline().strip()
PORT = int(re.search(r":(\d+)/", URL).group(1))


class Browser:
    """Chromium over the DevTools protocol on fds 3 (in) and 4 (out)."""

    def __init__(self):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--hide-scrollbars", "--force-prefers-reduced-motion", "about:blank"],
            # (The pipes are moved to fds 3 and 4 in the child; closing the
            # other fds would close those again, after preexec_fn.)
            close_fds=False, preexec_fn=fds,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next = 0
        self.events = []
        self.session = None
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ["Runtime", "Page", "Log"]:
            self.send(f"{domain}.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1500, "height": 1100, "deviceScaleFactor": 1, "mobile": False})

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                raise SystemExit("Chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None):
        self.next += 1
        msg = {"id": self.next, "method": method, "params": params or {}}
        if self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self.read()
            if reply.get("id") == self.next:
                if "error" in reply:
                    raise SystemExit(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def js(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            raise SystemExit(f"{expr}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait(self, expr, what, timeout=60):
        end = time.time() + timeout
        while time.time() < end:
            value = self.js(expr)
            if value:
                return value
            time.sleep(0.1)
        self.shot("timeout.png")
        raise SystemExit(f"timed out waiting for {what} (screenshot: timeout.png; console: {self.errors()})")

    def shot(self, name):
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(base64.b64decode(data))

    def mouse(self, kind, x, y, buttons):
        self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                               "buttons": buttons, "clickCount": 1})

    def errors(self):
        out = []
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("text", "exception") + " " + str(p["exceptionDetails"].get("exception", {}).get("description", "")))
            elif m == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append(" ".join(str(a.get("value")) for a in p.get("args", [])))
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(p["entry"].get("text", ""))
        return out


def idle(b, after=None):
    """Waits for a job newer than `after` (the last one done before an
    edit) to finish, and returns its number."""
    return b.wait(f"(() => {{ if (!document.body) return false; const d = document.body.dataset;"
                  f" return d.done && d.done === d.job && d.done !== {json.dumps(after)} && d.done; }})()",
                  "the job to finish")


def play_to_end(b, what):
    """Waits for the page's player (the solution page in its frame),
    presses End in it, and returns its counter."""
    b.wait("(() => { const d = document.getElementById('player').contentDocument;"
           " return !!(d && d.getElementById('counter')); })()", what)
    return b.js("(() => { const f = document.getElementById('player'); const d = f.contentDocument;"
                " d.dispatchEvent(new f.contentWindow.KeyboardEvent('keydown', {key: 'End', bubbles: true}));"
                " return d.getElementById('counter').textContent; })()")


def last_done(b):
    return b.js("document.body.dataset.done || null")


try:
    b = Browser()
    b.send("Page.navigate", {"url": URL})
    idle(b)
    check(b.errors() == [], f"the page loads with no console error {b.errors()}")
    text = b.js("document.getElementById('toml').value")
    want = cli_json("count", with_text(text, "start.toml"))["states"]
    check(int(b.js("document.getElementById('count').dataset.states")) == want,
          f"the first count is the CLI's ({want})")
    b.shot("studio-start.png")

    # 2. Draw a piece down the two empty cells of the second column.
    def centre(r, c):
        return b.js(f"(() => {{ const e = document.querySelector('#board .cell[data-r=\"{r}\"][data-c=\"{c}\"]');"
                    f" const q = e.getBoundingClientRect(); return [q.x + q.width / 2, q.y + q.height / 2]; }})()")
    (x0, y0), (x1, y1) = centre(1, 1), centre(2, 1)
    before = b.js("document.getElementById('toml').value")
    done = last_done(b)
    b.mouse("mousePressed", x0, y0, 1)
    b.mouse("mouseMoved", x0, (y0 + y1) / 2, 1)
    b.mouse("mouseMoved", x1, y1, 1)
    b.mouse("mouseReleased", x1, y1, 0)
    b.wait(f"document.getElementById('toml').value !== {json.dumps(before)}", "the drawn piece in the text")
    idle(b, done)
    drawn = b.js("document.getElementById('toml').value")
    check("BDCC\nBD.." in drawn, "the piece drawn is in the file's board (BDCC, BD..)")
    want = cli_json("count", with_text(drawn, "drawn.toml"))["states"]
    got = int(b.js("document.getElementById('count').dataset.states"))
    check(got == want, f"after drawing, the page's count is the CLI's ({got} = {want})")
    b.shot("studio-drawn.png")

    # 3. A mistake, at its line.
    bad = drawn.replace("goal = ", "gaol = ")
    b.js(f"(() => {{ const t = document.getElementById('toml'); t.value = {json.dumps(bad)};"
         " t.dispatchEvent(new Event('input')); })()")
    shown = b.wait("!document.getElementById('error').hidden && document.getElementById('error').textContent",
                   "the error")
    run = cli("count", with_text(bad, "bad.toml"), ok=False)
    line = re.search(r"bad\.toml:(\d+)", run.stderr)
    check(run.returncode == 2 and line is not None and shown.startswith(f"line {line.group(1)},"),
          f"the mistake is shown at the CLI's line: {shown.splitlines()[0]!r}")
    b.shot("studio-error.png")

    # 4. Back to the good text; play its solution.
    done = last_done(b)
    b.js(f"(() => {{ const t = document.getElementById('toml'); t.value = {json.dumps(drawn)};"
         " t.dispatchEvent(new Event('input')); })()")
    idle(b, done)
    length = int(b.js("document.getElementById('solution').dataset.length"))
    check(b.js("document.getElementById('error').hidden"), "the error is gone once the text is right")
    want = cli_json("solve", with_text(drawn, "drawn.toml"))["length"]
    check(length == want, f"the solution's length is the CLI's ({length} = {want})")
    counter = play_to_end(b, "the player")
    check(counter == f"move {length} / {length}", f"the player plays to the last move ({counter!r})")
    b.shot("studio-solution.png")

    # 5. The census, and its hardest start opened as the board.
    done = last_done(b)
    b.js("document.getElementById('census-run').click()")
    idle(b, done)
    summary = b.js("document.getElementById('census-summary').textContent")
    census = cli_json("census", with_text(drawn, "drawn.toml"), "--top", "5")
    check(summary.startswith(f"{census['positions']:,} positions in {census['components']:,} component"),
          f"the census is the CLI's: {summary!r}")
    b.js("document.getElementById('census-part').scrollIntoView()")
    b.shot("studio-census.png")
    done = last_done(b)
    b.js("document.querySelector('#census .open-census').click()")
    hard = census["hardest"][0]["board"]
    idle(b, done)
    check(hard in b.js("document.getElementById('toml').value"), "the hardest start is the board")
    opened = b.js("document.getElementById('toml').value")
    want = cli_json("count", with_text(opened, "opened.toml"))["states"]
    got = int(b.js("document.getElementById('count').dataset.states"))
    check(got == want, f"the hardest start opened: its count is the CLI's ({got} = {want})")
    length = int(b.js("document.getElementById('solution').dataset.length"))
    check(length == census["hardest"][0]["distance"],
          f"its solution takes the census's distance ({length} = {census['hardest'][0]['distance']})")
    b.shot("studio-opened.png")

    # 6. Save.
    b.js("document.getElementById('save').click()")
    b.wait("document.getElementById('saved').textContent", "the save")
    saved = open(FILE).read() if os.path.exists(FILE) else ""
    check(saved == opened, f"Save wrote the file ({FILE})")
    check(b.errors() == [], f"no console error all along {b.errors()}")

    # 8. A twisty puzzle's solution page (solve --html), stepped to the end.
    cube = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "cube2.tws")
    page = os.path.join(OUT, "cube2.html")
    solved = cli_json("solve", cube, "--scramble", "R U F R' U2 F'", "--html", page)
    b.send("Page.navigate", {"url": "file://" + page})
    b.wait("!!document.getElementById('counter') && document.getElementById('counter').textContent", "the twisty page")
    end = b.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'End'}));"
               " [document.getElementById('counter').textContent, document.querySelectorAll('#moves li').length,"
               " document.querySelectorAll('#table tbody tr').length, !!document.querySelector('#plot svg')]")
    n = solved["length"]
    check(end[0] == f"move {n} / {n}" and end[1] == n and end[2] >= 7 and end[3],
          f"the twisty page steps to its last move, lists its moves, its table and its plot ({end})")
    b.shot("twisty-page.png")
    check(b.errors() == [], f"no console error on the twisty page {b.errors()}")

    # 9. A twisty puzzle in the studio: its table, and a scramble solved.
    b.send("Page.navigate", {"url": URL})
    idle(b)
    tws = open(cube).read()
    done = last_done(b)
    b.js("document.getElementById('moves').value = 'U,F,R';")
    b.js(f"(() => {{ const t = document.getElementById('toml'); t.value = {json.dumps(tws)};"
         " t.dispatchEvent(new Event('input')); })()")
    idle(b, done)
    table = cli_json("count", cube, "--moves", "U,F,R")
    mode = b.js("[document.body.classList.contains('twisty'), document.getElementById('metric').value,"
                " getComputedStyle(document.getElementById('design')).display]")
    check(mode == [True, "htm", "none"], f"the page turns to a twisty puzzle: htm, no board ({mode})")
    rows = b.js("Array.from(document.querySelectorAll('#gods tbody tr')).map((r) => Number(r.cells[1].textContent.replace(/,/g, '')))")
    verdict = b.js("document.getElementById('gods-verdict').textContent")
    depth = len(table["levels"]) - 1
    check(rows == table["levels"] and f"God's number in the htm metric is {depth}" in verdict,
          f"its God's-number table is reach count's ({depth}: {verdict!r})")
    scramble = "R U F R' U2 F' R2"
    done = last_done(b)
    b.js(f"(() => {{ const s = document.getElementById('scramble'); s.value = {json.dumps(scramble)};"
         " s.dispatchEvent(new Event('input')); })()")
    idle(b, done)
    want = cli_json("solve", cube, "--moves", "U,F,R", "--scramble", scramble)["length"]
    length = int(b.js("document.getElementById('solution').dataset.length || -1"))
    check(length == want, f"the scramble's solution is reach solve's length ({length} = {want})")
    counter = play_to_end(b, "the twisty player")
    check(counter == f"move {length} / {length}", f"the twisty player plays to the last move ({counter!r})")
    b.shot("studio-twisty.png")
    b.js("(() => { const s = document.getElementById('scramble'); s.value = 'R Q';"
         " s.dispatchEvent(new Event('input')); })()")
    shown = b.wait("!document.getElementById('error').hidden && document.getElementById('error').textContent",
                   "the scramble's mistake")
    check('"Q" is not a move' in shown, f"a scramble's unknown move is shown ({shown.splitlines()[0]!r})")
    check(b.errors() == [], f"no console error on the twisty studio {b.errors()}")

    # 10. The twisty puzzle's census, and its hardest pattern opened as the
    # file's start (the scramble's mistake plays no part in a census).
    done = last_done(b)
    b.js("document.getElementById('census-run').click()")
    idle(b, done)
    summary = b.js("document.getElementById('census-summary').textContent")
    census = cli_json("census", cube, "--moves", "U,F,R", "--top", "5")
    check(summary.startswith(f"{census['positions']:,} positions in {census['components']:,} component"),
          f"the twisty census is the CLI's: {summary!r}")
    shown = b.js("Array.from(document.querySelectorAll('#census pre')).map((p) => p.textContent)")
    check(shown == [h["board"] for h in census["hardest"]],
          f"its hardest patterns are the CLI's ({len(shown)} of {len(census['hardest'])})")
    b.js("document.getElementById('census-part').scrollIntoView()")
    b.shot("studio-twisty-census.png")
    done = last_done(b)
    b.js("document.querySelector('#census .open-census').click()")
    idle(b, done)
    opened = b.js("document.getElementById('toml').value")
    check(f"ScrambleState hardest\n{census['hardest'][0]['board']}End" in opened,
          "the hardest pattern is the file's start")
    length = int(b.js("document.getElementById('solution').dataset.length || -1"))
    check(length == census["hardest"][0]["distance"],
          f"its solution takes the census's distance ({length} = {census['hardest'][0]['distance']})")
    b.shot("studio-twisty-opened.png")
    check(b.errors() == [], f"no console error on the twisty census {b.errors()}")
    b.proc.kill()

    # 7. Other hosts and origins are refused.
    for headers, what in [({"Host": "evil.example"}, "a foreign Host"),
                          ({"Host": f"127.0.0.1:{PORT}", "Origin": "http://evil.example"}, "a foreign Origin")]:
        conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
        conn.request("POST", "/api/jobs", body='{"kind":"analyze","text":""}', headers=headers)
        check(conn.getresponse().status == 403, f"a request with {what} is refused")
    conn = http.client.HTTPConnection("127.0.0.1", PORT, timeout=10)
    conn.request("GET", "/", headers={"Host": f"localhost:{PORT}"})
    check(conn.getresponse().status == 200, "its own host by name is served")
finally:
    studio.kill()

if failures:
    print(f"{len(failures)} check(s) failed")
    sys.exit(1)
print(f"studio check passed; screenshots in {OUT}")
