"""Run the nnref benchmark: ``python -m bench.run [--quick] [--threads N] [--out DIR] [--profile]``.

Five measures, each timed interleaved (A B C A B C ...) after warm-up, with
the median (and IQR) of ``repeats`` samples and the same thread count for
every contender:

1. one SGD training step of the MNIST MLP at batch 1, 64 and 512: ``nnref``,
   the same step hand-written in numpy (the limit), PyTorch CPU;
2. per-op overhead: forward + backward of 20 elementwise ops on 4 elements;
3. backward through a chain of 10,000 ops: time, and peak memory at several
   lengths (is it linear in the length? how many bytes per op?);
4. peak memory (RSS delta) of the MLP step at batch 512;
5. a micrograd-style scalar engine against tensor autograd on a small MLP;
6. the same measures the way issue 17 states its targets: *wall-clock* time
   (``time.perf_counter``), nnref / numpy / PyTorch interleaved in rounds in
   this one process, medians: the MLP step (batch 1, 64, 512), seed note 002's
   CNN step (batch 8 and 64), one ``Conv2d(3, 64, 3, padding=1)`` layer on
   3x32x32 inputs (forward, and forward + backward), and the CNN step's peak
   memory (batch 64).

Before timing, the three MLP implementations (and the scalar engine) must
agree on the loss of two consecutive steps within 1e-4 relative; if they do
not, nothing is reported.  Results go to ``results.json``, ``results.md``,
``findings.md`` and ``chart.png`` in ``--out`` (default ``bench/results/``).

``--profile`` instead prints where ``nnref`` spends an MLP step (cProfile, by
own time) at batch 64 and batch 1, and writes ``profile.txt``.
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "bench", "results")
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")

MLP_BATCHES = (1, 64, 512)
CNN_BATCHES = (8, 64)
CNN_MEMORY_BATCH = 64
CONV_LAYER_BATCH = 64
MEMORY_BATCH = 512
CHAIN_LENGTHS = (2500, 5000, 10000)
SCALAR_SIZES = (16, 32, 32, 4)
SCALAR_BATCH = 8

# min_time: seconds a timed sample lasts at least; repeats: samples per contender.
CONFIGS = {
    "full": {"repeats": 15, "min_time": 0.05, "warmup": 0.3, "chain_repeats": 7,
             "memory_repeats": 3, "scalar_repeats": 7, "torch_chain_memory": True},
    "quick": {"repeats": 3, "min_time": 0.01, "warmup": 0.02, "chain_repeats": 3,
              "memory_repeats": 1, "scalar_repeats": 3, "torch_chain_memory": False},
}


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m bench.run", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true",
                   help="few repeats and short samples: proves the benchmark works (CI), ~30 s")
    p.add_argument("--threads", type=int, default=1,
                   help="BLAS/OpenMP threads for every contender (default 1)")
    p.add_argument("--out", default=DEFAULT_OUT, help="output folder (default bench/results/)")
    p.add_argument("--profile", action="store_true",
                   help="print cProfile's top functions of the nnref MLP step (batch 64 and 1)")
    p.add_argument("--no-torch", action="store_true", help="leave PyTorch out even if installed")
    p.add_argument("--clock", choices=("auto", "cpu", "wall"), default="auto",
                   help="cpu: process CPU time, immune to other processes on a shared machine; "
                        "wall: wall-clock time; auto (default): cpu with 1 thread, wall otherwise")
    return p.parse_args(argv)


def pin_threads(n, argv):
    """Fix the thread count for numpy's BLAS and torch before either is imported.

    The variables are read when the libraries load, so if numpy or torch is
    already in this process, start again (once) with the environment set.
    """
    for var in THREAD_VARS:
        os.environ[var] = str(n)
    os.environ["BENCH_THREADS"] = str(n)
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT, os.environ.get("PYTHONPATH")]))
    if any(m in sys.modules for m in ("numpy", "torch")) and os.environ.get("_BENCH_REEXEC") != "1":
        os.environ["_BENCH_REEXEC"] = "1"
        os.execv(sys.executable, [sys.executable, "-m", "bench.run", *argv])


class Progress:
    def __init__(self):
        import time
        self._clock = time.perf_counter
        self.start = self._clock()

    def elapsed(self):
        return self._clock() - self.start

    def __call__(self, msg):
        print(f"[{self.elapsed():6.1f}s] {msg}", flush=True)


def frameworks(no_torch):
    import numpy
    import nnref
    fws = {"nnref": nnref, "numpy": numpy}
    if not no_torch:
        try:
            import torch
        except ImportError:
            torch = None
        if torch is not None:
            torch.set_num_threads(int(os.environ["BENCH_THREADS"]))
            fws["torch"] = torch
    return fws


def check_nn_available():
    """The MLP needs nnref's nn and optim parts; say clearly which are missing."""
    import importlib
    missing = []
    for module, names in (("nnref.nn", ("Sequential", "Linear", "Flatten", "ReLU", "CrossEntropyLoss")),
                          ("nnref.optim", ("SGD",))):
        try:
            mod = importlib.import_module(module)
        except ImportError:
            missing += [f"{module}.{n}" for n in names]
            continue
        missing += [f"{module}.{n}" for n in names if not hasattr(mod, n)]
    if missing:
        sys.exit("bench: nnref is missing " + ", ".join(missing) + "; the MLP benchmark needs them")


def fmt_time(seconds):
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    return f"{seconds * 1e6:.1f} us"


# ----------------------------------------------------------------- checks ---
def correctness(fws, log):
    """Identical work: same losses (and weights) from the same start, or refuse to report."""
    import numpy as np

    from . import graphs, mlp, scalar_engine

    result = {"mlp": mlp.check_agreement(fws, MLP_BATCHES)}
    for batch, entry in result["mlp"]["batches"].items():
        diffs = ", ".join(f"{k} {v:.1e}" for k, v in entry["max_rel_loss_diff"].items())
        log(f"check MLP batch {batch}: loss {entry['losses']['numpy'][0]:.6f} -> "
            f"{entry['losses']['numpy'][1]:.6f}; rel. diff to numpy: {diffs}")

    # Per-op graph: same gradient as PyTorch.
    x = graphs.small_graph_input(fws["nnref"])
    graphs.small_graph(x).backward()
    grads = {"nnref": x.grad.numpy().copy()}
    if "torch" in fws:
        xt = graphs.small_graph_input(fws["torch"])
        graphs.small_graph(xt).backward()
        grads["torch"] = xt.grad.numpy().copy()
        ok = bool(np.allclose(grads["nnref"], grads["torch"], rtol=1e-4, atol=1e-6))
    else:
        ok = True
    result["small_graph"] = {"grad": {k: v.tolist() for k, v in grads.items()}, "passed": ok}

    # Scalar engine vs nnref on the small MLP.
    weights = mlp.make_weights(SCALAR_SIZES)
    xs, ys = mlp.make_data(SCALAR_BATCH, (SCALAR_SIZES[0],), SCALAR_SIZES[-1])
    scalar = scalar_engine.MLP(weights, lr=mlp.LR)
    tensor = mlp.FrameworkMLP(fws["nnref"], weights, xs, ys)
    scalar_losses = [scalar.step(xs, ys.tolist()) for _ in range(2)]
    tensor_losses = [tensor.loss() for _ in range(2)]
    diff = max(abs(a - b) / abs(a) for a, b in zip(scalar_losses, tensor_losses))
    result["scalar_engine"] = {"losses": {"scalar": scalar_losses, "nnref": tensor_losses},
                               "max_rel_loss_diff": diff, "passed": diff <= 1e-4}
    log(f"check small graph grads vs PyTorch: {'ok' if ok else 'MISMATCH'}; scalar engine vs "
        f"nnref loss rel. diff {diff:.1e}")
    from . import cnn
    result["cnn"] = cnn.check_agreement(fws, CNN_BATCHES)
    log("check CNN and conv layer vs PyTorch: " + ("ok" if result["cnn"]["passed"] else "MISMATCH"))
    result["passed"] = bool(result["mlp"]["passed"] and ok and result["scalar_engine"]["passed"]
                            and result["cnn"]["passed"])
    return result


# --------------------------------------------------------------- measures ---
def measure_mlp(fws, cfg, log):
    from . import mlp, timing

    weights = mlp.make_weights()
    out = {}
    for batch in MLP_BATCHES:
        x, y = mlp.make_data(batch)
        objs = mlp.contenders(weights, x, y, fws)
        res = timing.interleaved({name: obj.step for name, obj in objs.items()},
                                 cfg["repeats"], cfg["min_time"], cfg["warmup"])
        out[str(batch)] = res
        log(f"MLP step batch {batch:>3}: " + "  ".join(
            f"{name} {fmt_time(r['median'])} (IQR {fmt_time(r['iqr'])})" for name, r in res.items()))
    return out


def measure_wall(fws, cfg, log):
    """Issue 17's method: wall clock (``time.perf_counter``) whatever ``--clock`` says, the
    contenders interleaved in rounds in this process, medians; one thread each (set at start)."""
    import time

    from . import cnn, mlp, timing

    def timed(contenders):
        return timing.interleaved(contenders, cfg["repeats"], cfg["min_time"], cfg["warmup"],
                                  timer=time.perf_counter)

    def show(what, res):
        log(f"wall clock, {what}: " + "  ".join(f"{n} {fmt_time(r['median'])}" for n, r in res.items()))

    out = {"mlp_step": {}, "cnn_step": {}, "conv_layer": {"batch": CONV_LAYER_BATCH}}
    weights = mlp.make_weights()
    for batch in MLP_BATCHES:
        x, y = mlp.make_data(batch)
        res = out["mlp_step"][str(batch)] = timed(
            {name: obj.step for name, obj in mlp.contenders(weights, x, y, fws).items()})
        show(f"MLP step batch {batch}", res)
    names = [n for n in fws if n != "numpy"]
    for batch in CNN_BATCHES:
        res = out["cnn_step"][str(batch)] = timed(
            {n: cnn.FrameworkCNN(fws[n], batch).step for n in names})
        show(f"CNN step batch {batch}", res)
    layers = {n: cnn.ConvLayer(fws[n], CONV_LAYER_BATCH) for n in names}
    for kind in ("forward", "forward_backward"):
        res = out["conv_layer"][kind] = timed({n: getattr(layer, kind) for n, layer in layers.items()})
        show(f"Conv2d(3, 64, 3) {kind.replace('_', ' + ')}, batch {CONV_LAYER_BATCH}", res)
    return out


def measure_per_op(fws, cfg, log):
    from . import graphs, timing

    steps = {name: graphs.small_graph_step(fw, graphs.small_graph_input(fw))
             for name, fw in fws.items() if name != "numpy"}
    res = timing.interleaved(steps, cfg["repeats"], cfg["min_time"], cfg["warmup"])
    out = {"ops": graphs.SMALL_GRAPH_OPS, "elements": 4, "per_graph": res,
           "us_per_op": {name: r["median"] / graphs.SMALL_GRAPH_OPS * 1e6 for name, r in res.items()}}
    log("per-op overhead (fwd+bwd): " + "  ".join(
        f"{name} {v:.1f} us/op" for name, v in out["us_per_op"].items()))
    return out


def measure_chain_time(fws, cfg, log):
    """Build (forward) and backward of chains, timed separately, interleaved by contender."""
    import gc

    from . import graphs, timing

    names = [n for n in fws if n != "numpy"]
    inputs = {n: graphs.chain_input(fws[n]) for n in names}
    out = {}
    for length in CHAIN_LENGTHS:
        build = {n: [] for n in names}
        backward = {n: [] for n in names}
        for rep in range(cfg["chain_repeats"] + 1):  # the first round is warm-up
            for n in names:
                x = inputs[n]
                gc.collect()
                t0 = timing.clock()
                loss = graphs.chain(x, length)
                t1 = timing.clock()
                loss.backward()
                t2 = timing.clock()
                del loss
                x.grad = None
                if rep:
                    build[n].append(t1 - t0)
                    backward[n].append(t2 - t1)
        out[str(length)] = {n: {"build": timing.summarize(build[n]),
                                "backward": timing.summarize(backward[n])} for n in names}
        log(f"chain of {length:>5} ops: " + "  ".join(
            f"{n} build {fmt_time(out[str(length)][n]['build']['median'])} backward "
            f"{fmt_time(out[str(length)][n]['backward']['median'])}" for n in names))
    return out


def _memory_runs(jobs, repeats, log):
    """Run memory measurements (kind, contender, arg) in fresh subprocesses, two at a time.

    Each child's peak is its own (per-process RSS), so running two side by side
    does not change what is measured; it only halves the wait.
    """
    import statistics
    from concurrent.futures import ThreadPoolExecutor

    from . import memory

    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {job: [pool.submit(memory.measure, *job) for _ in range(repeats)] for job in jobs}
        out = {}
        for job, fs in futures.items():
            runs = [f.result() for f in fs]
            best = dict(runs[0])
            best["peak_delta_bytes"] = statistics.median(r["peak_delta_bytes"] for r in runs)
            best["runs"] = [r["peak_delta_bytes"] for r in runs]
            out[job] = best
            kind, contender, arg = job
            what = (f"{kind.upper()} step batch {arg}" if kind in ("mlp", "cnn")
                    else f"chain of {arg:>5} ops")
            log(f"peak memory {what}, {contender}: {best['peak_delta_bytes'] / 2**20:.2f} MiB")
    return out


def measure_memory(fws, cfg, log):
    """Peak RSS delta of the MLP step (batch 512) and of chains of several lengths."""
    import numpy as np

    chain_names = [n for n in fws if n == "nnref" or (n == "torch" and cfg["torch_chain_memory"])]
    jobs = [("mlp", n, MEMORY_BATCH) for n in fws]
    jobs += [("chain", n, length) for n in chain_names for length in CHAIN_LENGTHS]
    cnn_names = [n for n in fws if n != "numpy"]
    jobs += [("cnn", n, CNN_MEMORY_BATCH) for n in cnn_names]
    runs = _memory_runs(jobs, cfg["memory_repeats"], log)

    peak = {"batch": MEMORY_BATCH, "mlp": {n: runs[("mlp", n, MEMORY_BATCH)] for n in fws},
            "cnn_batch": CNN_MEMORY_BATCH,
            "cnn": {n: runs[("cnn", n, CNN_MEMORY_BATCH)] for n in cnn_names}}
    chain = {}
    for name in chain_names:
        points = {str(k): runs[("chain", name, k)] for k in CHAIN_LENGTHS}
        n = np.array(CHAIN_LENGTHS, dtype=float)
        mem = np.array([points[str(k)]["peak_delta_bytes"] for k in CHAIN_LENGTHS], dtype=float)
        slope, intercept = np.polyfit(n, mem, 1)
        # Growth exponent: peak ~ n**k; k near 1 is linear (a quadratic leak would give 2).
        exponent = float(np.polyfit(np.log(n), np.log(np.maximum(mem, 1.0)), 1)[0])
        chain[name] = {"points": points, "bytes_per_op": float(slope), "intercept_bytes": float(intercept),
                       "growth_exponent": exponent,
                       "bytes_per_op_at": {str(k): float(p / k) for k, p in zip(CHAIN_LENGTHS, mem)}}
        log(f"chain memory {name}: {slope:.0f} bytes/op (slope), growth exponent {exponent:.2f}")
    return peak, chain


def measure_scalar(fws, cfg, log):
    from . import mlp, scalar_engine, timing

    weights = mlp.make_weights(SCALAR_SIZES)
    xs, ys = mlp.make_data(SCALAR_BATCH, (SCALAR_SIZES[0],), SCALAR_SIZES[-1])
    scalar = scalar_engine.MLP(weights, lr=mlp.LR)
    ys_list = ys.tolist()
    steps = {"scalar": lambda: scalar.step(xs, ys_list)}
    for name, fw in fws.items():
        if name != "numpy":
            steps[name] = mlp.FrameworkMLP(fw, weights, xs, ys).step
    res = timing.interleaved(steps, cfg["scalar_repeats"], cfg["min_time"], cfg["warmup"])
    out = {"sizes": list(SCALAR_SIZES), "batch": SCALAR_BATCH, "step": res,
           "speedup": {name: res["scalar"]["median"] / r["median"]
                       for name, r in res.items() if name != "scalar"}}
    log("scalar engine vs tensors (MLP " + "-".join(map(str, SCALAR_SIZES)) +
        f", batch {SCALAR_BATCH}): " + "  ".join(f"{n} {fmt_time(r['median'])}" for n, r in res.items()) +
        "; tensor autograd is " + ", ".join(f"{n} {v:.0f}x" for n, v in out["speedup"].items()) + " faster")
    return out


# ------------------------------------------------------------------- meta ---
def metadata(fws, threads, mode):
    import datetime
    import platform
    import subprocess

    import numpy as np

    import nnref

    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    meta = {
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "mode": mode, "threads": threads, "cpu": cpu, "cpu_count": os.cpu_count(),
        "platform": platform.platform(), "python": platform.python_version(),
        "numpy": np.__version__, "nnref": getattr(nnref, "__version__", "?"),
        "nnref_path": os.path.dirname(os.path.abspath(nnref.__file__)),
        "torch": fws["torch"].__version__ if "torch" in fws else None,
        "thread_env": {v: os.environ.get(v) for v in THREAD_VARS},
        # Other work on the machine makes timings noisier (interleaving keeps the ratios fair).
        "load_average_start": _loadavg(),
        "niceness": os.nice(0) if hasattr(os, "nice") else None,
    }
    try:
        blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        meta["numpy_blas"] = {k: blas.get(k) for k in ("name", "version", "openblas configuration")}
    except Exception as exc:  # older numpy: no dict mode
        meta["numpy_blas"] = repr(exc)
    try:
        from threadpoolctl import threadpool_info
        meta["threadpools"] = [{k: p.get(k) for k in ("user_api", "internal_api", "num_threads",
                                                        "version", "filepath")}
                               for p in threadpool_info()]
    except ImportError:
        pass
    if "torch" in fws:
        torch = fws["torch"]
        meta["torch_threads"] = torch.get_num_threads()
        meta["torch_blas"] = {"mkl": torch.backends.mkl.is_available(),
                              "mkldnn": torch.backends.mkldnn.is_available()}
    try:
        meta["git_commit"] = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                            capture_output=True, text=True).stdout.strip() or None
        # Uncommitted changes under nnref/ mean the numbers belong to no commit exactly.
        meta["nnref_uncommitted_changes"] = bool(subprocess.run(
            ["git", "status", "--porcelain", "--", "nnref"], cwd=ROOT, capture_output=True,
            text=True).stdout.strip())
    except OSError:
        meta["git_commit"] = None
    return meta


def _loadavg():
    try:
        return [round(v, 2) for v in os.getloadavg()]
    except (OSError, AttributeError):
        return None


# ---------------------------------------------------------------- profile ---
def profile(fws, out_dir, log):
    import cProfile
    import io
    import pstats

    from . import mlp, timing

    weights = mlp.make_weights()
    texts = []
    for batch, steps in ((64, 60), (1, 1500)):
        x, y = mlp.make_data(batch)
        obj = mlp.FrameworkMLP(fws["nnref"], weights, x, y)
        ref = mlp.NumpyMLP(weights, x, y)
        # Unprofiled times first: the profiler itself slows Python code down a lot.
        plain = timing.interleaved({"nnref": obj.step, "numpy": ref.step}, 5, 0.05, 0.1)
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(steps):
            obj.step()
        prof.disable()
        stream = io.StringIO()
        stats = pstats.Stats(prof, stream=stream)
        total = stats.total_tt
        t_nnref, t_numpy = plain["nnref"]["median"], plain["numpy"]["median"]
        stream.write(
            f"\n=== nnref MLP step, batch {batch} ===\n"
            f"without the profiler: nnref {fmt_time(t_nnref)}, hand-written numpy {fmt_time(t_numpy)} "
            f"per step; nnref's extra cost {fmt_time(t_nnref - t_numpy)} "
            f"({(t_nnref - t_numpy) / t_nnref * 100:.0f}% of its step)\n"
            f"under cProfile: {steps} steps, {fmt_time(total / steps)} per step\n"
            "(numpy work reached through operators such as @, + and * counts as the own time of the\n"
            " Python function that uses them, e.g. the matmuls inside nnref's mm/addmm)\n\n")
        stream.write(_by_area(stats, total))
        stats.sort_stats("tottime").print_stats(25)
        texts.append(stream.getvalue())
        print(stream.getvalue(), flush=True)
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "profile.txt")
    with open(path, "w") as f:
        f.write("".join(texts))
    log(f"wrote {path}")


def _by_area(stats, total):
    """Own time grouped: numpy's C functions, the engine, the ops, nn, optim, other Python."""
    areas = {}
    for (filename, _, name), (_, _, tottime, _, _) in stats.stats.items():
        path = filename.replace("\\", "/")
        if filename == "~":
            area = "numpy/C builtins" if "numpy" in name or "ndarray" in name else "Python builtins"
        elif "/nnref/autograd/" in path:
            area = "nnref autograd engine/graph"
        elif "/nnref/_ops/" in path:
            area = "nnref ops (_ops/)"
        elif "/nnref/nn/" in path:
            area = "nnref nn (modules, functional)"
        elif "/nnref/optim/" in path:
            area = "nnref optim"
        elif "/nnref/" in path:
            area = "nnref tensor/other"
        elif "numpy" in path:
            area = "numpy Python code"
        else:
            area = "other Python"
        areas[area] = areas.get(area, 0.0) + tottime
    lines = ["own time by area:\n"]
    for area, t in sorted(areas.items(), key=lambda kv: -kv[1]):
        lines.append(f"  {area:<34} {t / total * 100:5.1f}%\n")
    return "".join(lines) + "\n"


# ------------------------------------------------------------------- main ---
def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    if args.threads < 1:
        sys.exit("bench: --threads must be at least 1")
    pin_threads(args.threads, argv)

    log = Progress()
    check_nn_available()
    fws = frameworks(args.no_torch)
    mode = "quick" if args.quick else "full"
    cfg = dict(CONFIGS[mode])
    # With one thread, process CPU time is the work's own time even when other
    # processes compete for the cores; with more threads it would add them up.
    cfg["clock"] = args.clock if args.clock != "auto" else ("cpu" if args.threads == 1 else "wall")
    from . import timing
    timing.use_clock(cfg["clock"])
    out_dir = os.path.abspath(args.out)
    log(f"bench: {mode} mode, {args.threads} thread(s), {cfg['clock']} clock, "
        f"contenders: {', '.join(fws)}")

    if args.profile:
        profile(fws, out_dir, log)
        return 0

    from . import report

    checks = correctness(fws, log)
    if not checks["passed"]:
        import json
        print(json.dumps(checks, indent=2, default=float), file=sys.stderr)
        print("bench: the implementations disagree (see above); refusing to report timings",
              file=sys.stderr)
        return 2

    results = {"meta": metadata(fws, args.threads, mode), "config": cfg, "correctness": checks,
               "measures": {}}
    m = results["measures"]
    m["mlp_step"] = measure_mlp(fws, cfg, log)
    m["per_op_overhead"] = measure_per_op(fws, cfg, log)
    m["chain"] = {"lengths": list(CHAIN_LENGTHS), "time": measure_chain_time(fws, cfg, log)}
    m["scalar_engine"] = measure_scalar(fws, cfg, log)
    m["wall"] = measure_wall(fws, cfg, log)
    # Memory last: fresh subprocesses, no timing running beside them.
    m["peak_memory"], m["chain"]["memory"] = measure_memory(fws, cfg, log)
    results["meta"]["wall_seconds"] = round(log.elapsed(), 1)
    results["meta"]["load_average_end"] = _loadavg()

    report.finish(results, out_dir)
    print()
    print(report.text_table(results))
    log(f"wrote {', '.join(report.OUTPUT_FILES)} to {out_dir}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
