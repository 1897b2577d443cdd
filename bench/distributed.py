"""Two processes: ``all_reduce`` of 1, 10 and 100 MB, and one DDP step of the course's MLP,
nnref over MPI side by side with PyTorch over gloo (127.0.0.1), in one run.

``python -m bench.distributed`` starts 2 PyTorch ranks (one subprocess each, gloo) and 2 nnref
ranks (``python -m nnref.distributed.run -n 2``); each runs :func:`worker`, which times on every
rank at once (a barrier before each repeat) and lets rank 0 write its medians.  The DDP step is
``Flatten, Linear(784, 512), ReLU, Linear(512, 512), ReLU, Linear(512, 10)``, cross entropy and
SGD, batch 64 per rank (forward, backward with the bucketed all-reduce, ``step``,
``zero_grad``), and the same step of the bare model on each rank (what DDP adds is the difference).  Results: ``bench/results/distributed.json`` and ``distributed.md``.
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
SIZES_MB = (1, 10, 100)


def _median_time(call, repeats, barrier):
    times = []
    for _ in range(repeats):
        barrier()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def worker(library, out):
    """One rank: time the all-reduces and the DDP steps; rank 0 writes ``out``."""
    import importlib
    torch = importlib.import_module(library)
    dist = importlib.import_module(f"{library}.distributed")
    nn = torch.nn
    if library == "torch":
        dist.init_process_group("gloo")
    else:
        dist.init_process_group("mpi")
    rank = dist.get_rank()
    results = {"library": library, "world_size": dist.get_world_size()}
    for mb in SIZES_MB:
        t = torch.ones(mb * 1024 * 1024 // 4)
        dist.all_reduce(t)  # warm-up: connections, buffers
        results[f"all_reduce {mb} MB"] = _median_time(lambda: dist.all_reduce(t), 15 if mb < 100 else 7,
                                                      dist.barrier)
    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                          nn.Linear(512, 10))
    generator = torch.Generator().manual_seed(rank)
    x, y = torch.randn(64, 1, 28, 28, generator=generator), torch.randint(0, 10, (64,), generator=generator)

    def training_step(net):
        optimizer = torch.optim.SGD(net.parameters(), lr=0.01)

        def step():
            loss = nn.functional.cross_entropy(net(x), y)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        for _ in range(5):
            step()  # warm-up (for DDP also the bucket rebuild after the first step)
        return step

    # The same step without DDP, on every rank at once: what DDP adds is the difference.
    results["MLP step without DDP"] = _median_time(training_step(model), 40, dist.barrier)
    results["DDP MLP step"] = _median_time(training_step(nn.parallel.DistributedDataParallel(model)), 40,
                                           dist.barrier)
    if rank == 0:
        Path(out).write_text(json.dumps(results))
    dist.destroy_process_group()


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run_torch(out):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1", MASTER_ADDR="127.0.0.1",
               MASTER_PORT=str(_free_port()), WORLD_SIZE="2", GLOO_SOCKET_IFNAME="lo")
    ranks = [subprocess.Popen([sys.executable, "-m", "bench.distributed", "--worker", "torch", out],
                              env=dict(env, RANK=str(r)), cwd=ROOT) for r in range(2)]
    if any(p.wait(timeout=600) for p in ranks):
        raise SystemExit("a PyTorch rank failed")


def _run_nnref(out):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS="1")
    subprocess.run([sys.executable, "-m", "nnref.distributed.run", "-n", "2", "--timeout", "600",
                    str(ROOT / "bench" / "distributed.py"), "--worker", "nnref", out],
                   env=env, cwd=ROOT, check=True)


def _best(runs):
    """Per measure, the smallest of the runs' medians (the machine is shared: other work only
    ever adds time)."""
    return {name: (min(run[name] for run in runs) if isinstance(runs[0][name], float) else runs[0][name])
            for name in runs[0]}


def main(rounds=3):
    """``rounds`` alternating runs (PyTorch, nnref, PyTorch, nnref, ...), so that a change in
    the machine's load hits both libraries."""
    torch_runs, nnref_runs = [], []
    with tempfile.TemporaryDirectory() as folder:
        for r in range(rounds):
            theirs, ours = f"{folder}/torch{r}.json", f"{folder}/nnref{r}.json"
            _run_torch(theirs)
            _run_nnref(ours)
            torch_runs.append(json.loads(Path(theirs).read_text()))
            nnref_runs.append(json.loads(Path(ours).read_text()))
    load = os.getloadavg()[0]
    torch_results, nnref_results = _best(torch_runs), _best(nnref_runs)
    rows = [(name, nnref_results[name], torch_results[name]) for name in torch_results
            if name not in ("library", "world_size")]
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "distributed.json").write_text(json.dumps(
        {"processes": 2, "rounds": rounds, "load average at the end": load, "nnref (MPI)": nnref_results,
         "torch (gloo)": torch_results}, indent=2) + "\n")
    lines = ["# Two processes: nnref over MPI vs PyTorch over gloo", "",
             f"Wall time per call, 2 ranks on this machine ({os.cpu_count()} CPUs, one thread per rank): "
             f"the median of the repeats of a run, the best of {rounds} alternating runs per library "
             f"(`python -m bench.distributed`); load average (1 min) at the end {load:.2f}. The step is "
             "forward, backward with the bucketed all-reduce, `step()`, `zero_grad()`, batch 64 per rank; "
             "the step without DDP runs the same on each rank with no communication, so the difference "
             "between the two rows is what DDP adds.", "",
             "| Measure | nnref (MPI) | PyTorch (gloo) | nnref / PyTorch |", "| --- | --- | --- | --- |"]
    lines += [f"| {name} | {ours * 1e3:.2f} ms | {theirs * 1e3:.2f} ms | {ours / theirs:.2f}x |"
              for name, ours, theirs in rows]
    added = {name: results["DDP MLP step"] - results["MLP step without DDP"]
             for name, results in (("nnref", nnref_results), ("PyTorch", torch_results))}
    lines += ["", f"What DDP adds to the step (the DDP step minus the step without DDP): nnref "
              f"{added['nnref'] * 1e3:.2f} ms, PyTorch {added['PyTorch'] * 1e3:.2f} ms. On a loaded machine "
              "both rows grow and vary from run to run (the load average is given above)."]
    (RESULTS / "distributed.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        sys.path.insert(0, str(ROOT))
        worker(sys.argv[2], sys.argv[3])
    else:
        main()
