"""Forward + backward time of the tutorials' layers, nnref against PyTorch, on one thread.

``python -m bench.layers [--quick] [--out DIR] [--only TEXT]`` times each layer on a typical
input (interleaved samples, median of wall-clock times; see :mod:`bench.timing`), checks that
both give the same output first, and writes ``layers.json`` and ``layers.md`` to ``--out``
(default ``bench/results/``).  ``--only`` times the layers whose name contains TEXT and writes
nothing.  The target is a ratio nnref / PyTorch of at most 1.5.
"""
import argparse
import json
import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from bench import timing  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (module builder taking the library, input shape)
CASES = {
    "AvgPool2d(2)": (lambda nn: nn.AvgPool2d(2), (32, 16, 32, 32)),
    "AvgPool2d(3, stride=2, padding=1)": (lambda nn: nn.AvgPool2d(3, 2, 1), (32, 16, 32, 32)),
    "AdaptiveAvgPool2d((1, 1))": (lambda nn: nn.AdaptiveAvgPool2d((1, 1)), (32, 64, 8, 8)),
    "AdaptiveAvgPool2d((7, 7))": (lambda nn: nn.AdaptiveAvgPool2d((7, 7)), (32, 16, 30, 30)),
    "AdaptiveMaxPool2d((7, 7)), 28x28": (lambda nn: nn.AdaptiveMaxPool2d((7, 7)), (32, 16, 28, 28)),
    "AdaptiveMaxPool2d((7, 7)), 30x30": (lambda nn: nn.AdaptiveMaxPool2d((7, 7)), (32, 16, 30, 30)),
    "ConvTranspose2d(16, 8, 2, stride=2)": (lambda nn: nn.ConvTranspose2d(16, 8, 2, stride=2), (32, 16, 16, 16)),
    "ConvTranspose2d(16, 8, 3, stride=2, padding=1, output_padding=1)":
        (lambda nn: nn.ConvTranspose2d(16, 8, 3, 2, 1, 1), (32, 16, 16, 16)),
    "Conv1d(16, 32, 5, padding=2)": (lambda nn: nn.Conv1d(16, 32, 5, padding=2), (32, 16, 128)),
    "GELU()": (lambda nn: nn.GELU(), (64, 256, 64)),
    "GELU('tanh')": (lambda nn: nn.GELU("tanh"), (64, 256, 64)),
    "LeakyReLU(0.1)": (lambda nn: nn.LeakyReLU(0.1), (64, 256, 64)),
    "SiLU()": (lambda nn: nn.SiLU(), (64, 256, 64)),
    "ELU()": (lambda nn: nn.ELU(), (64, 256, 64)),
    "Softplus()": (lambda nn: nn.Softplus(), (64, 256, 64)),
    "Hardtanh()": (lambda nn: nn.Hardtanh(), (64, 256, 64)),
}


def _step(lib, module, x, grad):
    def run():
        x.grad = None
        lib_out = module(x)
        lib_out.backward(grad)
    return run


def measure(quick, only=None):
    import torch
    import nnref
    torch.set_num_threads(1)
    rng = np.random.default_rng(0)
    results = {}
    for name, (build, shape) in CASES.items():
        if only is not None and only not in name:
            continue
        ours, theirs = build(nnref.nn), build(torch.nn)
        if hasattr(theirs, "weight"):
            with nnref.no_grad():
                for key, value in theirs.state_dict().items():
                    ours.state_dict()[key].copy_(nnref.tensor(value.numpy()))
        data = rng.standard_normal(shape).astype(np.float32)
        x_ours = nnref.tensor(data, requires_grad=True)
        x_theirs = torch.tensor(data, requires_grad=True)
        out_ours, out_theirs = ours(x_ours), theirs(x_theirs)
        np.testing.assert_allclose(out_ours.detach().numpy(), out_theirs.detach().numpy(),
                                   rtol=1e-4, atol=1e-5, err_msg=name)
        grad = rng.standard_normal(tuple(out_theirs.shape)).astype(np.float32)
        contenders = {"nnref": _step(nnref, ours, x_ours, nnref.tensor(grad)),
                      "torch": _step(torch, theirs, x_theirs, torch.tensor(grad))}
        summary = timing.interleaved(contenders, repeats=3 if quick else 9,
                                     min_time=0.01 if quick else 0.1,
                                     warmup_time=0.02 if quick else 0.2)
        ours_ms, theirs_ms = summary["nnref"]["median"] * 1e3, summary["torch"]["median"] * 1e3
        results[name] = {"shape": list(shape), "nnref_ms": ours_ms, "torch_ms": theirs_ms,
                         "ratio": ours_ms / theirs_ms}
        print(f"{name:66s} {str(shape):18s} nnref {ours_ms:8.3f} ms  torch {theirs_ms:8.3f} ms  "
              f"ratio {ours_ms / theirs_ms:5.2f}", flush=True)
    return results


def write(results, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "layers.json"), "w") as f:
        json.dump(results, f, indent=1)
    lines = ["| layer | input | nnref (ms) | PyTorch (ms) | ratio |", "|---|---|---|---|---|"]
    for name, r in results.items():
        lines.append(f"| `{name}` | {tuple(r['shape'])} | {r['nnref_ms']:.3f} | {r['torch_ms']:.3f} "
                     f"| {r['ratio']:.2f} |")
    with open(os.path.join(out, "layers.md"), "w") as f:
        f.write("Forward + backward, one thread, median of interleaved samples.\n\n"
                + "\n".join(lines) + "\n")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m bench.layers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="few, short samples (seconds)")
    parser.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    parser.add_argument("--only", metavar="TEXT", help="time only the layers whose name contains TEXT")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="wall")
    args = parser.parse_args(argv)
    timing.use_clock(args.clock)
    results = measure(args.quick, args.only)
    if args.only is None:
        write(results, args.out)


if __name__ == "__main__":
    sys.exit(main())
