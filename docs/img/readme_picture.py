#!/usr/bin/env python3
"""Make docs/img/render.png, the README's picture: `irc render` of the zoo's Qwen2-MoE int4
model (with its static input shapes) opened in headless Chromium, the router's TopK found by the
search box and clicked. Needs ../shared, IRC_BIN (default target/release/irc), Playwright and
/usr/bin/chromium (as tests/ov/render.py).

    python docs/img/readme_picture.py
"""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import sync_playwright

REPO = Path(__file__).resolve().parents[2]
IRC = os.environ.get("IRC_BIN", str(REPO / "target" / "release" / "irc"))
MODEL = REPO.parent / "shared" / "models" / "zoo" / "qwen2moe_int4.xml"
INPUTS = ["input_ids[1,16]", "attention_mask[1,16]", "position_ids[1,16]", "beam_idx[1]"]
OUT = REPO / "docs" / "img" / "render.png"


def main():
    with tempfile.TemporaryDirectory() as t:
        page = Path(t) / "qwen2moe.html"
        args = [IRC, "render", str(MODEL), "-o", str(page)]
        for i in INPUTS:
            args += ["--input", i]
        subprocess.run(args, check=True)
        with sync_playwright() as p:
            b = p.chromium.launch(executable_path="/usr/bin/chromium", args=[
                "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--font-render-hinting=none"])
            pg = b.new_page(viewport={"width": 1280, "height": 760})
            pg.goto(page.as_uri())
            pg.wait_for_function("window.ircReady === true")
            pg.fill("#q", sys.argv[1] if len(sys.argv) > 1 else "TopK")
            pg.press("#q", "Enter")
            pg.click("g.layer.cur")
            pg.wait_for_timeout(200)
            pg.screenshot(path=str(OUT))
            b.close()
    print(OUT)


if __name__ == "__main__":
    main()
