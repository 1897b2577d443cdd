"""The GPU benchmark: ``python -m bench.gpu [--quick] [--device cuda] [--out DIR] [--tests XML]``.

The MNIST MLP's SGD step (``bench/mlp.py``) at batch 512 and 8192, timed
interleaved in one run:

* ``nnref gpu``: nnref on the GPU (CuPy arrays);
* ``nnref cpu``: the same code on the CPU (numpy, all cores);
* ``torch gpu``: PyTorch on the GPU, when the installed PyTorch is a CUDA build.

Every GPU step ends with ``cuda.synchronize()``, so a step's time includes its
kernels, not only their launch.  Before timing, the contenders must agree on
the losses of two steps within 1e-4 relative.  ``--tests`` adds the counts of
a JUnit file (the GPU-mode test run of ``./dev.sh gpu``).  Results go to
``gpu.json`` and ``gpu.md`` in ``--out`` (default ``bench/results/``); the
book's GPU chapter shows them.

``--device cpu`` runs the same harness with the "gpu" contenders on the CPU: it
proves the script works on a machine without a GPU (CI does that), and its
numbers mean nothing.
"""
import argparse
import datetime
import json
import os
import platform
import sys
import xml.etree.ElementTree as ET

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import timing  # noqa: E402
from bench.mlp import FrameworkMLP, make_data, make_weights  # noqa: E402

BATCHES = (512, 8192)
CONFIGS = {"full": {"repeats": 9, "min_time": 0.2, "warmup": 0.5},
           "quick": {"repeats": 2, "min_time": 0.01, "warmup": 0.01}}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench.gpu", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="few, short samples: proves the script works")
    p.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                   help="where the 'GPU' contenders run; cpu only to test the script")
    p.add_argument("--batches", type=int, nargs="+", default=list(BATCHES))
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    p.add_argument("--tests", help="JUnit XML of the GPU-mode test run, to record its counts")
    return p.parse_args(argv)


def log(message):
    print(f"[bench.gpu] {message}", flush=True)


class DeviceMLP(FrameworkMLP):
    """``FrameworkMLP`` with its model and batch moved to ``device``."""

    def __init__(self, fw, weights, x, y, device):
        super().__init__(fw, weights, x, y)
        self.device = fw.device(device)
        self.model.to(self.device)
        self.x, self.y = self.x.to(self.device), self.y.to(self.device)
        self.synchronize = fw.cuda.synchronize if self.device.type == "cuda" else (lambda: None)

    def timed_step(self):
        self.step()
        self.synchronize()


def contenders(device, batch, torch):
    import nnref
    weights = make_weights()
    x, y = make_data(batch)
    found = {"nnref gpu": DeviceMLP(nnref, weights, x, y, device),
             "nnref cpu": DeviceMLP(nnref, weights, x, y, "cpu")}
    if torch is not None and (device == "cpu" or torch.cuda.is_available()):
        found["torch gpu"] = DeviceMLP(torch, weights, x, y, device)
    return found


def agreement(mlps, steps=2, rtol=1e-4):
    """Losses of ``steps`` steps per contender; raises if any differs from nnref cpu's."""
    losses = {name: [mlp.loss() for _ in range(steps)] for name, mlp in mlps.items()}
    reference = losses["nnref cpu"]
    for name, values in losses.items():
        if not np.allclose(values, reference, rtol=rtol, atol=0):
            raise SystemExit(f"bench.gpu: {name}'s losses {values} differ from nnref cpu's {reference}: "
                             "not timing different work")
    return losses


def test_counts(path):
    suites = ET.parse(path).getroot()
    suites = suites if suites.tag == "testsuites" else [suites]
    count = lambda key: sum(int(s.get(key, 0)) for s in suites)  # noqa: E731
    failed = count("failures") + count("errors")
    skipped = count("skipped")
    return {"passed": count("tests") - failed - skipped, "failed": failed, "skipped": skipped}


def metadata(device, torch):
    import nnref
    meta = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "device": device, "python": platform.python_version(), "numpy": np.__version__,
            "cpu_count": os.cpu_count(), "torch": getattr(torch, "__version__", None),
            "torch_cuda": bool(torch is not None and torch.cuda.is_available())}
    if device == "cuda":
        import cupy
        meta["gpu"] = nnref.cuda.get_device_name()
        meta["cupy"] = cupy.__version__
        meta["cuda_runtime"] = cupy.cuda.runtime.runtimeGetVersion()
    return meta


def markdown(results):
    meta = results["meta"]
    where = meta.get("gpu", 'no GPU ("gpu" columns ran on the CPU: the numbers mean nothing)')
    lines = [f"# nnref on the GPU: {where}", "",
             f"Recorded {meta['date']} with CuPy {meta.get('cupy', '-')}, PyTorch {meta['torch']}.", ""]
    if "tests" in results:
        t = results["tests"]
        lines += [f"GPU-mode tests: {t['passed']} passed, {t['failed']} failed, {t['skipped']} skipped.", ""]
    names = sorted({n for r in results["mlp"].values() for n in r["median_ms"]})
    lines += ["| batch | " + " | ".join(f"{n} (ms)" for n in names) + " | nnref GPU speed-up over CPU"
              " | nnref / torch on the GPU |",
              "|---|" + "---|" * (len(names) + 2)]
    for batch, r in results["mlp"].items():
        cells = [f"{r['median_ms'][n]:.2f}" if n in r["median_ms"] else "-" for n in names]
        vs_torch = r["ratios"].get("nnref/torch gpu")
        lines.append(f"| {batch} | " + " | ".join(cells) + f" | {r['ratios']['cpu/gpu nnref']:.1f}x | "
                     + (f"{vs_torch:.2f}x" if vs_torch else "no CUDA PyTorch") + " |")
    return "\n".join(lines) + "\n"


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    import nnref
    if args.device == "cuda" and not nnref.cuda.is_available():
        from nnref._cupy import cuda_unavailable_reason
        raise SystemExit(f"bench.gpu: {cuda_unavailable_reason()} (use --device cpu to test the script)")
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and args.device == "cuda" and not torch.cuda.is_available():
        log("PyTorch here is a CPU build: no 'torch cuda' column. For it, install a CUDA build, e.g. "
            "pip install torch --index-url https://download.pytorch.org/whl/cu126")
    config = CONFIGS["quick" if args.quick else "full"]
    results = {"meta": metadata(args.device, torch), "mlp": {}}
    for batch in args.batches:
        mlps = contenders(args.device, batch, torch)
        losses = agreement(mlps)
        log(f"batch {batch}: the contenders agree (losses {losses['nnref cpu']})")
        timed = timing.interleaved({name: mlp.timed_step for name, mlp in mlps.items()},
                                   config["repeats"], config["min_time"], config["warmup"])
        median_ms = {name: r["median"] * 1e3 for name, r in timed.items()}
        gpu = median_ms["nnref gpu"]
        ratios = {"cpu/gpu nnref": median_ms["nnref cpu"] / gpu}
        if "torch gpu" in median_ms:
            ratios["nnref/torch gpu"] = gpu / median_ms["torch gpu"]
        results["mlp"][str(batch)] = {"median_ms": median_ms, "ratios": ratios,
                                      "iqr_ms": {n: r["iqr"] * 1e3 for n, r in timed.items()}}
        log(f"batch {batch}: " + ", ".join(f"{n} {v:.2f} ms" for n, v in median_ms.items())
            + "; " + ", ".join(f"{k} {v:.2f}" for k, v in ratios.items()))
    if args.tests:
        results["tests"] = test_counts(args.tests)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "gpu.json"), "w") as f:
        json.dump(results, f, indent=2)
    with open(os.path.join(args.out, "gpu.md"), "w") as f:
        f.write(markdown(results))
    log(f"wrote gpu.json and gpu.md to {args.out}")


if __name__ == "__main__":
    main()
