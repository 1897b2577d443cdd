"""Peak memory (resident set size) of one workload, each in a fresh subprocess.

``python -m bench.memory mlp CONTENDER BATCH``, ``... cnn CONTENDER BATCH`` or ``... chain CONTENDER N``
prints one JSON object.  In the child, a tiny warm-up run first loads every
code path (so lazily loaded library pages are not counted); then the model and
data are built, the baseline is taken, the workload runs, and the result is
``peak RSS - baseline``: the extra memory the workload needed.

On Linux the peak is the kernel's high-water mark ``VmHWM``, reset to the
current RSS just before the workload by writing ``5`` to
``/proc/self/clear_refs``.  Where that is not possible it falls back to
``ru_maxrss`` (approximate: an earlier, higher peak would hide the workload's).
"""
import gc
import importlib
import json
import os
import re
import subprocess
import sys

STEPS = 3  # MLP steps per measurement: the first allocates .grad / buffers, later ones reuse


def _status_kib(field):
    with open("/proc/self/status") as f:
        match = re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.M)
    return int(match.group(1)) * 1024 if match else None


def reset_peak():
    """Reset the peak to the current RSS; return (baseline bytes, method)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return _status_kib("VmRSS"), "VmHWM after clear_refs"
    except OSError:
        pass
    import resource
    rss = _status_kib("VmRSS") if os.path.exists("/proc/self/status") else None
    if rss is None:  # no /proc (macOS): the peak so far is the best baseline we have
        scale = 1 if sys.platform == "darwin" else 1024
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale
    return rss, "ru_maxrss (approximate)"


def read_peak():
    if os.path.exists("/proc/self/status"):
        peak = _status_kib("VmHWM")
        if peak is not None:
            return peak
    import resource
    scale = 1 if sys.platform == "darwin" else 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _framework(name):
    if name == "numpy":
        import numpy
        return numpy
    fw = importlib.import_module(name)
    if name == "torch":
        fw.set_num_threads(int(os.environ.get("BENCH_THREADS", "1")))
    return fw


def _release_free_memory():
    """Hand freed heap memory back to the OS (glibc), so the workload cannot reuse it unseen."""
    try:
        import ctypes
        ctypes.CDLL(None).malloc_trim(0)
        return True
    except (OSError, AttributeError):
        return False


def _measure(run):
    gc.collect()
    _release_free_memory()
    baseline, method = reset_peak()
    run()
    peak = read_peak()
    return {"peak_delta_bytes": max(peak - baseline, 0), "baseline_bytes": baseline,
            "peak_bytes": peak, "method": method}


def child_mlp(contender, batch):
    from . import mlp
    fw = _framework(contender)
    frameworks = {contender: fw}

    # Warm-up on a tiny network with the same layers and loss: loads code, leaves little behind.
    tiny_w = mlp.make_weights((16, 8, 8, 4))
    tiny_x, tiny_y = mlp.make_data(2, (1, 4, 4), 4)
    tiny = mlp.contenders(tiny_w, tiny_x, tiny_y, frameworks)[contender]
    for _ in range(2):
        tiny.step()
    del tiny, tiny_w, tiny_x, tiny_y

    weights = mlp.make_weights()
    x, y = mlp.make_data(batch)
    obj = mlp.contenders(weights, x, y, frameworks)[contender]
    del weights, x, y  # the model holds its own copy now

    def run():
        for _ in range(STEPS):
            obj.step()
    result = _measure(run)
    result.update(kind="mlp", contender=contender, batch=batch, steps=STEPS)
    if contender == "numpy":
        result["workspace_bytes"] = obj.workspace_bytes()
    return result


def child_cnn(contender, batch):
    from . import cnn
    fw = _framework(contender)
    tiny = cnn.FrameworkCNN(fw, 1)  # warm-up: loads every code path of the step
    for _ in range(2):
        tiny.step()
    del tiny
    obj = cnn.FrameworkCNN(fw, batch)

    def run():
        for _ in range(STEPS):
            obj.step()
    result = _measure(run)
    result.update(kind="cnn", contender=contender, batch=batch, steps=STEPS)
    return result


def child_chain(contender, n):
    from . import graphs
    fw = _framework(contender)
    x = graphs.chain_input(fw)
    graphs.chain(x, 30).backward()  # warm-up
    x.grad = None

    def run():
        graphs.chain(x, n).backward()
    result = _measure(run)
    result.update(kind="chain", contender=contender, n=n, width=graphs.CHAIN_WIDTH)
    return result


def measure(kind, contender, arg, timeout=600):
    """Run one measurement in a fresh interpreter (same environment: thread count included)."""
    proc = subprocess.run([sys.executable, "-m", "bench.memory", kind, contender, str(arg)],
                          capture_output=True, text=True, timeout=timeout,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if proc.returncode != 0:
        raise RuntimeError(f"memory measurement {kind} {contender} {arg} failed:\n{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv):
    kind, contender, arg = argv
    child = {"mlp": child_mlp, "cnn": child_cnn, "chain": child_chain}[kind]
    result = child(contender, int(arg))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
