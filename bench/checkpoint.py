"""Save and load of a 50M-parameter state_dict: nnref against PyTorch, time and peak memory.

``python -m bench.checkpoint [--params N] [--repeats R] [--dir DIR]`` prints a
table and writes ``bench/results/checkpoint.json``.  Every measurement runs in
a fresh process (as ``bench/memory.py`` does): the state_dict is built, the
peak resident memory is reset to the current RSS, then one ``save`` or
``load`` runs; "extra" is the peak minus that baseline, i.e. the memory the
operation needed beyond what was already there (for a load this includes the
loaded tensors themselves, one checkpoint size).  Contenders: ``torch.save``
/ ``torch.load(weights_only=True)``; ``nnref.save``/``nnref.load`` in the
nnref format (which also fsyncs the file: a save survives a crash) and in
PyTorch's format.  Each run starts after ``os.sync()``, so that no save pays for
the writeback of the one before.  The operations are interleaved (A B C A B C ...); the
median and the best of ``repeats`` runs are reported (on a shared machine the
best is the steadier figure).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYERS = 5


def shapes(params):
    side = int((params / LAYERS) ** 0.5)
    return [(side, side)] * LAYERS + [(side,)] * LAYERS


def child(library, op, path, params, fmt):
    import numpy as np
    from bench.memory import reset_peak, _status_kib
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s, dtype=np.float32) for s in shapes(params)]
    if library == "torch":
        import torch
        state = {f"layer{i}": torch.from_numpy(a) for i, a in enumerate(arrays)}
        save = lambda: torch.save(state, path)  # noqa: E731
        load = lambda: torch.load(path, weights_only=True)  # noqa: E731
    else:
        import nnref
        state = {f"layer{i}": nnref.from_numpy(a) for i, a in enumerate(arrays)}
        save = lambda: nnref.save(state, path, format=fmt)  # noqa: E731
        load = lambda: nnref.load(path)  # noqa: E731
    if op == "load":
        del state, arrays
    baseline, method = reset_peak()
    start = time.perf_counter()
    result = save() if op == "save" else load()
    seconds = time.perf_counter() - start
    peak = _status_kib("VmHWM")
    del result
    return {"seconds": seconds, "extra_bytes": peak - baseline, "method": method}


def measure(library, op, path, params, fmt):
    # Start every run with no dirty pages left by the previous one: otherwise a save that
    # fsyncs (nnref's) also waits for the previous contender's unflushed 200 MB (one journal
    # commit on ext4 writes back every file's data), and its time depends on who ran before.
    os.sync()
    command = [sys.executable, "-m", "bench.checkpoint", "--child", library, op, path,
               str(params), fmt]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    if run.returncode:
        raise RuntimeError(run.stderr)
    return json.loads(run.stdout.splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--params", type=int, default=50_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--dir", default=None)
    parser.add_argument("--child", nargs=5)
    args = parser.parse_args()
    if args.child:
        library, op, path, params, fmt = args.child
        print(json.dumps(child(library, op, path, int(params), fmt)))
        return
    directory = args.dir or tempfile.mkdtemp(prefix="nnref-bench-")
    contenders = [("torch", "torch"), ("nnref", "nnref"), ("nnref", "torch")]
    paths = {c: os.path.join(directory, f"{c[0]}-{c[1]}.pt") for c in contenders}
    samples = {(c, op): [] for c in contenders for op in ("save", "load")}
    for _ in range(args.repeats):
        for op in ("save", "load"):
            for c in contenders:
                samples[(c, op)].append(measure(c[0], op, paths[c], args.params, c[1]))
    size = os.path.getsize(paths[("nnref", "nnref")])
    rows = []
    for (c, op), runs in samples.items():
        rows.append({"library": c[0], "format": c[1], "op": op,
                     "seconds": statistics.median(r["seconds"] for r in runs),
                     "best_seconds": min(r["seconds"] for r in runs),
                     "extra_bytes": statistics.median(r["extra_bytes"] for r in runs)})
    torch_time = {r["op"]: r["seconds"] for r in rows if r["library"] == "torch"}
    torch_best = {r["op"]: r["best_seconds"] for r in rows if r["library"] == "torch"}
    print(f"state_dict: {args.params / 1e6:.0f}M float32 parameters, checkpoint "
          f"{size / 2**20:.1f} MiB; median of {args.repeats}")
    print(f"{'library':8} {'format':8} {'op':5} {'median s':>9} {'x torch':>8} {'best s':>7} "
          f"{'x torch':>8} {'extra MiB':>10} {'x size':>7}")
    for r in rows:
        r["vs_torch"] = r["seconds"] / torch_time[r["op"]]
        r["best_vs_torch"] = r["best_seconds"] / torch_best[r["op"]]
        r["extra_vs_size"] = r["extra_bytes"] / size
        print(f"{r['library']:8} {r['format']:8} {r['op']:5} {r['seconds']:9.3f} "
              f"{r['vs_torch']:8.2f} {r['best_seconds']:7.3f} {r['best_vs_torch']:8.2f} "
              f"{r['extra_bytes'] / 2**20:10.1f} {r['extra_vs_size']:7.2f}")
    out = os.path.join(ROOT, "bench", "results", "checkpoint.json")
    with open(out, "w") as f:
        json.dump({"params": args.params, "checkpoint_bytes": size, "rows": rows}, f, indent=1)
    for path in paths.values():
        os.unlink(path)


if __name__ == "__main__":
    main()
