"""The built website, looked at in a real headless Chromium (Debian's ``chromium``).

Checks what a reader would notice: every page of the table of contents is in
the sidebar, computation graphs arrive as SVG, no page shows a Python
traceback, the screenshots are real pictures, and, with the network cut off,
every page's formulas render (no raw TeX) and nothing is wider than the
screen at 1280 and 390 px.  Uses the site built by ``./dev.sh test``
(``_build/html``) or builds one itself.  Screenshots of every page at both
widths are kept in ``_build/screenshots/site/``.
"""
import functools
import os
import re
import shutil
import subprocess
import tempfile
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pytest
import yaml

from browser import Chromium

ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "_build" / "screenshots" / "site"
# TeX that MathJax did not typeset, as a reader would see it.
RAW_TEX = re.compile(r"\\begin\{|\\frac|\\left|\\mathbf|\$\$|\\\(|\\\[")
MATHJAX_DONE = ("!document.querySelector('.math') || (window.MathJax && MathJax.Hub && MathJax.Hub.queue"
                " && MathJax.Hub.queue.pending === 0 && !document.querySelector('.MathJax_Preview:not(:empty)')"
                " && document.querySelectorAll('.MathJax_CHTML, .MathJax_Display, mjx-container').length > 0)")
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _toc_files():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc.get("parts", [{"chapters": toc.get("chapters", [])}]):
        files += [entry["file"] for entry in part.get("chapters", [])]
    return files


def _chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.fail("Chromium is required (./dev.sh test installs Debian's chromium package)")


@pytest.fixture(scope="module")
def site():
    built = Path(os.environ.get("NNREF_SITE_DIR", ROOT / "_build" / "html"))
    if (built / "index.html").exists():
        return built
    out = Path(tempfile.mkdtemp(prefix="nnref-site-"))
    subprocess.run(["jupyter-book", "build", str(ROOT), "--path-output", str(out), "-W", "-n"],
                   check=True, capture_output=True)
    return out / "_build" / "html"


def _browse(url, *extra):
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    try:
        result = subprocess.run([_chromium(), *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
                                capture_output=True, text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return result


@functools.lru_cache(maxsize=None)
def _dom(path):
    result = _browse(path.as_uri(), "--dump-dom")
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


def _screenshot(path, png):
    result = _browse(path.as_uri(), f"--screenshot={png}", "--window-size=1280,2000")
    assert result.returncode == 0 and png.exists(), result.stderr[-2000:]
    import matplotlib.image
    pixels = matplotlib.image.imread(png)
    return pixels


class _SidebarLinks(HTMLParser):
    """Texts of the links in the left navigation."""

    def __init__(self):
        super().__init__()
        self.depth, self.inside_link, self.links = 0, False, []

    def handle_starttag(self, tag, attrs):
        classes = dict(attrs).get("class", "") or ""
        if self.depth:
            self.depth += 1
        elif tag in ("nav", "div") and "bd-docs-nav" in classes:
            self.depth = 1
        if self.depth and tag == "a":
            self.inside_link = True
            self.links.append("")

    def handle_endtag(self, tag):
        if self.depth:
            self.depth -= 1
        if tag == "a":
            self.inside_link = False

    def handle_data(self, data):
        if self.inside_link and self.depth:
            self.links[-1] = " ".join((self.links[-1] + data).split())


def _title(file):
    """The first heading of a page's source, which is what the sidebar shows."""
    source = ROOT / file
    if source.with_suffix(".ipynb").exists():
        import nbformat
        notebook = nbformat.read(source.with_suffix(".ipynb"), as_version=4)
        text = next(c.source for c in notebook.cells if c.cell_type == "markdown")
    else:
        text = source.with_suffix(".md").read_text()
    heading = re.search(r"^# (.+)$", text, re.M).group(1)
    return " ".join(re.sub(r"[`*]", "", heading).split())  # markup is not part of the link text


def test_sidebar_lists_every_chapter(site):
    parser = _SidebarLinks()
    parser.feed(_dom(site / (_toc_files()[1] + ".html")) if len(_toc_files()) > 1
                else _dom(site / (_toc_files()[0] + ".html")))
    missing = [f for f in _toc_files()[1:] if _title(f) not in parser.links]
    assert not missing, f"not in the sidebar: {missing}; sidebar has {parser.links}"


def test_no_page_shows_a_traceback(site):
    pages = [site / (f + ".html") for f in _toc_files()]
    shown = [p.name for p in pages if re.search(r"Traceback \(most recent call last\)|"
                                                  r"<span class=\"ansi-red-fg\">-{10,}", _dom(p))]
    assert not shown, f"pages showing a Python traceback: {shown}"


def test_graphs_render_as_svg(site):
    """Every chapter that draws a graph shows it as an SVG picture of Graphviz nodes."""
    chapters = [f for f in _toc_files() if (ROOT / f).with_suffix(".ipynb").exists()]
    with_graphs = [f for f in chapters if "image/svg+xml" in (ROOT / f).with_suffix(".ipynb").read_text()]
    if not with_graphs:
        pytest.skip("no chapter with a graph yet")
    for file in with_graphs:
        page = site / (file + ".html")
        dom = _dom(page)
        # Jupyter Book writes SVG outputs to files and shows them with <img src="....svg">.
        sources = re.findall(r'<img[^>]+src="([^"]+\.svg)"', dom)
        inline = re.findall(r"<svg[^>]*>.*?</svg>", dom, re.S)
        drawn = [(page.parent / src).read_text() for src in sources if (page.parent / src).exists()]
        graphs = [svg for svg in drawn + inline if 'class="node"' in svg]
        assert graphs, f"{file}: no Graphviz SVG shown (img sources: {sources[:5]})"
        assert len(drawn) == len(sources), f"{file}: an SVG the page shows is missing from the site"


def test_screenshots_of_home_and_two_chapters(site, tmp_path):
    # index.html only redirects to the root page, so the home page is the root page itself.
    pages = [site / (f + ".html") for f in _toc_files()[:3]]
    for page in pages:
        pixels = _screenshot(page, tmp_path / (page.stem + ".png"))
        assert pixels.shape[0] >= 1000 and pixels.shape[1] >= 1000
        # A blank or error page is nearly one colour; a rendered page has text and figures.
        assert float(np.std(pixels[..., :3])) > 0.05, f"{page.name} looks blank"
    keep = os.environ.get("NNREF_SCREENSHOT_DIR")
    if keep:
        shutil.copytree(tmp_path, keep, dirs_exist_ok=True)


@pytest.mark.parametrize("width", [1280, 390])
def test_every_page_offline(site, width):
    """A reader with no network at a desk (1280 px) and on a phone (390 px): the site serves
    its own MathJax, so every formula is typeset; wide tables and figures scroll inside the
    page instead of widening it."""
    problems = []
    with Chromium(width=width, height=900, offline=True) as browser:
        for file in _toc_files():
            page = site / (file + ".html")
            browser.open(page.as_uri())
            if not browser.wait_for(MATHJAX_DONE, timeout=60):
                problems.append(f"{file}: MathJax did not finish")
            text = browser.text()
            raw = sorted({m.group(0) for m in RAW_TEX.finditer(text)})
            if raw:
                problems.append(f"{file}: raw TeX visible: {raw}")
            overflow = browser.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            if overflow > 1:
                problems.append(f"{file}: the page is {overflow} px wider than the {width} px screen")
            browser.screenshot(SHOTS / str(width) / (Path(file).name + ".png"), max_height=6000)
        if browser.blocked:
            problems.append(f"pages asked the network for {sorted(set(browser.blocked))[:5]}")
    assert not problems, "\n".join(problems)


def test_glossary_marks_its_chinese_terms(site):
    """Chinese terms carry lang="zh-Hans", so browsers pick a Simplified Chinese font."""
    with Chromium(width=1280, offline=True) as browser:
        browser.open((site / "book" / "glossary.html").as_uri())
        marked = browser.evaluate("[...document.querySelectorAll('[lang=zh-Hans]')].map(e => e.textContent)")
        font = browser.evaluate("getComputedStyle(document.querySelector('[lang=zh-Hans]')).fontFamily")
        unmarked = browser.evaluate(
            "[...document.querySelectorAll('dd')].map(d => d.cloneNode(true))"
            ".map(d => { d.querySelectorAll('[lang=zh-Hans]').forEach(e => e.remove()); return d.textContent; })"
            ".filter(t => /[\\u3400-\\u9fff]/.test(t))")
    for term in ("张量", "反向传播", "有向无环图", "梯度清零", "数据并行"):
        assert term in marked
    assert "CJK SC" in font
    assert not unmarked, f"Chinese text without lang: {unmarked[:3]}"
