"""A learner's walk through the chapters in JupyterLab (with jupyterlab-myst), in headless Chromium.

Starts a real JupyterLab server on localhost as ``./dev.sh lab`` starts it (its settings
from ``lab/overrides.json``: the news pop-up off; everything else the defaults a learner
has, lazy rendering of cells included), opens every chapter in Chromium with the network
cut off (only localhost answers), scrolls it from top to bottom as a reader does, and
fails when the page is broken:

- MyST markup left raw (``{note}``, fences, ``:label:``), MyST error nodes (a formula
  KaTeX cannot typeset, an unknown directive or role);
- a console error, an uncaught exception, a request that failed or was answered >= 400,
  a request that left the machine;
- the chapter opening with unsaved changes, or differing by one byte from the committed
  file after JupyterLab saved it and closed it (kernel metadata, serialisation);
- a link between chapters that does not open its target, or whose text is not the target's
  title (links are written ``[Title](NN_name.ipynb)``; the site resolves the same link);
- nnref's listings (``show_source``) or the stored graphs not shown.

Screenshots are kept in ``_build/screenshots/jupyterlab/``.
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
CHAPTERS = sorted(BOOK.glob("[0-9]*_*.ipynb")) + [BOOK / "appendix_exact.ipynb", BOOK / "source_map.ipynb"]
SHOTS = ROOT / "_build" / "screenshots" / "jupyterlab"
# The lab's own settings, as ./dev.sh lab passes them (--LabApp.app_settings_dir).
LAB_SETTINGS = ROOT / "lab"
# Directive and role markup that shows when a front end does not understand MyST.
RAW_MYST = re.compile(r"```|:::|\{(literalinclude|note|important|warning|doc|ref|term|exercise[\w-]*|"
                      r"solution[\w-]*|math|eval)\}|^:label:|^:class: dropdown", re.M)
# What jupyterlab-myst shows where it could not render: a formula KaTeX refused (a yellow or
# red span titled with KaTeX's message), an unknown directive or role.
MYST_ERRORS = re.compile(r"Unknown (Directive|Role)|Undefined control sequence|Unexpected end of input")
ERROR_NODES = ".text-red-500, .text-yellow-600, .katex-error"
# A markdown link to another page of the book, as jupyterlab-myst renders it.
BOOK_LINK = re.compile(r"^book/[\w/]+\.(ipynb|md)$")

# Collects, for the cells attached now (lazy rendering attaches those near the viewport),
# what the learner sees; returns null while a markdown cell there has not rendered yet.
COLLECT = r"""(() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const cells = [...panel.querySelectorAll('.jp-Cell[data-windowed-list-index]')];
  const out = {};
  for (const cell of cells) {
    const index = cell.dataset.windowedListIndex;
    if (cell.querySelector('.jp-InputPlaceholder')) {
      // Collapsed (an exercise's solution, jupyter.source_hidden): only its first line shows.
      out[index] = {kind: 'collapsed', text: cell.querySelector('.jp-InputPlaceholder').innerText.trim()};
    } else if (cell.classList.contains('jp-MarkdownCell')) {
      // Rendered: the editor hidden, jupyterlab-myst's output filled in.
      const text = cell.querySelector('.myst')?.innerText.trim();
      if (!cell.querySelector('.jp-InputArea-editor.lm-mod-hidden') || !text) return null;
      const links = [...cell.querySelectorAll('a[data-commandlinker-args]')].map(a => (
        {text: a.innerText.trim(), path: JSON.parse(a.dataset.commandlinkerArgs).path}));
      out[index] = {kind: 'markdown', text, links,
                    errors: [...cell.querySelectorAll(%(errors)s)].map(e => e.title || e.innerText)};
    } else {
      out[index] = {kind: 'code', text: cell.querySelector('.jp-OutputArea')?.innerText || '',
                    svgs: cell.querySelectorAll('.jp-RenderedSVG svg, .jp-RenderedSVG img').length};
    }
  }
  return out;
})()""" % {"errors": json.dumps(ERROR_NODES)}
SCROLLER = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"
# The one setting the test changes: autosave every second instead of every 120 s, so that "left
# open past the autosave interval" takes two seconds.
AUTOSAVE_S = 1
# Link targets already opened by a click: a link is an element jupyterlab-myst renders the same way
# in every chapter, so each target is followed once per run (every link's text is still checked).
FOLLOWED = set()
TAB = "[...document.querySelectorAll('#jp-main-dock-panel .lm-TabBar-tab')].find(t => t.title.includes({}))"


def lab_command(port, token, home):
    """JupyterLab as ./dev.sh lab starts it, on a private port, user settings and workspace."""
    return [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", f"--port={port}",
            "--ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}",
            f"--LabApp.app_settings_dir={LAB_SETTINGS}",
            f"--LabApp.user_settings_dir={home / 'settings'}", f"--LabApp.workspaces_dir={home / 'workspaces'}"]


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
    docmanager = home / "settings" / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings"
    docmanager.parent.mkdir(parents=True)
    docmanager.write_text(json.dumps({"autosaveInterval": AUTOSAVE_S}))
    token, port = secrets.token_hex(16), _free_port()
    env = dict(os.environ, JUPYTER_DATA_DIR=str(home / "data"), JUPYTER_RUNTIME_DIR=str(home / "runtime"),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    # Trusted as ./dev.sh lab trusts them (a signature in JUPYTER_DATA_DIR, nothing in the files):
    # the stored SVG graphs show without re-running.
    subprocess.run([sys.executable, "-m", "nbformat.sign", *map(str, CHAPTERS)], env=env, check=True,
                   capture_output=True)
    log = open(home / "server.log", "w")
    server = subprocess.Popen(lab_command(port, token, home), env=env, stdout=log, stderr=subprocess.STDOUT)
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
            browser.call("Log.enable", session=True)
            yield browser, base, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _problems(events):
    """Console errors, uncaught exceptions and failed requests among the DevTools events."""
    found = []
    for event in events:
        method, p = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert"):
            found.append("console error: " + " ".join(str(a.get("value", a.get("description", "")))
                                                      for a in p["args"])[:300])
        elif method == "Runtime.exceptionThrown":
            details = p["exceptionDetails"]
            found.append("uncaught: " + details.get("exception", {}).get("description", details["text"])[:300])
        elif method == "Log.entryAdded" and p["entry"]["level"] == "error":
            found.append(f"browser error: {p['entry']['text'][:300]} {p['entry'].get('url', '')}")
        elif method == "Network.responseReceived" and p["response"]["status"] >= 400:
            found.append(f"HTTP {p['response']['status']}: {p['response']['url']}")
        elif method == "Network.loadingFailed" and not p.get("canceled"):
            found.append(f"request failed: {p['errorText']}")
    return found


def _title(path):
    """A page's title as the site shows it: its first heading, markup removed."""
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text())["cells"]
        text = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text()
    return re.search(r"^# (.+)$", text, re.M).group(1).replace("`", "").strip()


def _walk(browser, chapter):
    """Scroll the open notebook from top to bottom; each cell as it was seen, by index."""
    seen = {}
    for _ in range(2000):
        deadline = time.monotonic() + 60
        while (now := browser.evaluate(COLLECT)) is None:
            assert time.monotonic() < deadline, f"{chapter.name}: a markdown cell did not render"
            time.sleep(0.2)
        for index, cell in now.items():
            seen[int(index)] = cell
        at_end = browser.evaluate(f"(s => s.scrollTop + s.clientHeight >= s.scrollHeight - 2)({SCROLLER})")
        if at_end:
            return seen
        browser.evaluate(f"(s => {{ s.scrollTop += s.clientHeight * 0.7; }})({SCROLLER})")
        time.sleep(0.3)
    raise AssertionError(f"{chapter.name}: never reached the end of the notebook")


def _click(browser, element):
    """A real mouse click (pressed and released) in the middle of an element."""
    x, y = browser.evaluate(f"(e => {{ const r = e.getBoundingClientRect(); "
                            f"return [r.x + r.width / 2, r.y + r.height / 2]; }})({element})")
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", session=True, type=kind, x=x, y=y, button="left", clickCount=1)


def _close_tab(browser, path):
    _click(browser, f"{TAB.format(json.dumps('Path: ' + path))}.querySelector('.lm-TabBar-tabCloseIcon')")
    assert browser.wait_for(f"{TAB.format(json.dumps('Path: ' + path))} === undefined "
                            "|| !!document.querySelector('.jp-Dialog')", timeout=30)
    # A document with unsaved changes asks before closing: that is a failure of its own.
    assert not browser.evaluate("!!document.querySelector('.jp-Dialog')"), (
        f"{path} asked to save changes when closed")


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_chapter_in_jupyterlab(lab, chapter):
    browser, base, token = lab
    committed = chapter.read_bytes()
    notebook = json.loads(committed)
    path = f"book/{chapter.name}"
    # A workspace of its own: nothing restored from the previous chapter's tabs and sessions.
    browser.open(f"{base}/lab/workspaces/{chapter.stem}/tree/{path}?token={token}&reset")
    assert browser.wait_for(f"{TAB.format(json.dumps('Path: ' + path))} !== undefined "
                            f"&& {SCROLLER} !== null", timeout=120), f"{path} did not open"
    # The kernel is up (its metadata has reached the document) before dirtiness is judged.
    assert browser.wait_for("document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook-ExecutionIndicator')"
                            "?.getAttribute('data-status') === 'idle'", timeout=120), f"{path}: no kernel"
    seen = _walk(browser, chapter)
    browser.screenshot(SHOTS / f"{chapter.stem}-end.png", full_page=False)

    markdown = [c for c in seen.values() if c["kind"] == "markdown"]
    assert len(seen) == len(notebook["cells"]), f"{path}: saw {len(seen)} of {len(notebook['cells'])} cells"
    raw = [(m.group(0), c["text"][max(0, m.start() - 60):m.end() + 60])
           for c in markdown for m in RAW_MYST.finditer(c["text"])]
    assert not raw, f"{path}: raw MyST markup visible in JupyterLab: {raw[:5]}"
    errors = [e for c in markdown for e in c["errors"]] + [
        m.group(0) for c in markdown for m in MYST_ERRORS.finditer(c["text"])]
    assert not errors, f"{path}: jupyterlab-myst could not render: {errors[:5]}"
    outputs = "\n".join(c["text"] for c in seen.values() if c["kind"] == "code")
    listings = [c for c in notebook["cells"] if "show_source(" in "".join(c["source"])]
    shown = re.findall(r"nnref/[\w/]+\.py, lines \d+\u2013\d+", outputs)
    assert len(shown) >= len(listings), f"{path}: {len(listings)} listings, {len(shown)} shown"
    if any("image/svg+xml" in o.get("data", {}) for c in notebook["cells"] for o in c.get("outputs", [])):
        assert sum(c.get("svgs", 0) for c in seen.values()), f"{path}: the stored graphs are not shown"
    assert not browser.evaluate(f"{TAB.format(json.dumps('Path: ' + path))}.classList.contains('jp-mod-dirty')"), (
        f"{path} opened with unsaved changes (JupyterLab would autosave them into the checkout)")

    # Every link to another page of the book opens it, and reads as its title.
    links = {link["path"]: link["text"] for c in markdown for link in c["links"] if BOOK_LINK.match(link["path"])}
    wrong = {target: (text, _title(ROOT / target)) for target, text in links.items()
             if text.replace("\u00a0", " ") != _title(ROOT / target)}
    assert not wrong, f"{path}: link texts that are not their target's title: {wrong}"
    dead = []
    for order, target in enumerate(t for t in links if t not in FOLLOWED):
        FOLLOWED.add(target)
        browser.evaluate(f"{SCROLLER}.scrollTop = 0")
        _walk_to_link = (f"[...document.querySelectorAll('a[data-commandlinker-args]')].find(a => "
                         f"JSON.parse(a.dataset.commandlinkerArgs).path === {json.dumps(target)})")
        for _ in range(400):
            if browser.evaluate(f"{_walk_to_link} !== undefined"):
                break
            browser.evaluate(f"{SCROLLER}.scrollTop += {SCROLLER}.clientHeight * 0.7")
            time.sleep(0.2)
        browser.evaluate(f"{_walk_to_link}.scrollIntoView({{block: 'center'}})")
        time.sleep(0.5)
        browser.evaluate(f"{_walk_to_link}.click()")
        if not browser.wait_for(f"document.querySelector('#jp-main-dock-panel .lm-TabBar-tab.jp-mod-current')"
                                f"?.title.includes({json.dumps('Path: ' + target)})", timeout=30):
            dead.append(target)
            continue
        if order == 0:
            time.sleep(2)
            browser.screenshot(SHOTS / f"{chapter.stem}-link-followed.png", full_page=False)
        # Left open behind (closing a notebook whose kernel is still starting makes JupyterLab
        # 4.4 throw "Disposed"): back to the chapter by its tab.
        _click(browser, TAB.format(json.dumps('Path: ' + path)))
        assert browser.wait_for(f"{SCROLLER} !== null && document.querySelector('#jp-main-dock-panel "
                                f".lm-TabBar-tab.jp-mod-current')?.title.includes({json.dumps('Path: ' + path)})",
                                timeout=30)
    assert not dead, f"{path}: links that open nothing in JupyterLab: {dead}"

    # Left open past the autosave interval, then closed: the chapter is the committed file.
    time.sleep(AUTOSAVE_S * 2)
    _close_tab(browser, path)
    problems = _problems(browser.events)
    assert not problems, f"{path}: {problems[:8]}"
    assert not browser.blocked, f"{path} asked the network for {browser.blocked[:3]}"
    assert chapter.read_bytes() == committed, f"{path} changed on disk after JupyterLab opened, saved and closed it"


def test_chapters_name_the_kernel_dev_sh_installs():
    """JupyterLab writes the kernel's display name into the notebook: the committed one must
    already be the name ./dev.sh gives the venv's kernel, or reading a chapter rewrites it."""
    installed = re.search(r'ipykernel install .*--name python3 --display-name "([^"]+)"',
                          (ROOT / "dev.sh").read_text()).group(1)
    wrong = {p.name: json.loads(p.read_text())["metadata"].get("kernelspec") for p in BOOK.glob("*.ipynb")}
    wrong = {name: spec for name, spec in wrong.items()
             if spec != {"display_name": installed, "language": "python", "name": "python3"}}
    assert not wrong, f"kernelspec differs from the kernel ./dev.sh lab provides ({installed!r}): {wrong}"


def test_dev_sh_lab_uses_the_lab_settings():
    """The news pop-up is off by the lab's own settings, not by a test's: ./dev.sh lab passes
    the folder this test's server uses."""
    assert '--LabApp.app_settings_dir="$ROOT/lab"' in (ROOT / "dev.sh").read_text()
    overrides = json.loads((LAB_SETTINGS / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"


@pytest.fixture(autouse=True)
def _shut_down_kernels(request):
    """Opening a chapter starts its kernel; stop it afterwards so kernels do not pile up."""
    yield
    if "lab" not in request.fixturenames:
        return
    browser, base, token = request.getfixturevalue("lab")
    browser.open("about:blank")  # the page is gone before its sessions are
    with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as reply:
        sessions = json.load(reply)
    for session in sessions:
        urllib.request.urlopen(urllib.request.Request(
            f"{base}/api/sessions/{session['id']}?token={token}", method="DELETE"), timeout=30)
