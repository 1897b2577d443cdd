"""The built website, looked at in a real headless Chromium (Debian's ``chromium``).

Checks what a reader would notice: every page of the table of contents is in
the sidebar, computation graphs arrive as SVG, no page shows a Python
traceback, the screenshots are real pictures, and, with the network cut off,
every page's formulas render (no raw TeX) and nothing is wider than the
screen at 1280 and 390 px, every chart and diagram shows its text at 11 px or
more and no table is cut off, and no error message is shown twice in a row.
Uses the site built by ``./dev.sh test`` (``_build/html``) or builds one
itself.  Screenshots of every page at both widths are kept in
``_build/screenshots/site/``.
"""
import functools
import json
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
# MathJax 3 has typeset the page (its startup promise resolved, formulas drawn).
MATHJAX_DONE = ("(async () => { if (!document.querySelector('.math')) return true;"
                " if (!window.MathJax?.startup?.promise) return false; await MathJax.startup.promise;"
                " return document.querySelectorAll('mjx-container').length > 0; })()")
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


def _dom(site, file):
    """The page's DOM once it has loaded and run its scripts (what ``chromium --dump-dom``
    prints), as the crawl at 1280 px read it."""
    return _crawl(site, 1280)[file]["dom"]


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
    parser.feed(_dom(site, _toc_files()[1] if len(_toc_files()) > 1 else _toc_files()[0]))
    missing = [f for f in _toc_files()[1:] if _title(f) not in parser.links]
    assert not missing, f"not in the sidebar: {missing}; sidebar has {parser.links}"


def test_no_page_shows_a_traceback(site):
    shown = [f + ".html" for f in _toc_files() if re.search(r"Traceback \(most recent call last\)|"
                                                             r"<span class=\"ansi-red-fg\">-{10,}", _dom(site, f))]
    assert not shown, f"pages showing a Python traceback: {shown}"


def test_graphs_render_as_svg(site):
    """Every chapter that draws a graph shows it as an SVG picture of Graphviz nodes."""
    chapters = [f for f in _toc_files() if (ROOT / f).with_suffix(".ipynb").exists()]
    with_graphs = [f for f in chapters if "image/svg+xml" in (ROOT / f).with_suffix(".ipynb").read_text()]
    if not with_graphs:
        pytest.skip("no chapter with a graph yet")
    for file in with_graphs:
        page = site / (file + ".html")
        dom = _dom(site, file)
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
    problems, crawl = [], _crawl(site, width)
    for file in _toc_files():
        page = crawl[file]
        if not page["mathjax_done"]:
            problems.append(f"{file}: MathJax did not finish")
        raw = sorted({m.group(0) for m in RAW_TEX.finditer(page["text"])})
        if raw:
            problems.append(f"{file}: raw TeX visible: {raw}")
        if page["overflow"] > 1:
            problems.append(f"{file}: the page is {page['overflow']} px wider than the {width} px screen")
        assert page["screenshot"].exists()  # (taken by the crawl: SHOTS/<width>/<page>.png)
    if crawl.blocked:
        problems.append(f"pages asked the network for {sorted(set(crawl.blocked))[:5]}")
    assert not problems, "\n".join(problems)


def test_glossary_marks_its_chinese_terms(site):
    """Chinese terms carry lang="zh-Hans", so browsers pick a Simplified Chinese font."""
    marked, font, unmarked = _crawl(site, 1280)["book/glossary"]["glossary"]
    for term in ("张量", "反向传播", "有向无环图", "梯度清零", "数据并行"):
        assert term in marked
    assert "CJK SC" in font
    assert not unmarked, f"Chinese text without lang: {unmarked[:3]}"


# -- readable figures and tables ------------------------------------------------------------
MIN_TEXT_PX = 11
# Font sizes in points that matplotlib's names stand for, at its default font.size of 10.
MPL_NAMED_SIZES = {"xx-small": 5.79, "x-small": 6.94, "small": 8.33, "medium": 10.0,
                   "large": 12.0, "x-large": 14.4, "xx-large": 17.28, "larger": 12.0, "smaller": 8.33}
MPL_SIZE_ARGUMENT = re.compile(r"\b(?:fontsize|labelsize|size)\s*=\s*([^,)\s]+)")
# Every <text> of every SVG in the article: its font size times the scale at which the SVG is
# drawn (getScreenCTM: the viewBox, the <g transform="scale(...)"> of Graphviz, and the size
# of the <svg> or <img> on the page).  An SVG shown with <img> is measured in a copy drawn
# inline, off-screen, at the size of the <img>.
FIGURES_JS = r"""(async (svgFiles) => {
  const article = document.querySelector('.bd-article') || document.body;
  const sizes = (svg) => [...svg.querySelectorAll('text')].filter(t => t.textContent.trim()).map(t => {
    const m = t.getScreenCTM();
    return [t.textContent.trim().slice(0, 30), parseFloat(getComputedStyle(t).fontSize) * Math.sqrt(Math.abs(m.a * m.d - m.b * m.c))];
  });
  const smallest = (list) => list.reduce((a, b) => (b[1] < a[1] ? b : a), ['', Infinity]);
  const out = [];
  for (const svg of article.querySelectorAll('svg')) {
    const r = svg.getBoundingClientRect();
    if (r.width < 1 || !svg.querySelector('text')) continue;
    const [text, px] = smallest(sizes(svg));
    svg.dataset.figure = out.length;
    out.push({kind: 'inline svg', src: (svg.querySelector('title') || {}).textContent || '', width: r.width, text, px,
              selector: `[data-figure="${out.length}"]`});
  }
  for (const img of article.querySelectorAll('img')) {
    const r = img.getBoundingClientRect();
    if (!img.complete) await new Promise(ok => { img.onload = img.onerror = ok; });
    img.dataset.figure = out.length;
    const item = {kind: 'img', src: img.getAttribute('src'), width: r.width, natural: img.naturalWidth,
                  selector: `[data-figure="${out.length}"]`};
    const file = svgFiles[img.getAttribute('src')];
    if (r.width >= 1 && file) {
      const doc = new DOMParser().parseFromString(file, 'image/svg+xml');
      const svg = document.importNode(doc.documentElement, true);
      const box = document.createElement('div');
      box.style.cssText = 'position:absolute;left:-100000px;top:0';
      svg.setAttribute('width', r.width); svg.setAttribute('height', r.height);
      box.appendChild(svg); document.body.appendChild(box);
      [item.text, item.px] = smallest(sizes(svg));
      box.remove();
    }
    out.push(item);
  }
  return out;
})"""
# A table is clipped when it is wider than the room it has and neither it nor a box around
# it (up to the article) scrolls: its last columns are then cut off or drawn over the margin.
TABLES_JS = r"""(() => {
  const article = document.querySelector('.bd-article') || document.body;
  const bounds = article.getBoundingClientRect();
  const problems = [];
  for (const table of article.querySelectorAll('table')) {
    const head = (table.innerText || '').trim().split('\n')[0].slice(0, 60);
    let box = table, scrolls = false, clipped = false;
    for (; box && box !== article.parentElement; box = box.parentElement) {
      if (box.scrollWidth <= box.clientWidth + 1) continue;
      const overflow = getComputedStyle(box).overflowX;
      if (overflow === 'auto' || overflow === 'scroll') { scrolls = true; break; }
      if (overflow === 'hidden' || overflow === 'clip') { clipped = true; break; }
    }
    const r = (scrolls ? box : table).getBoundingClientRect();
    if (clipped || (!scrolls && r.right > bounds.right + 1) || r.right > window.innerWidth + 1)
      problems.push({table: head, width: table.scrollWidth, room: bounds.width,
                     right: r.right, page: window.innerWidth, clipped_by: box ? box.className || box.tagName : null});
  }
  return problems;
})()"""


def _notebook_png_sources():
    """sha256 of every PNG a chapter stores -> (chapter, the code of the cell that drew it)."""
    import base64
    import hashlib
    import nbformat
    sources = {}
    for notebook in sorted((ROOT / "book").glob("*.ipynb")):
        cells = nbformat.read(notebook, as_version=4).cells
        settings = "\n".join(c.source for c in cells if c.cell_type == "code")
        for cell in cells:
            for output in cell.get("outputs", []):
                png = output.get("data", {}).get("image/png")
                if png:
                    digest = hashlib.sha256(base64.b64decode(png)).hexdigest()
                    sources[digest] = (notebook.name, cell.source, settings)
    return sources


def _smallest_font_pt(source, settings):
    """The smallest font a matplotlib cell asks for, read from its code: matplotlib's default
    size (10 pt, the size of tick labels, axis labels and legends) and every ``fontsize=``,
    ``labelsize=`` or ``size=`` the cell passes.  None when the code hides a size from this
    reading (a variable, or rcParams changed anywhere in the chapter)."""
    import matplotlib
    if re.search(r"rcParams|\bplt\.rc\(|matplotlib\.rc\(|style\.use", settings):
        return None
    sizes = [float(matplotlib.rcParamsDefault["font.size"])]
    for value in MPL_SIZE_ARGUMENT.findall(source):
        value = value.strip("\"'")
        if re.fullmatch(r"\d+(\.\d+)?", value):
            sizes.append(float(value))
        elif value in MPL_NAMED_SIZES:
            sizes.append(MPL_NAMED_SIZES[value])
        else:
            return None
    return min(sizes)


def _png_font_px(site_page, item, notebook_pngs):
    """Rendered size in px of the smallest text of a matplotlib PNG: points x dpi / 72 x the
    scale the page draws it at.  The benchmark chart records its smallest size itself
    (bench/report.py writes it into the PNG as the text field ``nnref:min-font-pt``)."""
    from PIL import Image
    path = (site_page.parent / item["src"]).resolve()
    with Image.open(path) as image:
        info = dict(image.info)
    dpi = info.get("dpi", (72, 72))[0]
    if "nnref:min-font-pt" in info:
        points, origin = float(info["nnref:min-font-pt"]), "recorded in the PNG"
    elif path.stem in notebook_pngs:
        chapter, source, settings = notebook_pngs[path.stem]
        points, origin = _smallest_font_pt(source, settings), chapter
    else:
        return None, "no font size known"
    if points is None:
        return None, f"{origin}: font size not readable from the code"
    return points * dpi / 72 * item["width"] / item["natural"], f"{points:g} pt at {dpi:.0f} dpi ({origin})"


def _figure_text_sizes(browser, page, notebook_pngs):
    """Every figure of the page open in ``browser`` with the rendered size (px) of its smallest text."""
    sources = set(re.findall(r'<img[^>]+src="([^"]+\.svg)"', page.read_text()))
    svg_files = {src: (page.parent / src).read_text() for src in sources
                 if (page.parent / src).exists() and "_static/" not in src}
    items = browser.evaluate(f"{FIGURES_JS}({json.dumps(svg_files)})")
    figures = []
    for item in items:
        if item["kind"] == "img" and "_static/" in item["src"]:
            continue  # the theme's icons
        if item["kind"] == "img" and item["width"] < 1:
            continue  # not displayed (a folded output)
        if item["kind"] == "img" and item["src"].endswith(".png"):
            item["px"], item["text"] = _png_font_px(page, item, notebook_pngs)
        figures.append(item)
    return figures


def _clipped_tables(browser):
    return browser.evaluate(TABLES_JS)


def _element_screenshot(browser, selector, png, margin=24):
    """A PNG of one element of the page (with a margin), wherever it is on the page."""
    import base64
    box = browser.evaluate(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                           ".getBoundingClientRect(); return [r.left + scrollX, r.top + scrollY, r.width, r.height]; })()")
    x, y, w, h = box
    clip = {"x": max(0, x - margin), "y": max(0, y - margin), "width": min(w + 2 * margin, browser.width),
            "height": h + 2 * margin, "scale": 1}
    data = browser.call("Page.captureScreenshot", session=True, format="png", clip=clip,
                        captureBeyondViewport=True)["data"]
    png.parent.mkdir(parents=True, exist_ok=True)
    png.write_bytes(base64.b64decode(data))


@pytest.mark.parametrize("width", [1280, 390])
def test_figures_and_tables_are_readable(site, width):
    """Every chart and diagram shows its smallest text at 11 px or more, and no table is cut.

    The text size is measured as the reader gets it, not as the file says: for an SVG (Graphviz,
    inline or through <img>), each <text>'s font size times the scale the page draws it at;
    for a matplotlib PNG, the smallest font in points x dpi / 72 x displayed width / natural
    width (the points are recorded in the PNG by bench/report.py for the benchmark chart, and
    read from the chapter cell's code otherwise: see _smallest_font_pt).

    At 1280 px a figure wider than the text column shrinks to fit it, so each figure is drawn
    at a size where it still shows 11 px text there.  At 390 px (a phone) shrinking to the
    screen would put most diagrams at 5 to 8 px, which nobody can read without zooming, so
    _static/custom.css keeps every figure at its drawn size and lets it scroll sideways in its
    own box; the same 11 px is asserted at both widths (and test_every_page_offline checks that
    the page itself never becomes wider than the screen).

    A table wider than its column must scroll (it, or a box around it), so that no column is
    cut off or drawn over the margin; at 1280 px the benchmark's tables on the performance page
    must fit whole (its ratio, target and met columns in view).  Screenshots of each figure:
    _build/screenshots/site/readable-<width>/ (of each page: test_every_page_offline's).
    """
    problems, measured, crawl = [], 0, _crawl(site, width)
    for file in _toc_files():
        page = crawl[file]
        for figure in page["figures"]:
            measured += 1
            if figure.get("px") is None or figure["px"] < MIN_TEXT_PX:
                px = "unknown" if figure.get("px") is None else f"{figure['px']:.1f} px"
                problems.append(f"{file}: {figure['src'][-24:]} shown {figure['width']:.0f} px wide: "
                                f"smallest text {px} ({figure.get('text')})")
        for table in page["clipped_tables"]:
            problems.append(f"{file}: table cut off: {table}")
        if width == 1280 and Path(file).name == "performance" and page["wide_tables"]:
            # the benchmark's tables fit whole
            problems.append(f"{file}: tables wider than the text column, scrolled: {page['wide_tables']}")
    assert measured, "no figure found on any page"
    assert not problems, "\n".join(problems)


ERROR_LINE = re.compile(r"^\s*(?:[\w.]+\.)?\w*(?:Error|Exception|Warning|Interrupt|Exit)\b(?: \([^)]*\))?: \S.*$")


def test_each_error_message_is_shown_once(site):
    """An exception or warning appears once where it happens: no page shows the same error
    line twice in a row (a cell that prints an exception and also stores it as an error
    output, a warning printed once per call of a loop, a traceback rendered twice)."""
    problems, crawl = [], _crawl(site, 1280)
    for file in _toc_files():
        lines = [line.strip() for line in crawl[file]["text"].splitlines() if line.strip()]
        for before, after in zip(lines, lines[1:]):
            if before == after and ERROR_LINE.match(before):
                problems.append(f"{file}: {before[:100]}")
    assert not problems, "the same error shown twice in a row:\n" + "\n".join(problems)


# A link from a chapter to another page of the book, as written in its markdown cells:
# ``[Title](NN_name.ipynb)`` (which jupyterlab-myst opens too).
BOOK_LINK = re.compile(r"\[([^\]]+)\]\(([\w/]+)\.(ipynb|md)\)")


def test_links_between_chapters_lead_to_their_page(site):
    """Every link between chapters lands on the target's page and reads as its title; a link
    left behind by a renumbering (its file gone) fails here and in the JupyterLab test."""
    import nbformat
    problems, count = [], 0
    for notebook in sorted((ROOT / "book").glob("*.ipynb")):
        cells = nbformat.read(notebook, as_version=4).cells
        html = (site / "book" / (notebook.stem + ".html")).read_text()
        rendered = {href: " ".join(re.sub(r"<[^>]+>", "", text).split()) for href, text in re.findall(
            r'<a class="reference internal" href="([\w/]+\.html)"[^>]*>(.*?)</a>', html, re.S)}
        for cell in cells:
            if cell.cell_type != "markdown":
                continue
            for text, target, suffix in BOOK_LINK.findall(cell.source):
                count += 1
                source = f"book/{target}"
                if not (ROOT / f"{source}.{suffix}").exists():
                    problems.append(f"{notebook.name}: links to {target}.{suffix}, which does not exist")
                elif target + ".html" not in rendered or not (site / f"{source}.html").exists():
                    problems.append(f"{notebook.name}: the site has no link to {target}.html")
                elif rendered[target + ".html"] != _title(source):
                    problems.append(f"{notebook.name}: the link to {target} reads "
                                    f"{rendered[target + '.html']!r}, not its title {_title(source)!r}")
    assert count, "no link between chapters found"
    assert not problems, "\n".join(problems)


# Each display formula: where its box and the drawn formula sit, and its number.
DISPLAY_MATH_JS = """[...document.querySelectorAll('.bd-article div.math')].map(d => {
  const box = d.querySelector('mjx-container'), math = box?.querySelector('mjx-math');
  if (!math) return {typeset: false};
  const a = d.getBoundingClientRect(), b = box.getBoundingClientRect(),
        m = math.getBoundingClientRect(), n = d.querySelector('.eqno');
  return {typeset: true, article: [a.left, a.right], box: [b.left, b.right], math: [m.left, m.right],
          numberRight: n ? n.getBoundingClientRect().right : null,
          scrolls: ['auto', 'scroll'].includes(getComputedStyle(box).overflowX),
          number: n && n.offsetWidth ? n.innerText.trim() : null,
          numberLeft: n ? n.getBoundingClientRect().left : null};
})"""


@pytest.mark.parametrize("width", [1280, 390])
def test_site_lays_out_math_listings_and_search(site, width):
    """What the site's MathJax 3, the theme and _static/custom.css promise a reader, measured:

    - display formulas numbered, as JupyterLab numbers them, and at 1280 px centred on the line
      (within 2 px), the number at the column's right edge;
    - ``\\text{in\\_features}`` typeset as the text "in_features" (MathJax 3's textmacros),
      read back from MathJax's own MathML of every formula;
    - nnref's listings (``show_source``) fit the column: no line hidden behind a sideways scroll;
    - one search box in view.
    A screenshot of a numbered formula: _build/screenshots/site/math-<width>.png.
    """
    problems, formulas, text_escapes, listings, crawl = [], 0, 0, 0, _crawl(site, width)
    for file in _toc_files():
        page = crawl[file]
        if not page["mathjax_done"]:
            problems.append(f"{file}: MathJax did not finish")
            continue
        for math in page["display_math"]:
            formulas += 1
            if not math["typeset"]:
                problems.append(f"{file}: a display formula was not typeset")
                continue
            if not math["number"]:
                problems.append(f"{file}: a display formula without a number")
                continue
            if width != 1280:
                continue  # on a phone a wide formula scrolls, its number below it
            # As in LaTeX: the formula in the middle of the line, the number at its right edge
            # (the formula's box spans the column up to the number).
            # (A formula wider than that scrolls inside its box, under nothing.)
            middle, centre = sum(math["math"]) / 2, sum(math["box"]) / 2
            fits = math["math"][1] <= math["box"][1] + 1
            if (fits and abs(middle - centre) > 2) or abs(math["box"][0] - math["article"][0]) > 2:
                problems.append(f"{file}: display formula {math['number']} not centred: {math}")
            if (math["numberLeft"] < min(math["math"][1], math["box"][1])
                    or abs(math["numberRight"] - math["article"][1]) > 2):
                problems.append(f"{file}: the number {math['number']} is not at the column's right edge: {math}")
            if not fits and not math["scrolls"]:
                problems.append(f"{file}: display formula {math['number']} runs under its number: {math}")
        text_escapes += page["mathml"].count("<mtext>in_features</mtext>")
        if re.search(r"<mtext>[^<]*\\_", page["mathml"]):
            problems.append(f"{file}: a \\_ shown with its backslash in \\text{{}}")
        for scroll, client in page["listings"]:
            listings += 1
            if scroll > client + 1:
                problems.append(f"{file}: a listing {scroll} px wide in a {client} px column")
        if page["searches"] != 1:
            problems.append(f"{file}: {page['searches']} search boxes in view")
    assert formulas and listings, (formulas, listings)
    assert text_escapes >= 2, "\\text{in\\_features} (chapters 6 and 15) not found typeset"
    assert not problems, "\n".join(problems)


# Each solution on a chapter page: sphinx-exercise's dropdown, folded when the page opens.
SOLUTIONS = """(() => [...document.querySelectorAll('div.solution')].map(d => ({
    folded: d.classList.contains('toggle-hidden'),
    shown: [...d.querySelectorAll('pre')].filter(p => p.offsetParent !== null
                                                   && getComputedStyle(p).visibility !== 'hidden').length,
    code: [...d.querySelectorAll('pre')].map(p => p.textContent).join('\\n')})))()"""


def test_exercise_solutions_are_folded_dropdowns(site):
    """Every exercise's solution code is on the page inside its dropdown, folded: the reader
    meets the task, the learner's cell and the self-check first (book/AUTHORING.md)."""
    import nbformat
    from coursekit import notebooks
    from coursekit.markers import SOLUTION, find_regions
    chapters = [f for f in _toc_files() if re.fullmatch(r"book/\d\d_\w+", f)]
    assert chapters
    crawl = _crawl(site, 1280)
    for chapter in chapters:
        notebook = nbformat.read(ROOT / f"{chapter}.ipynb", as_version=4)
        found, _problems = notebooks.exercises(notebook)
        solutions = crawl[chapter]["solutions"]
        assert len(solutions) == len(found), f"{chapter}: {len(solutions)} solutions for {len(found)} exercises"
        for exercise, solution in zip(found, solutions):
            source = notebook.cells[exercise.code_cells[0]].source
            region = next(r for r in find_regions(source) if r.kind == SOLUTION)
            first = next(line.strip() for line in region.body(source.splitlines()) if line.strip())
            assert first in solution["code"], f"{chapter}, {exercise.label}: the solution is not in its dropdown"
            assert solution["folded"] and not solution["shown"], \
                f"{chapter}, {exercise.label}: the solution is in plain view when the page opens"


# -- one crawl per width ----------------------------------------------------------------------
GLOSSARY_JS = """[[...document.querySelectorAll('[lang=zh-Hans]')].map(e => e.textContent),
  getComputedStyle(document.querySelector('[lang=zh-Hans]')).fontFamily,
  [...document.querySelectorAll('dd')].map(d => d.cloneNode(true))
    .map(d => { d.querySelectorAll('[lang=zh-Hans]').forEach(e => e.remove()); return d.textContent; })
    .filter(t => /[\\u3400-\\u9fff]/.test(t))]"""


class _Crawl(dict):
    """``{page's file: what the tests above read on it}``, and the requests that left the machine."""
    blocked = ()


@functools.lru_cache(maxsize=None)
def _crawl(site, width):
    """Every page of the site read once at ``width`` in one offline Chromium, recording what each
    test of this file asserts on (the tests were a crawl each: eight walks through the site in
    all, 4 to 90 s apiece); the screenshots are taken on the way.  A reader's view of a page is
    its state once MathJax has finished (whether it did is recorded), so everything is read then;
    the whole-page screenshot comes last, since it resizes the window to the page's height."""
    notebook_pngs = _notebook_png_sources()
    crawl = _Crawl()
    with Chromium(width=width, height=900, offline=True) as browser:
        for file in _toc_files():
            path = site / (file + ".html")
            browser.open(path.as_uri())
            page = crawl[file] = {"mathjax_done": browser.wait_for(MATHJAX_DONE, timeout=60)}
            page["text"] = browser.text()
            page["overflow"] = browser.evaluate("document.documentElement.scrollWidth - window.innerWidth")
            page["figures"] = _figure_text_sizes(browser, path, notebook_pngs)
            page["clipped_tables"] = _clipped_tables(browser)
            page["wide_tables"] = browser.evaluate(
                "[...document.querySelectorAll('.bd-article table')]"
                ".filter(t => t.scrollWidth > t.clientWidth + 1).map(t => t.scrollWidth)")
            for i, figure in enumerate(page["figures"]):  # each figure as the reader sees it
                _element_screenshot(browser, figure["selector"],
                                    SHOTS / f"readable-{width}" / f"{Path(file).name}-figure{i + 1}.png")
            if page["mathjax_done"]:
                page["display_math"] = browser.evaluate(DISPLAY_MATH_JS)
                page["mathml"] = browser.evaluate("Array.from(window.MathJax?.startup?.document?.math || [])"
                                                  ".map(m => MathJax.startup.toMML(m.root)).join('\\n')")
                page["listings"] = browser.evaluate("[...document.querySelectorAll('.bd-article .nnref-source pre')]"
                                                    ".map(p => [p.scrollWidth, p.clientWidth])")
                page["searches"] = browser.evaluate(
                    "[...document.querySelectorAll('.search-button-field, .search-button, form.bd-search')]"
                    ".filter(e => e.offsetWidth > 0 && e.offsetHeight > 0).length")
                if page["display_math"] and not (SHOTS / f"math-{width}.png").exists() and browser.evaluate(
                        "!!document.querySelector('.bd-article div.math .eqno')"):
                    _element_screenshot(browser, ".bd-article div.math", SHOTS / f"math-{width}.png", margin=60)
            page["solutions"] = browser.evaluate(SOLUTIONS)
            page["dom"] = browser.evaluate("'<!DOCTYPE html>' + document.documentElement.outerHTML")
            if file == "book/glossary":
                page["glossary"] = browser.evaluate(GLOSSARY_JS)
            page["screenshot"] = browser.screenshot(SHOTS / str(width) / (Path(file).name + ".png"), max_height=6000)
        crawl.blocked = list(browser.blocked)
    return crawl
