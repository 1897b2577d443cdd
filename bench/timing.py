"""Interleaved, calibrated wall-clock timing (A B C A B C ...).

Each contender is a zero-argument callable doing one unit of work (one
training step, one forward+backward).  After warm-up, each is calibrated once
to a fixed number of calls per *sample* (so a sample lasts at least
``min_time`` seconds); then samples are taken round-robin, so slow drifts of
the machine (frequency scaling, a noisy neighbour) hit every contender alike.
The garbage collector stays on (training loops run with it on), but is run
before each sample so no contender pays for another's garbage.
"""
import gc
import statistics
import time

CLOCKS = {
    # Wall-clock time: what a user waits for, but it also counts the time other
    # processes on a busy machine take the CPU away.
    "wall": time.perf_counter,
    # CPU time of this process (user + system, all its threads): with one thread,
    # the time the work itself took, whatever else the machine is doing.
    "cpu": time.process_time,
}
clock = CLOCKS["wall"]


def use_clock(name):
    """Select the clock every measurement uses (``"wall"`` or ``"cpu"``)."""
    global clock
    clock = CLOCKS[name]


def _run(fn, n, timer=None):
    timer = timer or clock
    t0 = timer()
    for _ in range(n):
        fn()
    return timer() - t0


def warm_up(fn, min_calls=3, min_time=0.05):
    """Call ``fn`` at least ``min_calls`` times and for at least ``min_time`` seconds."""
    t0 = clock()
    calls = 0
    while calls < min_calls or clock() - t0 < min_time:
        fn()
        calls += 1


def calibrate(fn, min_time, timer=None):
    """Smallest-ish number of calls whose total lasts at least ``min_time`` seconds."""
    n = 1
    while True:
        dt = _run(fn, n, timer)
        if dt >= min_time:
            return n
        # Aim 20% past the target, but never more than 10x in one jump.
        n = max(n + 1, min(n * 10, int(n * 1.2 * min_time / max(dt, 1e-9))))


def summarize(per_call):
    """Median and quartiles of per-call times (seconds)."""
    xs = sorted(per_call)
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = xs[0]
    return {"median": statistics.median(xs), "q1": q1, "q3": q3, "iqr": q3 - q1,
            "min": xs[0], "max": xs[-1], "samples": per_call}


def interleaved(contenders, repeats, min_time, warmup_time=0.05, timer=None):
    """Time ``contenders`` (name -> callable) round-robin; return name -> summary (seconds/call).

    ``timer`` overrides the clock chosen with :func:`use_clock` (e.g. ``time.perf_counter``).
    """
    for fn in contenders.values():
        warm_up(fn, min_time=warmup_time)
    calls = {name: calibrate(fn, min_time, timer) for name, fn in contenders.items()}
    samples = {name: [] for name in contenders}
    for _ in range(repeats):
        for name, fn in contenders.items():
            gc.collect()  # start every sample with no garbage left by the previous contender
            samples[name].append(_run(fn, calls[name], timer) / calls[name])
    out = {}
    for name in contenders:
        out[name] = summarize(samples[name])
        out[name]["calls_per_sample"] = calls[name]
        out[name]["repeats"] = repeats
    return out
