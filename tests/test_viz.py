"""nnref.viz draws the same backward graph for nnref and PyTorch, and renders with real Graphviz."""
import re
import shutil

import pytest

import nnref
from nnref import viz


def _notes_example(lib):
    x = lib.tensor([2.0], requires_grad=True)
    w = lib.tensor([1.0], requires_grad=True)
    a = x + w
    b = w + 1
    y = a * b
    a.retain_grad()
    b.register_hook(lambda g: g * 1)
    return x, w, a, b, y


def _mlp(lib):
    lib.manual_seed(0)
    x = lib.ones(4, 3)
    w1 = lib.ones(5, 3, requires_grad=True)
    b1 = lib.zeros(5, requires_grad=True)
    w2 = lib.ones(2, 5, requires_grad=True)
    h = (x @ w1.t() + b1).relu()
    out = (h @ w2.t()).log_softmax(1).mean()
    return {"w1": w1, "b1": b1, "w2": w2}, out


def test_same_graph_as_pytorch_for_notes_example():
    torch = pytest.importorskip("torch")
    drawings = []
    for lib in (nnref, torch):
        x, w, a, b, y = _notes_example(lib)
        drawings.append(viz.draw_graph(y, params={"x": x, "w": w}, tensors={"a": a, "b": b}).source)
    assert drawings[0] == drawings[1]
    assert "retains grad" in drawings[0] and "1 hook" in drawings[0]


def test_same_graph_as_pytorch_for_small_mlp():
    torch = pytest.importorskip("torch")
    sources = []
    for lib in (nnref, torch):
        params, out = _mlp(lib)
        sources.append(viz.draw_graph(out, params=params).source)
    assert sources[0] == sources[1]
    for name in ("MeanBackward0", "LogSoftmaxBackward0", "ReluBackward0", "AddBackward0",
                 "MmBackward0", "TBackward0", "w1", "b1", "w2"):
        assert name in sources[0]


def test_dot_text_is_the_same_every_run():
    """Names come from the walk order, not memory addresses, so notebooks re-run identically."""
    sources = {viz.draw_graph(_notes_example(nnref)[-1]).source for _ in range(3)}
    assert len(sources) == 1 and "node0" in sources.pop()


def test_saved_tensors_shown_then_marked_freed():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    before = viz.draw_graph(y, show_saved=True).source
    assert "result" in before and "saved" in before and "freed" not in before
    y.backward()
    assert "freed" in viz.draw_graph(y, show_saved=True).source


def test_grad_flow_shows_values_and_gradients():
    x, w, a, b, y = _notes_example(nnref)
    y.backward()
    source = viz.draw_grad_flow(y, params={"x": x, "w": w}, tensors={"a": a, "b": b}).source
    # w.grad = 5 and x.grad = 2 (the notes' numbers); a retained its grad (= b = 2).
    assert re.search(r'w\nAccumulateGrad\nshape \[1\]\nvalue \[1\.\]\ngrad \[5\.\]', source)
    assert re.search(r'x\nAccumulateGrad\nshape \[1\]\nvalue \[2\.\]\ngrad \[2\.\]', source)
    assert re.search(r'a = AddBackward0\nshape \[1\]\nvalue \[3\.\]\ngrad \[2\.\]', source)


def test_renders_svg_with_graphviz():
    if shutil.which("dot") is None:
        pytest.fail("Graphviz's dot is required for this test: ./dev.sh test installs it")
    x, w, a, b, y = _notes_example(nnref)
    svg = viz.draw_graph(y, params={"x": x, "w": w}).pipe(format="svg").decode()
    assert svg.lstrip().startswith("<?xml") and "<svg" in svg and "MulBackward0" in svg
    bundle = viz.draw_graph(y)._repr_mimebundle_()
    assert "image/svg+xml" in bundle


def test_missing_dot_names_install_command(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot anywhere on PATH
    x, w, a, b, y = _notes_example(nnref)
    graph = viz.draw_graph(y)
    with pytest.raises(viz.GraphvizMissingError, match="apt-get install graphviz"):
        graph.pipe(format="svg")
    with pytest.raises(viz.GraphvizMissingError, match="brew install graphviz"):
        graph._repr_mimebundle_()
    assert "MulBackward0" in graph.source  # the DOT text is still there


def test_deep_chain_draws_without_recursion():
    x = nnref.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(3000):
        y = y * 1.0001
    source = viz.draw_graph(y).source
    assert source.count("MulBackward0") == 3000


def test_leaf_root_is_drawn_alone():
    x = nnref.tensor([1.0, 2.0], requires_grad=True)
    source = viz.draw_graph(x, params={"x": x}).source
    assert "x" in source and "->" not in source
