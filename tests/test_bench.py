"""The benchmark runs end to end in quick mode and writes its results (no timing assertions).

CI runs ``python -m bench.run --quick`` only to prove the benchmark still
works: every measure present, ratios computed, the identical-work check
passed, the JSON, Markdown and chart written.  How fast anything is, is not
checked here.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
NN_PARTS = {"nnref.nn": ("Sequential", "Linear", "Flatten", "ReLU", "CrossEntropyLoss"),
            "nnref.optim": ("SGD",)}


def _missing_nn_parts():
    import importlib
    missing = []
    for module, names in NN_PARTS.items():
        try:
            mod = importlib.import_module(module)
        except ImportError:
            missing.append(module)
            continue
        missing += [f"{module}.{n}" for n in names if not hasattr(mod, n)]
    return missing


needs_nn = pytest.mark.skipif(bool(_missing_nn_parts()),
                              reason=f"the MLP benchmark needs {', '.join(_missing_nn_parts())}")


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "bench.run", "--quick", "--out", str(out)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=420)
    assert proc.returncode == 0, f"bench failed:\n{proc.stdout}\n{proc.stderr}"
    return out, proc.stdout


@needs_nn
def test_quick_run_writes_json_markdown_and_chart(quick_run):
    out, stdout = quick_run
    results = json.loads((out / "results.json").read_text())
    assert (out / "results.md").read_text().startswith("# nnref benchmark results")
    assert (out / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "findings.md").read_text().startswith("From the run of ")
    assert "nnref/numpy" in stdout and "Met?" in stdout  # the table was printed

    assert results["correctness"]["passed"] is True
    assert results["meta"]["mode"] == "quick" and results["meta"]["threads"] == 1
    has_torch = results["meta"]["torch"] is not None

    m = results["measures"]
    assert set(m) == {"mlp_step", "per_op_overhead", "chain", "peak_memory", "scalar_engine", "wall"}
    assert set(m["mlp_step"]) == {"1", "64", "512"}
    for batch in ("1", "64", "512"):
        assert m["mlp_step"][batch]["nnref"]["median"] > 0
        assert m["mlp_step"][batch]["numpy"]["median"] > 0
        assert len(m["mlp_step"][batch]["nnref"]["samples"]) >= 3
    assert m["per_op_overhead"]["us_per_op"]["nnref"] > 0
    assert set(m["chain"]["time"]) == {"2500", "5000", "10000"}
    assert m["chain"]["memory"]["nnref"]["bytes_per_op"] > 0
    assert m["peak_memory"]["mlp"]["nnref"]["peak_delta_bytes"] > 0
    assert m["peak_memory"]["mlp"]["numpy"]["peak_delta_bytes"] > 0
    assert m["scalar_engine"]["speedup"]["nnref"] > 0
    wall = m["wall"]
    assert set(wall["mlp_step"]) == {"1", "64", "512"} and set(wall["cnn_step"]) == {"8", "64"}
    assert wall["cnn_step"]["64"]["nnref"]["median"] > 0
    assert wall["conv_layer"]["forward_backward"]["nnref"]["median"] > 0
    assert results["correctness"]["cnn"]["passed"] is True
    if has_torch:
        assert m["peak_memory"]["cnn"]["torch"]["peak_delta_bytes"] > 0
        for key in ("wall_mlp_step_b64", "wall_cnn_step_b8", "wall_cnn_step_b64", "wall_conv_forward",
                    "wall_conv_forward_backward", "peak_memory_cnn_b64"):
            assert results["ratios"][key]["nnref/torch"] > 0, key
        assert "## Wall clock, interleaved in one process" in (out / "results.md").read_text()

    ratios = results["ratios"]
    for key in ("mlp_step_b1", "mlp_step_b64", "mlp_step_b512", "peak_memory_b512"):
        assert ratios[key]["nnref/numpy"] > 0
    if has_torch:
        for key in ("mlp_step_b1", "mlp_step_b64", "mlp_step_b512", "per_op_overhead"):
            assert ratios[key]["nnref/torch"] > 0
    assert ratios["scalar_engine"]["scalar/nnref"] > 0

    rows = {r["key"]: r for r in results["table"]}
    for key in ("mlp_step_b1", "mlp_step_b64", "mlp_step_b512", "per_op_overhead", "peak_memory_b512",
                "chain_memory"):
        assert rows[key]["target"], key
        if has_torch or key in ("peak_memory_b512", "chain_memory"):
            assert rows[key]["met"] in (True, False), key


def test_hand_written_numpy_step_matches_autograd():
    """The numpy step's gradients are right: compare with PyTorch's autograd on a tiny network."""
    torch = pytest.importorskip("torch")
    from bench import mlp

    weights = mlp.make_weights((12, 8, 8, 5))
    x, y = mlp.make_data(6, (3, 4), 5)
    numpy_mlp = mlp.NumpyMLP(weights, x, y)
    loss = numpy_mlp.step()

    params = [(torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)) for w, b in weights]
    h = torch.from_numpy(x).flatten(1)
    for i, (w, b) in enumerate(params):
        h = h @ w.T + b
        if i < len(params) - 1:
            h = h.relu()
    ref = torch.nn.functional.cross_entropy(h, torch.from_numpy(y))
    ref.backward()
    assert loss == pytest.approx(ref.item(), rel=1e-5)
    for (w, b), (wn, bn) in zip(params, numpy_mlp.params):
        np.testing.assert_allclose(wn, (w - mlp.LR * w.grad).detach().numpy(), rtol=1e-5, atol=1e-7)
        np.testing.assert_allclose(bn, (b - mlp.LR * b.grad).detach().numpy(), rtol=1e-5, atol=1e-7)


def test_scalar_engine_gradients():
    """The scalar engine's backward agrees with central differences."""
    from bench.scalar_engine import Value

    def f(a, b):
        return ((a * b + a).relu() * (b - 0.5).exp()).log() + a * a

    a, b = Value(1.3), Value(0.7)
    out = f(a, b)
    out.backward()
    eps = 1e-6
    da = (f(Value(1.3 + eps), Value(0.7)).data - f(Value(1.3 - eps), Value(0.7)).data) / (2 * eps)
    db = (f(Value(1.3), Value(0.7 + eps)).data - f(Value(1.3), Value(0.7 - eps)).data) / (2 * eps)
    assert a.grad == pytest.approx(da, rel=1e-6)
    assert b.grad == pytest.approx(db, rel=1e-6)


@needs_nn
def test_agreement_check_refuses_different_work(monkeypatch):
    """If one implementation does different work (here: another learning rate), the check fails."""
    from bench import mlp

    real = mlp.contenders

    def skewed(weights, x, y, frameworks):
        objs = real(weights, x, y, frameworks)
        objs["numpy"].lr = np.float32(0.02)
        return objs

    import nnref
    monkeypatch.setattr(mlp, "contenders", skewed)
    report = mlp.check_agreement({"nnref": nnref, "numpy": np}, [4])
    assert report["passed"] is False


@needs_nn
def test_gpu_benchmark_harness_runs_with_its_gpu_columns_on_the_cpu(tmp_path):
    """``bench.gpu --device cpu``: the script that ``./dev.sh gpu`` runs works end to end
    (agreement check, timing, ratios, JSON and Markdown); its numbers mean nothing here."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    proc = subprocess.run([sys.executable, "-m", "bench.gpu", "--quick", "--device", "cpu",
                           "--batches", "16", "--out", str(tmp_path)], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"bench.gpu failed:\n{proc.stdout}\n{proc.stderr}"
    assert "the contenders agree" in proc.stdout
    results = json.loads((tmp_path / "gpu.json").read_text())
    assert results["meta"]["device"] == "cpu" and "gpu" not in results["meta"]
    run = results["mlp"]["16"]
    assert {"nnref gpu", "nnref cpu"} <= set(run["median_ms"])
    assert run["ratios"]["cpu/gpu nnref"] == pytest.approx(run["median_ms"]["nnref cpu"] / run["median_ms"]["nnref gpu"])
    assert (tmp_path / "gpu.md").read_text().startswith("# nnref on the GPU: no GPU")


def test_gpu_benchmark_without_a_gpu_says_what_is_missing(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.run([sys.executable, "-m", "bench.gpu", "--quick", "--out", str(tmp_path)], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=60)
    import nnref
    if nnref.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert proc.returncode != 0 and "cupy" in proc.stderr.lower() and "--device cpu" in proc.stderr
    assert not (tmp_path / "gpu.json").exists()


def test_performance_page_figures_come_from_the_committed_results():
    """book/performance.md quotes no measurement by hand: the tables, the ratios in its prose
    and the chart are bench/report.py's output for the committed results.json (results.md,
    findings.md and chart.png, included by the page), so they cannot drift from the run."""
    import re
    from bench import report
    results_dir = ROOT / "bench" / "results"
    results = json.loads((results_dir / "results.json").read_text())
    assert (results_dir / "results.md").read_text() == report.markdown(results)
    assert (results_dir / "findings.md").read_text() == report.findings(results)
    page = (ROOT / "book" / "performance.md").read_text()
    for name in ("results.md", "findings.md", "chart.png"):
        assert f"../bench/results/{name}" in page
    typed = re.findall(r"(?:about |roughly )?\b\d+(?:\.\d+)?\s*(?:times|x|×)\s+(?:faster|slower|as (?:fast|slow|long))",
                       page)
    assert not typed, f"ratios typed into the page instead of generated: {typed}"
    from PIL import Image
    with Image.open(results_dir / "chart.png") as chart:
        assert float(chart.info["nnref:min-font-pt"]) >= report.CHART_MIN_FONT_PT
