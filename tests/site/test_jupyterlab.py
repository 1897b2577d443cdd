"""A learner's walk through the chapters in JupyterLab (with jupyterlab-myst), in headless Chromium.

Starts a real JupyterLab server on localhost, as ``./dev.sh lab`` does, opens every
chapter in Chromium with the network cut off (only localhost answers), and checks
what the learner sees: MyST markup rendered (no raw ``{note}``, ``{doc}``,
``{literalinclude}``, exercise or solution fences), nnref's listings shown by
``show_source`` with their file and lines, and the graphs as pictures.  (That jupyterlab-myst is enabled shows in the rendering: a
JupyterLab that refuses it leaves the MyST markup raw.)
Screenshots of each chapter are kept in ``_build/screenshots/jupyterlab/``.
"""
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from browser import Chromium, find_chromium

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
CHAPTERS = sorted(BOOK.glob("[0-9][0-9]_*.ipynb")) + [BOOK / "source_map.ipynb"]
SHOTS = ROOT / "_build" / "screenshots" / "jupyterlab"
# Directive and role markup that shows when a front end does not understand MyST.
RAW_MYST = re.compile(r"```|:::|\{(literalinclude|note|important|warning|doc|ref|term|exercise[\w-]*|"
                      r"solution[\w-]*|math|eval)\}|^:label:|^:class: dropdown", re.M)
# Lab settings a learner's first start would not change: every cell rendered (not only
# those scrolled into view) and no news or update check over the network.
LISTING = ("[...document.querySelectorAll('.jp-OutputArea-output')]"
           ".find(e => e.querySelector('.nnref-source'))")
SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings":
        {"fetchNews": "false", "checkForUpdates": False},
}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    try:
        import jupyterlab  # noqa: F401
        import jupyterlab_myst  # noqa: F401
    except ImportError as err:
        pytest.fail(f"{err.name} is missing: ./dev.sh lab (or ./dev.sh test) installs requirements-lab.txt")
    if find_chromium() is None:
        pytest.fail("Chromium is required (./dev.sh test installs Debian's chromium package)")
    home = tmp_path_factory.mktemp("lab")
    for name, values in SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values))
    token, port = secrets.token_hex(16), _free_port()
    env = dict(os.environ, JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # Trusted as ./dev.sh lab trusts them: the stored SVG graphs show without re-running.
    subprocess.run([sys.executable, "-m", "nbformat.sign", *map(str, CHAPTERS)], env=env, check=True,
                   capture_output=True)
    log = open(home / "server.log", "w")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
         "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}",
         f"--LabApp.user_settings_dir={home / 'settings'}", f"--LabApp.workspaces_dir={home / 'workspaces'}"],
        env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"JupyterLab did not start:\n{(home / 'server.log').read_text()[-3000:]}")
                time.sleep(0.5)
        with Chromium(width=1280, height=900, offline=True) as browser:
            yield browser, base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_reads_as_on_the_site(lab, chapter):
    browser, base, token = lab
    notebook = json.loads(chapter.read_text())
    markdown_cells = sum(c["cell_type"] == "markdown" for c in notebook["cells"])
    browser.open(f"{base}/lab/tree/book/{chapter.name}?token={token}&reset")
    # A rendered markdown cell hides its editor, so its innerText is what the learner reads;
    # jupyterlab-myst fills it in after the cell is marked rendered (no cell of the book is empty).
    rendered = ("[...document.querySelectorAll('.jp-MarkdownCell.jp-mod-rendered')]"
                ".filter(c => c.innerText.trim())")
    assert browser.wait_for(f"{rendered}.length >= {markdown_cells}", timeout=180), (
        f"{chapter.name}: the markdown cells did not render")
    time.sleep(1)  # math and highlighting finish after the cells appear
    texts = browser.evaluate(f"{rendered}.map(c => c.innerText)")
    raw = [(m.group(0), t[max(0, m.start() - 60):m.end() + 60]) for t in texts for m in RAW_MYST.finditer(t)]

    # The top of the chapter, and the first listing with the text around it.
    browser.screenshot(SHOTS / f"{chapter.stem}.png", full_page=False)
    if browser.evaluate(f"{LISTING} !== undefined"):
        browser.evaluate(f"{LISTING}.scrollIntoView({{block: 'center'}})")
        time.sleep(0.5)
        browser.screenshot(SHOTS / f"{chapter.stem}-listing.png", full_page=False)

    assert len(texts) == markdown_cells
    assert not raw, f"{chapter.name}: raw MyST markup visible in JupyterLab: {raw[:5]}"
    outputs = browser.text()
    listings = [c for c in notebook["cells"] if "show_source(" in "".join(c["source"])]
    shown = re.findall(r"nnref/[\w/]+\.py, lines \d+\u2013\d+", outputs)
    assert len(shown) >= len(listings), f"{chapter.name}: {len(listings)} listings, {len(shown)} shown"
    if any("image/svg+xml" in o.get("data", {}) for c in notebook["cells"] for o in c.get("outputs", [])):
        svgs = browser.evaluate("document.querySelectorAll('.jp-RenderedSVG svg, .jp-RenderedSVG img').length")
        assert svgs, f"{chapter.name}: the stored graphs are not shown"
    assert not browser.blocked, f"{chapter.name} asked the network for {browser.blocked[:3]}"


@pytest.fixture(autouse=True)
def _shut_down_kernels(request):
    """Opening a chapter starts its kernel; stop it afterwards so kernels do not pile up."""
    yield
    if "lab" not in request.fixturenames:
        return
    _, base, token = request.getfixturevalue("lab")
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as reply:
        sessions = json.load(reply)
    for session in sessions:
        urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/sessions/{session['id']}?token={token}", method="DELETE"), timeout=30)
