#!/usr/bin/env python3
"""The interactive HTML export (issue 52) in a real browser: Debian's chromium, headless, driven
through the DevTools protocol on a pipe (--remote-debugging-pipe; Python's standard library
only). Each exported page is opened with the network emulated offline; the test fails on any
console error or uncaught exception, on any request other than the page's own file:// URL and
its data: images, and when a hovered cell's tooltip ("query i 'tok' → key j 'tok': weight W,
score S") disagrees with the NPY export (or generate's JSON) beyond float16 and 4 shown digits:
|shown − x| ≤ 1.1e-3·|x| + 1e-7. Labels must equal the display labels. The colours of a
screenshot's cells must equal the PNG export's cells (±10 per channel: the page and the PNG
draw the same 350-level gradient).

    html_export.py CLI OUT_DIR synthetic   the synthetic lab's heads and a lesson (中文)
    html_export.py CLI OUT_DIR smollm2     SmolLM2's model view (layer selector) and a generation

chromium missing (scripts/setup installs it): reported as skipped (the marker CTest reads), never
as passed; smollm2 without ATTNLAB_SMOLLM2_GGUF likewise. CI=true makes scripts/test fail on any
skip.
"""

import base64
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

SKIP = "ATTNLAB_TEST_SKIPPED"
TEXT = "the cat sat on the mat because it was tired"


class Failure(Exception):
    pass


# ---------------------------------------------------------------- files the CLI writes


def read_npy(path):
    """A float32 little-endian C-order .npy: (shape, flat list)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:6] != b"\x93NUMPY":
        raise Failure(f"{path}: not an NPY file")
    major = data[6]
    header_len = struct.unpack("<H" if major == 1 else "<I", data[8:10] if major == 1 else data[8:12])[0]
    start = (10 if major == 1 else 12) + header_len
    header = data[(10 if major == 1 else 12):start].decode("latin1")
    if "'<f4'" not in header or "'fortran_order': False" not in header:
        raise Failure(f"{path}: not float32 C order: {header}")
    shape = tuple(int(x) for x in re.search(r"'shape': \(([^)]*)\)", header).group(1).split(",") if x.strip())
    count = 1
    for n in shape:
        count *= n
    return shape, struct.unpack(f"<{count}f", data[start:start + 4 * count])


def read_png(data):
    """An 8-bit, non-interlaced RGB or RGBA PNG: (width, height, rows of RGB tuples)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Failure("not a PNG")
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or colour not in (2, 6) or interlace:
                raise Failure(f"PNG kind not read here: depth {depth}, colour {colour}")
            channels = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - channels] if x >= channels else 0
            b = prev[x]
            c = prev[x - channels] if x >= channels else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[x * channels:x * channels + 3]) for x in range(width)])
        prev = line
    return width, height, rows


def cli(program, *args, expect=0):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run([program, *args], capture_output=True, text=True, env=env)
    if p.returncode != expect:
        raise Failure(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()}")
    return p


# ---------------------------------------------------------------- the browser


class Browser:
    """chromium --headless with the DevTools protocol on fds 3 (to it) and 4 (from it)."""

    def __init__(self, exe, profile):
        to_r, self.to_w = os.pipe()
        self.from_r, from_w = os.pipe()
        # The child reads commands on fd 3 and writes on fd 4.
        def fds():
            a, b = os.dup(to_r), os.dup(from_w)  # above 4: neither is overwritten by the other
            os.dup2(a, 3, inheritable=True)
            os.dup2(b, 4, inheritable=True)
        self.proc = subprocess.Popen(
            [exe, "--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
             "--no-first-run", "--no-default-browser-check", "--disable-extensions",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             "--proxy-server=127.0.0.1:9", "--force-device-scale-factor=1",
             f"--user-data-dir={profile}", "--window-size=1280,900", "about:blank"],
            pass_fds=(3, 4), preexec_fn=fds, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL)
        os.close(to_r)
        os.close(from_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_w, json.dumps(msg).encode() + b"\0")
        while True:
            m = self.read()
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise Failure(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def read(self):
        while b"\0" not in self.buf:
            chunk = os.read(self.from_r, 1 << 20)
            if not chunk:
                raise Failure("chromium closed the pipe")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\0", 1)
        return json.loads(line)

    def wait_event(self, method):
        for k, e in enumerate(self.events):
            if e.get("method") == method:
                return self.events.pop(k)
        while True:
            m = self.read()
            if m.get("method") == method:
                return m
            self.events.append(m)

    def open_page(self):
        target = self.send("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        self.session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True},
                                 session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable")
        self.send("Network.emulateNetworkConditions",
                  {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})

    def navigate(self, path):
        self.events.clear()
        url = "file://" + os.path.abspath(path)
        self.send("Page.navigate", {"url": url})
        self.wait_event("Page.loadEventFired")
        self.eval("1")  # the page's script has run
        return url

    def eval(self, expression):
        r = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in r:
            raise Failure(f"{expression}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def hover(self, x, y):
        self.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        return self.eval("document.getElementById('tooltip').style.display === 'none' ? null : "
                         "document.getElementById('tooltip').textContent")

    def click(self, x, y):
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent",
                      {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def screenshot(self, path):
        data = base64.b64decode(self.send("Page.captureScreenshot", {"format": "png"})["data"])
        with open(path, "wb") as f:
            f.write(data)
        return read_png(data)

    def problems(self, url):
        """Console errors, exceptions and requests the page made since navigate()."""
        out = []
        self.eval("1")  # what the page sent before this answer has arrived
        for e in self.events:
            m, p = e.get("method"), e.get("params", {})
            if m == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                out.append("console error: " + json.dumps(p.get("args", []))[:300])
            elif m == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
                out.append("log error: " + p["entry"].get("text", "")[:300])
            elif m == "Network.requestWillBeSent":
                u = p.get("request", {}).get("url", "")
                if u != url and not u.startswith("data:"):
                    out.append("request: " + u)
        return out

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Failure:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


# ---------------------------------------------------------------- checks

TIP = re.compile(r"^\S+ (\d+) '(.*)' → \S+ (\d+) '(.*)': \S+ ([-0-9.e+]+)(?:, \S+ ([-0-9.e+]+|—))?$")


def close_enough(shown, x):
    return abs(shown - x) <= 1.1e-3 * abs(x) + 1e-7


def cell_centre(b, head, i, j):
    """The page's centre of cell (i, j) of head `head` (a canvas.map of the shown view)."""
    r = b.eval(f"(() => {{ const c = document.querySelector('canvas.map[data-head=\"{head}\"]');"
               "const r = c.getBoundingClientRect(); c.scrollIntoView({block: 'center'});"
               "const s = c.getBoundingClientRect();"
               "return [s.left, s.top, Number(c.dataset.cell)]; })()")
    x, y, cell = r
    return x + (j + 0.5) * cell, y + (i + 0.5) * cell, cell


def check_tip(b, head, i, j, labels, weight, score, what):
    x, y, _ = cell_centre(b, head, i, j)
    tip = b.hover(x, y)
    m = TIP.match(tip or "")
    if not m:
        raise Failure(f"{what}: no tooltip of a cell at ({i}, {j}) of head {head}: {tip!r}")
    qi, qt, kj, kt, w = int(m.group(1)), m.group(2), int(m.group(3)), m.group(4), float(m.group(5))
    if (qi, kj) != (i, j) or qt != labels[i] or kt != labels[j]:
        raise Failure(f"{what}: tooltip {tip!r}; expected query {i} '{labels[i]}' → key {j} '{labels[j]}'")
    if not close_enough(w, weight):
        raise Failure(f"{what}: tooltip weight {w}, the NPY's {weight} ({tip!r})")
    if score is not None and not close_enough(float(m.group(6)), score):
        raise Failure(f"{what}: tooltip score {m.group(6)}, the NPY's {score} ({tip!r})")
    print(f"{what}: {tip}  (NPY weight {weight:.6g}" + (f", score {score:.6g})" if score is not None else ")"))


def check_clean(b, url, what):
    bad = b.problems(url)
    if bad:
        raise Failure(f"{what}: " + "; ".join(bad))


def synthetic(program, out, b):
    base = ["render", "--text", TEXT, "--heads", "4", "--d-model", "64", "--causal"]
    page = os.path.join(out, "html_synthetic.html")
    p = cli(program, *base, "--out", page)
    if "MB (at most 20 MB" not in p.stderr:
        raise Failure(f"render .html did not say the file's size: {p.stderr!r}")
    cli(program, *base, "--out", os.path.join(out, "html_synthetic_w.npy"))
    cli(program, *base, "--values", "scores", "--out", os.path.join(out, "html_synthetic_s.npy"))
    png = os.path.join(out, "html_synthetic.png")
    cli(program, *base, "--out", png, "--layout-json", os.path.join(out, "html_synthetic.json"))
    labels = json.loads(cli(program, "compute", *base[1:]).stdout)["query_tokens"]
    (h, n, _), w = read_npy(os.path.join(out, "html_synthetic_w.npy"))
    _, s = read_npy(os.path.join(out, "html_synthetic_s.npy"))
    url = b.navigate(page)
    shown = b.eval("JSON.stringify([...document.querySelectorAll('.tokens li')].map(li => li.lastChild.textContent))")
    if json.loads(shown) != labels:
        raise Failure(f"synthetic: the page's token list {shown} is not the labels {labels}")
    for head, i, j in [(0, 0, 0), (1, 5, 2), (3, n - 1, n - 1), (2, n - 1, 3)]:
        k = (head * n + i) * n + j
        check_tip(b, head, i, j, labels, w[k], s[k], "synthetic")
    # A masked cell (causal: key after query) says so.
    x, y, _ = cell_centre(b, 0, 0, 3)
    if "masked" not in (b.hover(x, y) or ""):
        raise Failure("synthetic: a masked cell's tooltip does not say masked")
    # Colours: the page's cells beside the PNG's (layout JSON: map 0 = head 0).
    layout = json.load(open(os.path.join(out, "html_synthetic.json")))
    _, _, png_rows = read_png(open(png, "rb").read())
    m0 = layout["maps"][0]
    d = m0.get("drawn", m0)
    cw, ch = m0["cell_width"], m0["cell_height"]
    b.eval("window.scrollTo(0, 0)")
    _, _, shot = b.screenshot(os.path.join(out, "html_synthetic_screen.png"))
    r = b.eval("(() => { const c = document.querySelector('canvas.map[data-head=\"0\"]');"
               "const r = c.getBoundingClientRect(); return [r.left, r.top, Number(c.dataset.cell)]; })()")
    worst = 0
    for i in range(n):
        for j in range(i + 1):
            page_px = shot[int(r[1] + (i + 0.5) * r[2])][int(r[0] + (j + 0.5) * r[2])]
            png_px = png_rows[int(d["y"] + (i + 0.5) * ch)][int(d["x"] + (j + 0.5) * cw)]
            worst = max(worst, max(abs(a - c) for a, c in zip(page_px, png_px)))
    if worst > 10:
        raise Failure(f"synthetic: a cell's colour differs from the PNG's by {worst} in a channel")
    print(f"synthetic: {n * (n + 1) // 2} cells of head 0 match the PNG's colours (largest difference {worst})")
    # Click a head: it is enlarged with its tokens as text beside it; click a row: its bars.
    x, y, _ = cell_centre(b, 2, 0, 0)
    b.click(x, y)
    if b.eval("document.querySelectorAll('.big .queries span').length") != n:
        raise Failure("synthetic: clicking head 2 did not enlarge it with its query labels")
    x, y, _ = cell_centre(b, 2, 4, 1)
    check_tip(b, 2, 4, 1, labels, w[(2 * n + 4) * n + 1], s[(2 * n + 4) * n + 1], "synthetic enlarged")
    b.click(x, y)
    bars = b.eval("document.getElementById('rowbars').textContent")
    if labels[4] not in bars:
        raise Failure(f"synthetic: the row's softmax bars do not show row 4: {bars!r}")
    for scale in ("log", "relative"):
        b.eval(f"(() => {{ const s = document.getElementById('scale'); s.value = '{scale}';"
               "s.dispatchEvent(new Event('change')); })()")
    check_clean(b, url, "synthetic")
    b.screenshot(os.path.join(out, "html_synthetic_enlarged.png"))
    return os.path.getsize(page)


def lesson(program, out, b):
    page = os.path.join(out, "html_lesson.html")
    cli(program, "lesson", "export", "scale", "--html", "--lang", "zh_CN", "--out", page)
    steps = json.load(open(os.path.join(ROOT, "resources", "lessons", "scale.json")))["steps"]
    url = b.navigate(page)
    if b.eval("document.documentElement.lang") != "zh-CN":
        raise Failure("lesson: the page is not marked zh-CN")
    where = b.eval("document.getElementById('where').textContent")
    if f"共 {len(steps)} 步" not in where:
        raise Failure(f"lesson: the step line says {where!r}, not {len(steps)} steps")
    b.screenshot(os.path.join(out, "html_lesson_1.png"))
    k = 0
    while k + 1 < len(steps) and steps[k].get("view", "heads") != "heads":
        b.eval("document.getElementById('next').click()")
        k += 1
    step = steps[k]
    if not b.eval("document.querySelectorAll('canvas.map').length"):
        raise Failure(f"lesson: step {step['id']} has no interactive maps")
    b.screenshot(os.path.join(out, "html_lesson_heads.png"))
    npy = os.path.join(out, "html_lesson_w.npy")
    cli(program, "render", *step["options"], "--out", npy)
    labels = json.loads(cli(program, "compute", *step["options"]).stdout)["query_tokens"]
    (h, n, _), w = read_npy(npy)
    check_tip(b, h - 1, n - 1, 1, labels, w[((h - 1) * n + n - 1) * n + 1], None, "lesson step " + step["id"])
    while not b.eval("document.getElementById('next').disabled"):
        b.eval("document.getElementById('next').click()")
    b.screenshot(os.path.join(out, "html_lesson_last.png"))
    if not b.eval("document.querySelector('.figure img') !== null && document.querySelector('.figure img').naturalWidth > 0"):
        raise Failure("lesson: the last step's figure did not load")
    check_clean(b, url, "lesson")
    return os.path.getsize(page)


def smollm2(program, out, b, model):
    base = ["render", "--model", model, "--text", "The capital of France is Paris.", "--backend", "cpu"]
    page = os.path.join(out, "html_model.html")
    cli(program, *base, "--out", page)
    npy = os.path.join(out, "html_model_w.npy")
    cli(program, *base, "--out", npy)
    cli(program, *base, "--values", "scores", "--out", os.path.join(out, "html_model_s.npy"))
    labels = json.loads(cli(program, "compute", *base[1:]).stdout)["labels"]
    (L, h, n, _), w = read_npy(npy)
    _, s = read_npy(os.path.join(out, "html_model_s.npy"))
    url = b.navigate(page)
    for layer, head, i, j in [(0, 0, n - 1, 0), (7, 4, 3, 2), (L - 1, h - 1, n - 1, n - 2)]:
        b.eval(f"(() => {{ const s = document.getElementById('layer'); s.value = '{layer}';"
               "s.dispatchEvent(new Event('change')); })()")
        k = ((layer * h + head) * n + i) * n + j
        check_tip(b, head, i, j, labels, w[k], s[k], f"SmolLM2 layer {layer}")
    b.eval("window.scrollTo(0, 0)")
    b.screenshot(os.path.join(out, "html_model_screen.png"))
    check_clean(b, url, "SmolLM2 model view")
    size_model = os.path.getsize(page)

    page = os.path.join(out, "html_generation.html")
    gen = ["generate", "--model", model, "--text", "The capital of France is", "--max-tokens", "4",
           "--out", page]
    j = json.loads(cli(program, *gen).stdout)
    prompt = len(j["prompt_tokens"])
    url = b.navigate(page)
    # The rows: the prompt's tokens, then each generated token but the last (display labels).
    labels = j["prompt_tokens"] + [s["label"] for s in j["steps"][:-1]]
    shown = json.loads(b.eval("JSON.stringify(DATA.views[0].q)"))
    if shown != labels:
        raise Failure(f"generation: the page's labels {shown} are not {labels}")
    for k in range(len(j["steps"])):
        b.eval(f"(() => {{ const s = document.getElementById('step'); s.value = '{k}';"
               "s.dispatchEvent(new Event('input')); })()")
        row = prompt + k - 1
        step = j["steps"][k]
        top = b.eval("document.querySelector('.gen table').textContent")
        if step["top"][0]["label"] not in top:
            raise Failure(f"generation step {k}: the top-k table {top!r} lacks {step['top'][0]['label']!r}")
        for head, key in [(0, 0), (5, row)]:
            check_tip(b, head, row, key, labels, step["attention"][0][head][key], None, f"generation step {k}")
        x, y, _ = cell_centre(b, 0, row + 1, 0)
        if row + 1 < prompt + len(j["steps"]) - 1 and b.hover(x, y):
            raise Failure(f"generation step {k}: a row not yet generated has a tooltip")
    b.screenshot(os.path.join(out, "html_generation_screen.png"))
    check_clean(b, url, "generation")
    return size_model, os.path.getsize(page)


ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    program, out, kind = sys.argv[1], sys.argv[2], sys.argv[3]
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        print(f"{SKIP}: chromium is not installed (scripts/setup installs it)")
        return 0
    model = os.environ.get("ATTNLAB_SMOLLM2_GGUF")
    if kind == "smollm2" and (not model or not os.path.exists(model)):
        print(f"{SKIP}: SmolLM2 not fetched (scripts/test sets ATTNLAB_SMOLLM2_GGUF)")
        return 0
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as profile:
        b = Browser(exe, profile)
        try:
            b.open_page()
            if kind == "synthetic":
                sizes = {"synthetic": synthetic(program, out, b), "lesson": lesson(program, out, b)}
            else:
                m, g = smollm2(program, out, b, model)
                sizes = {"SmolLM2 model view": m, "generation": g}
        except Failure as e:
            print(f"FAIL: {e}")
            return 1
        finally:
            b.close()
    for name, size in sizes.items():
        print(f"{name}: {size / 1024:.0f} kB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
