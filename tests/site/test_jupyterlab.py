"""A learner's walk through the chapters in JupyterLab (with jupyterlab-myst), in headless Chromium.

Starts a real JupyterLab server on localhost as ``./dev.sh lab`` starts it (its settings
from ``lab/overrides.json``: the news pop-up off; everything else the defaults a learner
has, the windowed notebook and lazy rendering of cells included), opens every chapter in
Chromium with the network cut off (only localhost answers), reads it from top to bottom,
each cell scrolled into view as a reader scrolls to it, and fails when the page is broken:

- MyST markup left raw (``{note}``, fences, ``:label:``), MyST error nodes (a formula
  KaTeX cannot typeset, an unknown directive or role);
- a console error or warning (webpack's "Unsatisfied version" when an extension does not get
  the version of a shared package it was built for, among others), an uncaught exception, a
  request that failed or was answered >= 400, a request that left the machine;
- the chapter opening with unsaved changes, or differing by one byte from the committed
  file after JupyterLab saved it and closed it (kernel metadata, serialisation);
- a link between chapters that does not open its target, or whose text is not the target's
  title (links are written ``[Title](NN_name.ipynb)``; the site resolves the same link);
- nnref's listings (``show_source``) or the stored graphs not shown.

Screenshots are kept in ``_build/screenshots/jupyterlab/``.  A fast test checks, without a
browser, that the pinned JupyterLab provides the versions jupyterlab-myst's build asks for.
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
# A markdown link to another page of the book, as jupyterlab-myst renders it, and as written.
BOOK_LINK = re.compile(r"^book/[\w/]+\.(ipynb|md)$")
WRITTEN_LINK = re.compile(r"\]\(([\w/]+\.(?:ipynb|md))\)")
# A rendered link to the file at a path, in the chapter's panel.
LINK = ("[...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .myst a[href]')]"
        ".find(a => decodeURIComponent(new URL(a.href).pathname).endsWith('/files/' + {}))")

# The walk through the open notebook, as a reader scrolls it: each cell in order is brought
# into view when the browser has not drawn it yet (JupyterLab's default windowing,
# 'contentVisibility', lets the browser skip the cells away from the viewport, and
# jupyterlab-myst renders markdown lazily), then read as the learner sees it once drawn.
# A cell is drawn when what the file holds shows: its stored outputs, its links resolved to
# the files they name (jupyterlab-myst resolves a relative link after it has rendered the cell).
# Returns what each cell shows, or the first cell that did not show within 30 s.
WALK = r"""(async (expected) => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  const cells = [...panel.querySelectorAll('.jp-Cell[data-windowed-list-index]')];
  // A link to a file of the checkout points at the server's /files/ (JupyterLab opens it on a click).
  const filePath = a => decodeURIComponent(new URL(a.href).pathname.match(/\/files\/(.+)$/)?.[1] ?? '');
  const look = (cell, {outputs, links: written}) => {
    if (cell.querySelector('.jp-InputPlaceholder')) {
      // Collapsed (an exercise's solution, jupyter.source_hidden): only its first line shows.
      const text = cell.querySelector('.jp-InputPlaceholder').innerText.trim();
      return text ? {kind: 'collapsed', text} : null;
    }
    if (cell.classList.contains('jp-MarkdownCell')) {
      // Rendered: the editor hidden, jupyterlab-myst's output filled in.
      const text = cell.querySelector('.myst')?.innerText.trim();
      if (!cell.querySelector('.jp-InputArea-editor.lm-mod-hidden') || !text) return null;
      const links = [...cell.querySelectorAll('.myst a[href]')].map(a => (
        {text: a.innerText.trim(), path: filePath(a)}));
      if (!written.every(path => links.some(link => link.path === path))) return null;
      return {kind: 'markdown', text, links,
              errors: [...cell.querySelectorAll(%(errors)s)].map(e => e.title || e.innerText)};
    }
    // A code cell is drawn when its prompt shows.
    if (!cell.querySelector('.jp-InputPrompt')?.innerText.trim()) return null;
    if (outputs && !cell.querySelector('.jp-OutputArea-output')) return null;
    return {kind: 'code', text: cell.querySelector('.jp-OutputArea')?.innerText || '',
            svgs: cell.querySelectorAll('.jp-RenderedSVG svg, .jp-RenderedSVG img').length};
  };
  const frame = () => new Promise(resolve => requestAnimationFrame(resolve));
  const seen = [];
  for (const [index, cell] of cells.entries()) {
    let now = look(cell, expected[index]);
    if (now === null) {
      cell.scrollIntoView({block: 'start'});
      const deadline = performance.now() + 30000;
      while ((now = look(cell, expected[index])) === null) {
        if (performance.now() > deadline) return {stuck: index, html: cell.outerHTML.slice(0, 300)};
        await frame();
      }
    }
    seen.push(now);
  }
  return {seen};
})""" % {"errors": json.dumps(ERROR_NODES)}
CELLS = "document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell[data-windowed-list-index]')"
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


# JupyterLab's warning that a plugin took over 5 s to start: it says how loaded the machine was
# (CI's three test runs share two cores), not that anything is broken.
SLOW_PLUGIN = re.compile(r"^Plugin \S+ \(with \d+ dependants\) took [\d.]+ms to activate\.$")


def _problems(events):
    """Console errors and warnings, uncaught exceptions and failed requests among the DevTools
    events (not the warning of a plugin slow to start: SLOW_PLUGIN)."""
    found = []
    for event in events:
        method, p = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and p["type"] in ("error", "assert", "warning"):
            text = " ".join(str(a.get("value", a.get("description", ""))) for a in p["args"])[:300]
            if p["type"] == "warning" and SLOW_PLUGIN.match(text):
                continue
            found.append(f"console {p['type']}: {text}")
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


def _written_links(cell):
    """The pages of the book a markdown cell shows links to, as paths from the repository's root
    (a collapsed cell shows only its first line)."""
    if cell["cell_type"] != "markdown" or cell["metadata"].get("jupyter", {}).get("source_hidden"):
        return []
    return sorted({f"book/{target}" for target in WRITTEN_LINK.findall("".join(cell["source"]))})


def _walk(browser, path, notebook):
    """Read the open notebook from top to bottom; each cell as it was seen, in order."""
    cells = notebook["cells"]
    # JupyterLab attaches the cells in idle time after opening: all of them before reading.
    assert browser.wait_for(f"{CELLS}.length === {len(cells)}", timeout=120), (
        f"{path}: {browser.evaluate(f'{CELLS}.length')} of {len(cells)} cells attached")
    hidden = [c["metadata"].get("jupyter", {}).get("outputs_hidden") for c in cells]
    expected = [{"outputs": 0 if hide else len(c.get("outputs", [])), "links": _written_links(c)}
                for c, hide in zip(cells, hidden)]
    walked = browser.evaluate(f"{WALK}({json.dumps(expected)})", timeout=300)
    assert "stuck" not in walked, f"{path}: cell {walked.get('stuck')} did not show: {walked.get('html')}"
    return walked["seen"]


def _wait_for_idle_kernel(base, token, path, timeout):
    """Wait until the kernel of the notebook at path is idle; return whether it became so."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{base}/api/sessions?token={token}", timeout=10) as reply:
            if [s["kernel"]["execution_state"] for s in json.load(reply) if s["path"] == path] == ["idle"]:
                return True
        time.sleep(0.25)
    return False


def _click(browser, element):
    """A real mouse click (pressed and released) in the middle of an element (of its first
    line: the middle of a link that wraps can be the text beside it)."""
    x, y = browser.evaluate(f"(e => {{ const r = e.getClientRects()[0]; "
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
    seen = _walk(browser, path, notebook)
    # The end of the chapter: its last cell at the bottom of the window (the scroll-past-end
    # space below it left out).
    browser.evaluate(f"[...{CELLS}].at(-1).scrollIntoView({{block: 'end'}}); "
                     "new Promise(resolve => requestAnimationFrame(() => requestAnimationFrame(resolve)))")
    browser.screenshot(SHOTS / f"{chapter.stem}-end.png", full_page=False)

    markdown = [c for c in seen if c["kind"] == "markdown"]
    assert len(seen) == len(notebook["cells"]), f"{path}: saw {len(seen)} of {len(notebook['cells'])} cells"
    raw = [(m.group(0), c["text"][max(0, m.start() - 60):m.end() + 60])
           for c in markdown for m in RAW_MYST.finditer(c["text"])]
    assert not raw, f"{path}: raw MyST markup visible in JupyterLab: {raw[:5]}"
    errors = [e for c in markdown for e in c["errors"]] + [
        m.group(0) for c in markdown for m in MYST_ERRORS.finditer(c["text"])]
    assert not errors, f"{path}: jupyterlab-myst could not render: {errors[:5]}"
    outputs = "\n".join(c["text"] for c in seen if c["kind"] == "code")
    listings = [c for c in notebook["cells"] if "show_source(" in "".join(c["source"])]
    shown = re.findall(r"nnref/[\w/]+\.py, lines \d+\u2013\d+", outputs)
    assert len(shown) >= len(listings), f"{path}: {len(listings)} listings, {len(shown)} shown"
    if any("image/svg+xml" in o.get("data", {}) for c in notebook["cells"] for o in c.get("outputs", [])):
        assert sum(c.get("svgs", 0) for c in seen), f"{path}: the stored graphs are not shown"
    assert not browser.evaluate(f"{TAB.format(json.dumps('Path: ' + path))}.classList.contains('jp-mod-dirty')"), (
        f"{path} opened with unsaved changes (JupyterLab would autosave them into the checkout)")

    # Every link to another page of the book opens it, and reads as its title.
    links = {link["path"]: link["text"] for c in markdown for link in c["links"] if BOOK_LINK.match(link["path"])}
    written = {target for c in notebook["cells"] for target in _written_links(c)}
    assert set(links) == written, (
        f"{path}: links written {sorted(written)}, rendered as links to the files {sorted(links)}")
    wrong = {target: (text, _title(ROOT / target)) for target, text in links.items()
             if text.replace("\u00a0", " ") != _title(ROOT / target)}
    assert not wrong, f"{path}: link texts that are not their target's title: {wrong}"
    dead = []
    for order, target in enumerate(t for t in links if t not in FOLLOWED):
        FOLLOWED.add(target)
        link = LINK.format(json.dumps(target))
        browser.evaluate(f"{link}.scrollIntoView({{block: 'center'}})")
        time.sleep(0.5)
        _click(browser, link)
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

    # The chapter's kernel has answered what JupyterLab asks on a change of tab (the debugger's
    # debug_request): a notebook closed with a request unanswered makes JupyterLab throw
    # "Canceled future for debug_request".
    assert _wait_for_idle_kernel(base, token, path, timeout=60), f"{path}: its kernel still busy after 60 s"
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


# In a federated build's remoteEntry, what the extension takes from JupyterLab:
# ("default", name, eager, range[, its own copy]); webpack writes a range as how many leading
# parts of the version must match (1: ^4.5.9, 2: ~4.5.9, 4: =4.5.9), then the lowest version
# (a hole, then the prerelease: ^2.3.1-alpha.1 is [1,2,3,1,,"alpha",1]).
CONSUMES = re.compile(r'\("default","((?:@[\w.-]+/)?[\w.-]+)",!?[01],\[([^\[\]]*)\]')
# In JupyterLab's main bundle, the packages it provides: register(name, version, factory).
PROVIDES = re.compile(r'[\w$]+\("((?:@[\w.-]+/)?[\w.-]+)","(\d+\.\d+\.\d+(?:-[\w.]+)?)",')


def _semver(release, prerelease):
    """A key that orders versions as semver does: a prerelease before its release."""
    return (tuple(release), not prerelease, tuple((isinstance(p, str), p) for p in prerelease))


def _unsatisfied(main_js, remote_entry):
    """The packages an extension takes from JupyterLab at a version JupyterLab does not provide,
    as webpack warns of them ("Unsatisfied version ... of shared singleton module ...")."""
    provided = dict(PROVIDES.findall(main_js))
    consumed = CONSUMES.findall(remote_entry)
    assert consumed, "no shared package found in the extension's remoteEntry (webpack's format changed?)"
    wrong = []
    for name, encoded in consumed:
        if name not in provided:
            continue  # not JupyterLab's: the extension brings its own copy
        fixed, *items = [json.loads(item) if item else None for item in encoded.split(",")]
        release = items[:items.index(None)] if None in items else items
        prerelease = items[len(release) + 1:]
        version, _, pre = provided[name].partition("-")
        have = [int(part) for part in version.split(".")]
        have_pre = [int(p) if p.isdigit() else p for p in pre.split(".")] if pre else []
        matches = have[:fixed] == release[:fixed] and (fixed <= len(release) or have_pre == prerelease)
        if not (matches and _semver(have, have_pre) >= _semver(release, prerelease)):
            operator = {1: "^", 2: "~"}.get(fixed, "=")
            wanted = ".".join(map(str, release)) + ("-" + ".".join(map(str, prerelease)) if prerelease else "")
            wrong.append(f"{name} {provided[name]} (required {operator}{wanted})")
    return wrong


def _installed_lab():
    """JupyterLab's main bundle and jupyterlab-myst's remoteEntry, as the lab server loads them."""
    from jupyter_core.paths import jupyter_path
    from jupyterlab.commands import get_app_dir
    (main_js,) = Path(get_app_dir(), "static").glob("main.*.js")
    entries = [e for folder in jupyter_path("labextensions")
               for e in sorted(Path(folder, "jupyterlab-myst", "static").glob("remoteEntry.*.js"))]
    assert entries, "jupyterlab-myst is not installed: ./dev.sh lab installs requirements-lab.txt"
    return main_js.read_text(encoding="utf-8"), entries[0].read_text(encoding="utf-8")


def test_jupyterlab_provides_the_versions_jupyterlab_myst_was_built_for():
    """requirements-lab.txt pins a JupyterLab that gives jupyterlab-myst the versions of its
    packages that its build asks for (an older one loads it with "Unsatisfied version" console
    warnings and runs it against packages it was not built for); what is installed is the pin."""
    import importlib.metadata
    pins = dict(line.split("==") for line in (ROOT / "requirements-lab.txt").read_text().splitlines()
                if line and not line.startswith("#"))
    installed = {name: importlib.metadata.version(name) for name in pins}
    assert installed == pins, f"installed {installed}, requirements-lab.txt pins {pins}: ./dev.sh lab installs them"
    main_js, remote_entry = _installed_lab()
    assert not _unsatisfied(main_js, remote_entry), (
        f"JupyterLab {pins['jupyterlab']} does not provide what jupyterlab-myst {pins['jupyterlab-myst']} "
        f"asks for: {_unsatisfied(main_js, remote_entry)}")
    # The check reads the versions: the same JupyterLab said to provide 4.4's notebook fails it.
    older = re.sub(r'("@jupyterlab/notebook",)"[^"]+"', r'\1"4.4.10"', main_js)
    assert _unsatisfied(older, remote_entry) == ["@jupyterlab/notebook 4.4.10 (required ^4.5.9)"]


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


def test_only_a_slow_plugin_warning_is_left_out():
    """A loaded machine's "took ms to activate" is not a problem; every other console warning is."""
    def warning(text):
        return {"method": "Runtime.consoleAPICalled", "params": {"type": "warning", "args": [{"value": text}]}}
    slow = "Plugin @jupyterlab/filebrowser-extension:widget (with 0 dependants) took 5117.70ms to activate."
    unsatisfied = "Unsatisfied version 4.4.10 from @jupyterlab/application-top of shared singleton module @jupyterlab/notebook"
    assert _problems([warning(slow), warning(unsatisfied)]) == [f"console warning: {unsatisfied}"]
    assert _problems([{"method": "Runtime.consoleAPICalled",
                       "params": {"type": "error", "args": [{"value": slow}]}}]) == [f"console error: {slow}"]
