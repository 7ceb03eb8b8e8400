#!/usr/bin/env python3
"""`irc render` and `irc diff --render` on every shared and zoo model, and the HTML page in a
real browser.

Cases, each reported on its own line, per model <m> of ../shared/models and ../shared/models/zoo
(with the input overrides models.json gives, when it gives some):

  svg_<m>:   `irc render M -o M.svg`: the SVG parses as XML; its `layer` elements (top level and
             every If/Loop/TensorIterator body, recursively; small constants are nested in their
             reader's box) account for every layer of the file exactly once (a box standing for
             several layers lists them in data-ids: a constant subgraph, or a collapsed block
             with data-count >= 2 repetitions); every `<title>`
             starts with the name of the layer (data-id) it draws; every edge's label is the
             producer port's element type and shape as OpenVINO infers them (read_model +
             reshape), for edges whose producer has a unique friendly name.
  none_<m>:  `--collapse none`: no block, and every layer computed at run time (depending on a
             Parameter or ReadValue) has a box of its own.
  html_<m>:  `-o M.html`: one self-contained page (no script, style, font or image by URL), the
             same SVG inside, the details JSON parses with one entry per box.
  diff_<m>:  `irc fold M -o F`; `irc diff M F --render D.svg` exits as `irc diff` (1), and the
             boxes marked added / removed / changed are exactly the layers `irc diff --format
             json` lists as added / removed / changed (by name and op, every graph).

Once, on ir-samples/models/silero_seq.xml (needs no ../shared):

  browser:   headless Chromium (/usr/bin/chromium, driven by Playwright) opens the HTML page from
             disk, types a layer's name in the search box, presses Enter, clicks the highlighted
             box; the details panel shows that layer; a screenshot is compared with
             tests/render/browser.png (at most 2% of pixels differ by more than 48 levels);
             on ir-samples/render/residual_stack.xml the collapsed block (x32) is found,
             clicked, and "show one repetition" draws its four run-time layers.
             `--update-screenshot` rewrites the reference.

Usage:  python tests/ov/render.py [-k SUBSTRING] [--update-screenshot]
Env:    IRC_BIN, IRC_SHARED_MODELS, IRC_ZOO as the other suites; IRC_CHROMIUM (default
        /usr/bin/chromium).
Output: `PASS name` / `FAIL name: reason` per case, then `N passed, M failed`.
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

import openvino as ov

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import model_set, parse_override, report  # noqa: E402

try:
    import openvino_tokenizers  # noqa: F401  (registers the extension ops)
except Exception:  # pragma: no cover
    pass

_REPO = Path(__file__).resolve().parents[2]
IRC_BIN = os.environ.get("IRC_BIN", str(_REPO / "target" / "release" / "irc"))
CHROMIUM = os.environ.get("IRC_CHROMIUM", "/usr/bin/chromium")
REF_PNG = _REPO / "tests" / "render" / "browser.png"
CORE = ov.Core()
SVG = "{http://www.w3.org/2000/svg}"


def irc(*args):
    r = subprocess.run([IRC_BIN, *map(str, args)], capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def classes(e):
    return (e.get("class") or "").split()


# ---------------------------------------------------------------------------------------------
# The model file: layers per graph, with their ids, names, types and body graphs.

def graph_of(layers_el, edges_el):
    """{id: (name, type, element)} and edges [(from_id, from_port, to_id, to_port)]."""
    layers = {}
    for l in layers_el.findall("layer"):
        layers[l.get("id")] = (l.get("name"), l.get("type"), l)
    edges = []
    if edges_el is not None:
        for e in edges_el.findall("edge"):
            edges.append((e.get("from-layer"), e.get("from-port"), e.get("to-layer"), e.get("to-port")))
    return layers, edges


def bodies_of(layer_el):
    """The body graphs of a layer, in file order: [(tag, layers_el, edges_el)]."""
    out = []
    for child in layer_el:
        if child.find("layers") is not None and child.tag in ("body", "then_body", "else_body"):
            out.append((child.tag, child.find("layers"), child.find("edges")))
    return out


# ---------------------------------------------------------------------------------------------
# The SVG: layer boxes per graph.

def svg_graph(graph_el):
    """The boxes of one drawn graph (the `g.layers` group's children) and its edges."""
    layers = edges = None
    for ch in graph_el:
        if ch.tag == SVG + "g" and "layers" in classes(ch):
            layers = ch
        if ch.tag == SVG + "g" and "edges" in classes(ch):
            edges = ch
    boxes = [b for b in (layers if layers is not None else []) if "layer" in classes(b)]
    return boxes, (list(edges) if edges is not None else [])


def title(box):
    t = box.find(SVG + "title")
    return (t.text or "") if t is not None else ""


def body_graphs(box):
    """The drawn bodies inside a box: [(tag, inner graph element)]."""
    out = []
    for ch in box:
        if ch.tag == SVG + "g" and "body" in classes(ch):
            inner = [x for x in ch if x.tag == SVG + "g"]
            out.append((ch.get("data-tag"), inner[0] if inner else ch))
    return out


def check_cover(file_layers_el, file_edges_el, graph_el, where, bad, stats):
    """Every layer of the file's graph drawn exactly once; bodies recursively."""
    layers, _ = graph_of(file_layers_el, file_edges_el)
    boxes, _ = svg_graph(graph_el)
    # Small constants are drawn inside their reader's box, as boxes of their own.
    boxes = boxes + [c for b in boxes for c in b if c.tag == SVG + "g" and "layer" in classes(c)]
    seen = collections.Counter()
    for b in boxes:
        ids = (b.get("data-ids") or b.get("data-id") or "").split()
        if "removed" in classes(b):
            continue
        for i in ids:
            seen[i] += 1
        first = title(b).split("\n")[0]
        lid = b.get("data-id")
        if "block" in classes(b):
            stats["blocks"] += 1
            cnt = int(b.get("data-count", "0"))
            if cnt < 2 and "unchanged" not in classes(b):
                bad.append("%s: block %s has data-count %s" % (where, lid, cnt))
        if lid not in layers:
            bad.append("%s: box data-id %s is no layer of the file" % (where, lid))
        elif first != layers[lid][0]:
            bad.append("%s: box %s titled %r, its layer is named %r" % (where, lid, first, layers[lid][0]))
        elif "block" not in classes(b) and b.get("data-type") != layers[lid][1]:
            bad.append("%s: box %s data-type %s, layer type %s" % (where, lid, b.get("data-type"), layers[lid][1]))
        # Bodies of this layer.
        drawn = body_graphs(b)
        if lid in layers and "block" not in classes(b):
            fb = bodies_of(layers[lid][2])
            if len(fb) != len(drawn):
                bad.append("%s: layer %s has %d bodies, %d drawn" % (where, lid, len(fb), len(drawn)))
            for (tag, fl, fe), (dtag, dg) in zip(fb, drawn):
                check_cover(fl, fe, dg, "%s/%s/%s" % (where, layers[lid][0], tag), bad, stats)
    missing = [i for i in layers if seen[i] == 0]
    twice = [i for i in layers if seen[i] > 1]
    extra = [i for i in seen if i not in layers]
    if missing:
        bad.append("%s: %d layers not drawn, e.g. %s" % (where, len(missing), [layers[i][0] for i in missing[:3]]))
    if twice:
        bad.append("%s: %d layers drawn twice, e.g. %s" % (where, len(twice), twice[:3]))
    if extra:
        bad.append("%s: boxes list ids that are no layers: %s" % (where, extra[:3]))
    stats["layers"] += len(layers)


def ov_ports(path, overrides):
    """friendly name -> [label per output port], from OpenVINO's own inference; names used
    twice map to None."""
    model = CORE.read_model(str(path))
    if overrides:
        model.reshape(dict(parse_override(o) for o in overrides))
    out = {}
    for op in model.get_ordered_ops():
        labels = []
        for o in op.outputs():
            ps = o.get_partial_shape()
            shape = "[...]" if ps.rank.is_dynamic else "[" + ",".join(str(d) for d in ps) + "]"
            labels.append(o.get_element_type().get_type_name() + shape)
        n = op.get_friendly_name()
        out[n] = None if n in out else labels
    return out


def top_split(s):
    """`s` split at the commas outside parentheses (an expression may hold `min(a,b)`)."""
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
            continue
        depth += ch == "("
        depth -= ch == ")"
        cur += ch
    return out + [cur]


def label_matches(text, exp):
    """A drawn label against OpenVINO's `type[dims]`: the same type and rank, static dims equal,
    a dynamic dim drawn as its interval, or as an expression (`seq`, `past+seq`) beside its
    interval when that says more than `?` (`seq:1..8`)."""
    if text == exp:
        return True
    t, e = text.split("[", 1), exp.split("[", 1)
    if len(t) != 2 or len(e) != 2 or t[0] != e[0] or e[1] == "...]":
        return False
    td, ed = top_split(t[1][:-1]), e[1][:-1].split(",")
    if len(td) != len(ed):
        return False
    for a, b in zip(td, ed):
        if b.isdigit():
            if a != b:
                return False
        elif b == "?":
            if a.isdigit():
                return False
        elif a != b and not a.endswith(":" + b):
            return False
    return True


def check_labels(path, overrides, graph_el, bad, stats):
    root = ET.parse(path).getroot()
    layers, _ = graph_of(root.find("layers"), root.find("edges"))
    want = ov_ports(path, overrides)
    _, edges = svg_graph(graph_el)
    wrong = []
    for e in edges:
        if "removed" in classes(e):
            continue
        lid, port = e.get("data-from").split(":")
        name, _, el = layers[lid]
        outs = [p.get("id") for p in (el.find("output") if el.find("output") is not None else [])]
        labels = want.get(name)
        text = e.find(SVG + "text").text or ""
        if labels is None or port not in outs:
            continue
        stats["edges"] += 1
        exp = labels[outs.index(port)]
        if not label_matches(text, exp):
            wrong.append("%s:%s drawn %s, OpenVINO %s" % (name, port, text, exp))
    if wrong:
        bad.append("%d edge labels differ from OpenVINO, e.g. %s" % (len(wrong), wrong[:3]))
    if stats["edges"] == 0 and edges:
        bad.append("no edge label could be checked")


def case_svg(path, overrides, tmp):
    out = tmp / "m.svg"
    code, _, err = irc("render", path, "-o", out, "--quiet", *sum((["--input", o] for o in overrides), []))
    if code != 0:
        return "irc render exit %d: %s" % (code, err.strip()[:300])
    svg = ET.parse(out).getroot()
    graph = [g for g in svg if g.tag == SVG + "g" and "graph" in classes(g)][0]
    root = ET.parse(path).getroot()
    bad = []
    stats = collections.Counter()
    check_cover(root.find("layers"), root.find("edges"), graph, "top", bad, stats)
    check_labels(path, overrides, graph, bad, stats)
    return bad


def runtime_ids(path):
    """Top-level layers that depend on a Parameter or ReadValue (or are one)."""
    root = ET.parse(path).getroot()
    layers, edges = graph_of(root.find("layers"), root.find("edges"))
    preds = collections.defaultdict(list)
    for f, _, t, _ in edges:
        preds[t].append(f)
    memo = {}

    def rt(i):
        if i in memo:
            return memo[i]
        memo[i] = False
        ty = layers[i][1]
        memo[i] = ty in ("Parameter", "ReadValue") or any(rt(p) for p in preds[i])
        return memo[i]
    sys.setrecursionlimit(100000)
    return {i for i in layers if rt(i)}


def case_none(path, overrides, tmp):
    out = tmp / "n.svg"
    code, _, err = irc("render", path, "-o", out, "--quiet", "--collapse", "none",
                       *sum((["--input", o] for o in overrides), []))
    if code != 0:
        return "irc render exit %d: %s" % (code, err.strip()[:300])
    svg = ET.parse(out).getroot()
    graph = [g for g in svg if g.tag == SVG + "g" and "graph" in classes(g)][0]
    boxes, _ = svg_graph(graph)
    bad = []
    if any("block" in classes(b) for b in boxes):
        bad.append("a block with --collapse none")
    own = {b.get("data-id") for b in boxes if not b.get("data-ids")}
    need = runtime_ids(path)
    lacking = sorted(need - own)
    if lacking:
        bad.append("%d run-time layers without a box of their own, e.g. %s" % (len(lacking), lacking[:3]))
    return bad


URL = re.compile(r"""(?:\bsrc\s*=|\bhref\s*=|url\(|@import|<link\b|\bfetch\(|XMLHttpRequest|https?://(?!www\.w3\.org/2000/svg))""", re.I)


def case_html(path, overrides, tmp):
    out = tmp / "m.html"
    code, _, err = irc("render", path, "-o", out, "--quiet", *sum((["--input", o] for o in overrides), []))
    if code != 0:
        return "irc render exit %d: %s" % (code, err.strip()[:300])
    text = out.read_text()
    bad = []
    m = URL.search(text)
    if m:
        bad.append("loads by URL: %r" % text[max(0, m.start() - 40):m.end() + 40])
    d = re.search(r'<script type="application/json" id="irc-data">(.*?)</script>', text, re.S)
    if not d:
        return bad + ["no details JSON"]
    data = json.loads(d.group(1))
    s = re.search(r"(<svg .*?</svg>)", text, re.S)
    if not s:
        return bad + ["no inline SVG"]
    svg = ET.fromstring(s.group(1))
    ks = [int(b.get("data-k")) for b in svg.iter(SVG + "g") if "layer" in classes(b)]
    if sorted(ks) != list(range(len(data))):
        bad.append("%d boxes, %d details entries (data-k not one per entry)" % (len(ks), len(data)))
    return bad


def marked(svg_path):
    """(added, removed, changed) Counters of (name, type) from the SVG, every graph."""
    svg = ET.parse(svg_path).getroot()
    res = {k: collections.Counter() for k in ("added", "removed", "changed")}
    for b in svg.iter(SVG + "g"):
        c = classes(b)
        if "layer" not in c:
            continue
        for k in res:
            if k in c:
                res[k][(title(b).split("\n")[0], b.get("data-type"))] += 1
    return res


def case_diff(path, overrides, tmp):
    folded = tmp / "f.xml"
    code, _, err = irc("fold", path, "-o", folded, "--quiet", *sum((["--input", o] for o in overrides), []))
    if code != 0:
        return "fold exit %d: %s" % (code, err.strip()[:200])
    code, out, err = irc("diff", path, folded, "--format", "json")
    want = json.loads(out)
    pic = tmp / "d.svg"
    code2, _, err2 = irc("diff", path, folded, "--render", pic, "--format", "json")
    bad = []
    if code2 != code:
        bad.append("diff --render exit %d, diff exit %d: %s" % (code2, code, err2[:200]))
    if not pic.exists():
        return bad + ["no picture written"]
    got = marked(pic)
    types = {}
    for l in ET.parse(folded).getroot().iter("layer"):
        types.setdefault(l.get("name"), l.get("type"))
    exp = {
        "added": collections.Counter((x["name"], x["type"]) for x in want["added"]),
        "removed": collections.Counter((x["name"], x["type"]) for x in want["removed"]),
        "changed": collections.Counter((x["name"], None) for x in want["changed"]),
    }
    got["changed"] = collections.Counter((n, None) for (n, _), c in got["changed"].items() for _ in range(c))
    for k in ("added", "removed", "changed"):
        if got[k] != exp[k]:
            extra = list((got[k] - exp[k]).elements())[:3]
            miss = list((exp[k] - got[k]).elements())[:3]
            bad.append("%s: %d marked, %d listed; extra %s, missing %s" % (k, sum(got[k].values()), sum(exp[k].values()), extra, miss))
    if sum(exp["added"].values()) + sum(exp["removed"].values()) + sum(exp["changed"].values()) == 0:
        bad.append("the fold changed nothing: the case checks nothing")
    return bad


# ---------------------------------------------------------------------------------------------
# The page in a real browser.

def png_diff(a_path, b_path):
    from PIL import Image, ImageChops
    a = Image.open(a_path).convert("RGB")
    b = Image.open(b_path).convert("RGB")
    if a.size != b.size:
        return 1.0
    d = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > 48 else 0)
    hist = d.histogram()
    return hist[255] / float(a.size[0] * a.size[1])


def case_browser(tmp, update):
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "playwright is not installed (.ci/run installs it)"
    if not Path(CHROMIUM).exists():
        return "%s not found (.ci/run installs Debian's chromium)" % CHROMIUM
    sample = _REPO / "ir-samples" / "models" / "silero_seq.xml"
    page_path = tmp / "silero.html"
    code, _, err = irc("render", sample, "--input", "input[4,576]", "-o", page_path, "--quiet")
    if code != 0:
        return "irc render exit %d: %s" % (code, err[:200])
    bad = []
    shot = tmp / "shot.png"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--font-render-hinting=none"])
        try:
            pg = b.new_page(viewport={"width": 1000, "height": 700}, device_scale_factor=1)
            requests = []
            pg.on("request", lambda r: requests.append(r.url) if not r.url.startswith(("file:", "data:", "about:")) else None)
            pg.goto(page_path.as_uri())
            pg.wait_for_function("window.ircReady === true", timeout=20000)
            pg.fill("#q", "/stft/Sqrt")
            pg.press("#q", "Enter")
            hits = pg.inner_text("#hits")
            if hits.strip() != "1 / 1":
                bad.append("search '/stft/Sqrt': %r (want '1 / 1')" % hits)
            pg.click("g.layer.cur")
            info = pg.inner_text("#info")
            if not pg.is_visible("#info") or "/stft/Sqrt" not in info or "Sqrt opset1" not in info:
                bad.append("details after the click: %r" % info[:200])
            if "f32[4,129,4]" not in info:
                bad.append("details lack the inferred output f32[4,129,4]: %r" % info[:300])
            sel = pg.eval_on_selector_all("g.layer.sel", "els => els.map(e => e.getAttribute('data-type'))")
            if sel != ["Sqrt"]:
                bad.append("selected boxes: %s" % sel)
            # A search by op type finds every layer of that type.
            pg.fill("#q", "Convolution")
            n = pg.eval_on_selector_all("g.layer.hit", "els => els.length")
            want = ET.parse(sample).getroot().find("layers").findall("layer")
            nconv = sum(1 for l in want if l.get("type") == "Convolution")
            if n != nconv:
                bad.append("search 'Convolution': %d highlighted, the model has %d" % (n, nconv))
            pg.fill("#q", "/stft/Sqrt")
            pg.press("#q", "Enter")
            pg.click("g.layer.cur")
            pg.wait_for_timeout(200)
            pg.screenshot(path=str(shot))
            # A collapsed block opens: its details, then one repetition drawn in the overlay.
            stack = _REPO / "ir-samples" / "render" / "residual_stack.xml"
            page2 = tmp / "stack.html"
            code, _, err = irc("render", stack, "-o", page2, "--quiet")
            if code != 0:
                bad.append("render residual_stack: %s" % err[:200])
            else:
                pg.goto(page2.as_uri())
                pg.wait_for_function("window.ircReady === true", timeout=20000)
                pg.fill("#q", "block")
                pg.press("#q", "Enter")
                pg.click("g.layer.block.cur")
                info = pg.inner_text("#info")
                if "\u00d7 32" not in info or "4 run-time layers" not in info:
                    bad.append("block details: %r" % info[:200])
                pg.click("#expand")
                if not pg.is_visible("#inner"):
                    bad.append("'show one repetition' showed nothing")
                types = pg.eval_on_selector_all(
                    "#inner g.layer:not(.const)", "els => els.map(e => e.getAttribute('data-type')).sort()")
                if types != ["Add", "Add", "MatMul", "ReLU"]:
                    bad.append("one repetition draws %s (want Add, Add, MatMul, ReLU)" % types)
            if requests:
                bad.append("the page requested %s" % requests[:3])
        finally:
            b.close()
    if update:
        REF_PNG.parent.mkdir(parents=True, exist_ok=True)
        REF_PNG.write_bytes(shot.read_bytes())
    elif not REF_PNG.exists():
        bad.append("no reference screenshot %s (--update-screenshot writes it)" % REF_PNG)
    else:
        frac = png_diff(shot, REF_PNG)
        if frac > 0.02:
            keep = Path(tempfile.gettempdir()) / "irc-render-browser-shot.png"
            keep.write_bytes(shot.read_bytes())
            bad.append("screenshot differs from %s in %.1f%% of pixels (kept as %s)" % (REF_PNG.name, 100 * frac, keep))
    return bad


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-k", default="")
    ap.add_argument("--update-screenshot", action="store_true")
    args = ap.parse_args()
    passed = failed = 0

    def run(name, fn):
        nonlocal passed, failed
        if args.k not in name:
            return
        try:
            with tempfile.TemporaryDirectory(prefix="irc-render-") as t:
                bad = fn(Path(t))
        except Exception as e:  # a crash is a failure of this case, not of the suite
            bad = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[:1])
        if report(name, bad, False):
            passed += 1
        else:
            failed += 1

    run("browser", lambda t: case_browser(t, args.update_screenshot))
    classic, _, models = model_set()
    if not models:
        print("render.py: model cases skipped: %s not found" % classic)
    else:
        for tag, path, ovr in models:
            run("svg_" + tag, lambda t: case_svg(path, ovr, t))
            run("none_" + tag, lambda t: case_none(path, ovr, t))
            run("html_" + tag, lambda t: case_html(path, ovr, t))
            run("diff_" + tag, lambda t: case_diff(path, ovr, t))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
