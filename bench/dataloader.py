"""The data-loading benchmark: ``python -m bench.dataloader [--quick] [--out DIR]``.

One epoch of ``DataLoader(TensorDataset(X, y), batch_size=64, shuffle=...)`` over an
MNIST-sized ``X`` (60,000 x 784 float32) and ``y`` (60,000 int64), in nnref and in
PyTorch, one thread each, interleaved (``bench.timing``).  Before timing, both must
yield the same batches from the same seed.  Results go to ``dataloader.json`` in
``--out`` (default ``bench/results/``); the target is nnref within 1.5x PyTorch.
"""
import argparse
import json
import os
import sys

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from bench import timing  # noqa: E402

CONFIGS = {"full": {"rows": 60_000, "repeats": 5, "min_time": 0.5, "warmup": 0.5},
           "quick": {"rows": 2_000, "repeats": 2, "min_time": 0.01, "warmup": 0.01}}


def epoch(library, rows, shuffle):
    """A zero-argument function that iterates one epoch of ``library``'s DataLoader."""
    import importlib
    data = importlib.import_module(library.__name__ + ".utils.data")
    library.manual_seed(0)
    dataset = data.TensorDataset(library.randn(rows, 784), library.randint(0, 10, (rows,)))
    loader = data.DataLoader(dataset, batch_size=64, shuffle=shuffle)

    def run():
        for _ in loader:
            pass
    return run, loader


def same_batches(libraries, rows):
    firsts = []
    for lib in libraries:
        _, loader = epoch(lib, rows, True)
        lib.manual_seed(1)
        x, y = next(iter(loader))
        firsts.append((x.numpy().tobytes(), y.tolist()))
    return all(f == firsts[0] for f in firsts)


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m bench.dataloader", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="a small dataset, few repeats (CI)")
    p.add_argument("--out", default=os.path.join(ROOT, "bench", "results"))
    args = p.parse_args(argv)
    cfg = CONFIGS["quick" if args.quick else "full"]
    import nnref
    import torch
    torch.set_num_threads(1)
    if not same_batches((torch, nnref), cfg["rows"]):
        sys.exit("bench.dataloader: nnref and PyTorch yield different batches from the same seed")
    results = {"rows": cfg["rows"], "batch_size": 64, "threads": 1, "epochs": {}}
    for shuffle in (False, True):
        contenders = {name: epoch(lib, cfg["rows"], shuffle)[0]
                      for name, lib in (("nnref", nnref), ("torch", torch))}
        stats = timing.interleaved(contenders, cfg["repeats"], cfg["min_time"], cfg["warmup"])
        key = "shuffle" if shuffle else "sequential"
        nn_t, th_t = stats["nnref"]["median"], stats["torch"]["median"]
        results["epochs"][key] = {"nnref_s": nn_t, "torch_s": th_t, "ratio": nn_t / th_t}
        print(f"{key:>10}: nnref {nn_t * 1e3:8.1f} ms  torch {th_t * 1e3:8.1f} ms  "
              f"ratio {nn_t / th_t:.2f}x (target <= 1.5x)")
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "dataloader.json"), "w") as f:
        json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
