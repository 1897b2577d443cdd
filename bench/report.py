"""Turn the measurements into ratios, a table (text and Markdown), ``results.json`` and a bar chart."""
import json
import math
import os

OUTPUT_FILES = ("results.json", "results.md", "findings.md", "chart.png")
CONTENDER_LABELS = {"nnref": "nnref", "numpy": "numpy (hand-written)", "torch": "PyTorch",
                    "scalar": "scalar engine"}
COLORS = {"nnref": "#d62728", "numpy": "#1f77b4", "torch": "#ff7f0e", "scalar": "#7f7f7f"}

# Targets: (ratio key, limit).  A row meets its target when every ratio it names is <= its limit.
TARGETS = {
    "mlp_step_b1": [("nnref/torch", 2.5)],
    "mlp_step_b64": [("nnref/numpy", 1.15), ("nnref/torch", 1.0)],
    "mlp_step_b512": [("nnref/numpy", 1.15), ("nnref/torch", 1.0)],
    "per_op_overhead": [("nnref/torch", 3.0)],
    "peak_memory_b512": [("nnref/numpy", 1.3)],
    # Issue 17's targets, for its method (wall clock, interleaved in one process).
    "wall_mlp_step_b1": [("nnref/torch", 1.2)],
    "wall_mlp_step_b64": [("nnref/numpy", 1.15), ("nnref/torch", 1.0)],
    "wall_mlp_step_b512": [("nnref/numpy", 1.15), ("nnref/torch", 1.0)],
    "wall_cnn_step_b8": [("nnref/torch", 1.3)],
    "wall_cnn_step_b64": [("nnref/torch", 1.3)],
    "wall_conv_forward": [("nnref/torch", 1.3)],
    "wall_conv_forward_backward": [("nnref/torch", 1.3)],
    "peak_memory_cnn_b64": [("nnref/torch", 1.5)],
}
LINEAR_EXPONENT = (0.8, 1.2)  # peak ~ length**k with k in this range counts as linear


def _ratio(a, b):
    return a / b if a is not None and b not in (None, 0) else None


def _paired(res):
    """Median over rounds of the per-round ratio (samples of one round ran back to back).

    A cross-check on the ratio of medians that is robust to load changing
    between rounds; kept in the JSON only.
    """
    import statistics
    out = {}
    for other in ("numpy", "torch"):
        if "nnref" in res and other in res:
            pairs = zip(res["nnref"]["samples"], res[other]["samples"])
            out[f"nnref/{other}"] = statistics.median(a / b for a, b in pairs)
    return out


def compute(results):
    """Add ``results["ratios"]`` and ``results["table"]`` (one dict per row)."""
    m = results["measures"]
    rows = []

    def row(key, measure, unit, values, extra=None):
        ratios = {"nnref/numpy": _ratio(values.get("nnref"), values.get("numpy")),
                  "nnref/torch": _ratio(values.get("nnref"), values.get("torch"))}
        targets = TARGETS.get(key)
        if targets:
            target = ", ".join(f"{r.replace('torch', 'PyTorch')} <= {lim:g}" for r, lim in targets)
            if any(ratios[r] is None for r, _ in targets):
                met = None
            else:
                met = all(ratios[r] <= lim for r, lim in targets)
        else:
            target, met = None, None
        entry = {"key": key, "measure": measure, "unit": unit, "values": values, "ratios": ratios,
                 "target": target, "met": met}
        entry.update(extra or {})
        rows.append(entry)
        return entry

    for batch, res in m["mlp_step"].items():
        r = row(f"mlp_step_b{batch}", f"MLP SGD step, batch {batch}", "ms",
                {n: r["median"] * 1e3 for n, r in res.items()})
        r["paired_ratios"] = _paired(res)
    per_op = m["per_op_overhead"]
    r = row("per_op_overhead", f"Per-op overhead, fwd+bwd ({per_op['ops']} ops on {per_op['elements']} elements)",
        "us/op", dict(per_op["us_per_op"]))
    r["paired_ratios"] = _paired(per_op["per_graph"])

    chain = m["chain"]
    longest = str(max(chain["lengths"]))
    chain_row = row(f"chain_backward_{longest}", f"Backward through a chain of {int(longest):,} ops", "ms",
                    {n: t["backward"]["median"] * 1e3 for n, t in chain["time"][longest].items()})
    chain_row["target"] = "completes"
    chain_row["met"] = all(n in chain["time"][longest] for n in ("nnref",))
    mem = chain.get("memory", {})
    if mem:
        lo, hi = LINEAR_EXPONENT
        linear = row("chain_memory", "Chain peak memory per op (slope over "
                     + "/".join(str(k) for k in chain["lengths"]) + " ops)", "bytes/op",
                     {n: v["bytes_per_op"] for n, v in mem.items()},
                     {"growth_exponent": {n: v["growth_exponent"] for n, v in mem.items()}})
        exponent = mem["nnref"]["growth_exponent"]
        linear["target"] = f"linear in length (peak ~ n^k, k = {exponent:.2f})"
        linear["met"] = lo <= exponent <= hi

    peak = m["peak_memory"]
    row(f"peak_memory_b{peak['batch']}", f"Peak memory (RSS delta) of the MLP step, batch {peak['batch']}",
        "MiB", {n: v["peak_delta_bytes"] / 2**20 for n, v in peak["mlp"].items()})

    scalar = m["scalar_engine"]
    values = {n: r["median"] * 1e3 for n, r in scalar["step"].items()}
    sizes = "-".join(str(s) for s in scalar["sizes"])
    srow = row("scalar_engine", f"Scalar (micrograd-style) engine vs tensors: MLP {sizes}, batch "
               f"{scalar['batch']}", "ms", values)
    srow["target"] = ("info: tensor autograd " + ", ".join(
        f"{CONTENDER_LABELS[n]} {v:,.0f}x" for n, v in scalar["speedup"].items()) + " faster")

    wall = m.get("wall")
    if wall:
        for batch, res in wall["mlp_step"].items():
            r = row(f"wall_mlp_step_b{batch}", f"MLP SGD step, batch {batch}", "ms",
                    {n: r["median"] * 1e3 for n, r in res.items()})
            r["paired_ratios"] = _paired(res)
        for batch, res in wall["cnn_step"].items():
            r = row(f"wall_cnn_step_b{batch}", f"CNN SGD step (seed note 002), batch {batch}", "ms",
                    {n: r["median"] * 1e3 for n, r in res.items()})
            r["paired_ratios"] = _paired(res)
        layer = wall["conv_layer"]
        for kind in ("forward", "forward_backward"):
            r = row(f"wall_conv_{kind}", f"Conv2d(3, 64, 3, padding=1) {kind.replace('_', ' + ')}, "
                    f"batch {layer['batch']}", "ms", {n: r["median"] * 1e3 for n, r in layer[kind].items()})
            r["paired_ratios"] = _paired(layer[kind])
        if peak.get("cnn"):
            row(f"peak_memory_cnn_b{peak['cnn_batch']}", f"Peak memory (RSS delta) of the CNN step, batch "
                f"{peak['cnn_batch']}", "MiB", {n: v["peak_delta_bytes"] / 2**20 for n, v in peak["cnn"].items()})
        for r in rows:
            r["method"] = "wall" if r["key"].startswith("wall_") or r["key"].startswith("peak_memory_cnn") \
                else "default"

    results["table"] = rows
    results["ratios"] = {r["key"]: {k: v for k, v in r["ratios"].items() if v is not None} for r in rows}
    results["ratios"]["scalar_engine"]["scalar/nnref"] = scalar["speedup"]["nnref"]
    results["targets_met"] = {r["key"]: r["met"] for r in rows if r["met"] is not None}
    return results


# ------------------------------------------------------------------ text ---
def _num(v, unit=""):
    if v is None:
        return "-"
    if unit == "bytes/op" or abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    if abs(v) >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def _ratio_str(v):
    return "-" if v is None else f"{v:.2f}"


def _met_str(met):
    return {True: "yes", False: "no", None: "-"}[met]


HEADER = ["Measure", "Unit", "nnref", "numpy", "PyTorch", "scalar", "nnref/numpy", "nnref/PyTorch",
          "Target", "Met?"]


def _cells(r):
    v = r["values"]
    return [r["measure"], r["unit"], _num(v.get("nnref"), r["unit"]), _num(v.get("numpy"), r["unit"]),
            _num(v.get("torch"), r["unit"]), _num(v.get("scalar"), r["unit"]),
            _ratio_str(r["ratios"]["nnref/numpy"]), _ratio_str(r["ratios"]["nnref/torch"]),
            r["target"] or "-", _met_str(r["met"])]


def text_table(results):
    rows = [HEADER] + [_cells(r) for r in results["table"]]
    widths = [max(len(row[i]) for row in rows) for i in range(len(HEADER))]
    lines = []
    for k, row in enumerate(rows):
        lines.append("  ".join(c.ljust(w) if i in (0, 1, 8) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths))
    meta = results["meta"]
    lines.append("")
    lines.append(f"{meta['mode']} run, {meta['threads']} thread(s), {results['config'].get('clock', 'wall')} clock, {meta['cpu']}, numpy {meta['numpy']}"
                 f", torch {meta['torch'] or 'not measured'}, {meta['date']}")
    return "\n".join(lines)


def _markdown_table(rows):
    """The rows as a Markdown table narrow enough for the site's text column: the unit goes
    with the measure's name, a column that is "-" in every row is left out, and the long
    names can wrap ("nnref ÷ numpy" for "nnref/numpy", a zero-width space after other slashes)."""
    def wrappable(text):
        return text.replace("nnref/", "nnref ÷ ").replace("/", "/\u200b").replace("<=", "≤")

    header = ["Measure"] + HEADER[2:]
    align = ["---"] + ["---:"] * 6 + ["---", ":---:"]
    cells = [[f"{c[0]} ({c[1]})"] + c[2:] for c in (_cells(r) for r in rows)]
    keep = [i for i in range(len(header)) if i == 0 or any(row[i] != "-" for row in cells)]
    lines = ["| " + " | ".join(wrappable(header[i]) for i in keep) + " |",
             "|" + "|".join(align[i] for i in keep) + "|"]
    lines += ["| " + " | ".join(wrappable(row[i]).replace("|", "\\|") for i in keep) + " |" for row in cells]
    return lines + [""]


def _target_lines(rows):
    """One bullet per row with a target: measured ratios, the target, met or not (all generated)."""
    lines = []
    for r in rows:
        if r["met"] is None:
            continue
        method = " (wall clock)" if r.get("method") == "wall" and r["unit"] == "ms" else ""
        ratios = ", ".join(f"{k.replace('torch', 'PyTorch')} {v:.2f}" for k, v in r["ratios"].items()
                           if v is not None)
        lines.append(f"- **{'met' if r['met'] else 'not met'}**: {r['measure']}{method}: "
                     f"{ratios or r['target']} (target: {r['target']}).")
    return lines


def markdown(results):
    meta = results["meta"]
    cfg = results["config"]
    out = ["# nnref benchmark results", ""]
    out.append(f"{meta['mode'].capitalize()} run on {meta['date']}: {meta['cpu']} "
               f"({meta['cpu_count']} cores), **{meta['threads']} thread(s) for every contender**, "
               f"Python {meta['python']}, numpy {meta['numpy']}"
               + (f" ({meta['numpy_blas'].get('name')} {meta['numpy_blas'].get('version')})"
                  if isinstance(meta.get("numpy_blas"), dict) else "")
               + f", PyTorch {meta['torch'] or 'not measured'}, nnref {meta['nnref']}"
               + (f" (commit {meta['git_commit']}"
                  + (", with uncommitted changes under nnref/" if meta.get("nnref_uncommitted_changes") else "")
                  + ")" if meta.get("git_commit") else "") + ".")
    out.append("")
    clock = {"cpu": "process CPU time (one thread, so other processes on the machine do not count)",
             "wall": "wall-clock time"}.get(cfg.get("clock", "wall"))
    out.append(f"Times are {clock}: medians of {cfg['repeats']} interleaved samples (chains: {cfg['chain_repeats']}, "
               f"scalar engine: {cfg['scalar_repeats']}), each sample at least {cfg['min_time'] * 1e3:.0f} ms "
               f"long, after warm-up. Memory is the peak RSS above the baseline taken after the model "
               f"and data are built, in a fresh process per contender (median of "
               f"{cfg['memory_repeats']}). Before timing, all MLP implementations agreed on two "
               f"consecutive losses within {results['correctness']['mlp']['rtol']:g} (relative)."
               + (f" Load average at the start: {meta['load_average_start'][0]:.2f}."
                  if meta.get("load_average_start") else ""))
    out.append("")
    wall_rows = [r for r in results["table"] if r.get("method") == "wall"]
    default_rows = [r for r in results["table"] if r.get("method") != "wall"]
    if wall_rows:
        out += ["## Wall clock, interleaved in one process (issue 17's method)", "",
                "Wall-clock time (`time.perf_counter`) whatever the clock above, one thread for every "
                "contender, the contenders interleaved in rounds in one process, medians of "
                f"{cfg['repeats']} rounds. On a machine shared with other work these figures are "
                "noisier than the CPU-time ones; the ratios stay fair because every round runs all "
                "contenders back to back. The CNN's peak memory is measured as above, in fresh processes."
                + (f" Load average (1 min) at the start and end of the run: "
                   f"{meta['load_average_start'][0]:.2f} and {meta['load_average_end'][0]:.2f} on "
                   f"{meta['cpu_count']} cores." if meta.get("load_average_start") and meta.get("load_average_end")
                   else ""),
                ""]
        out += _markdown_table(wall_rows)
        out += ["## Process CPU time and the other measures", ""]
    out += _markdown_table(default_rows)
    out += ["## Targets", ""] + _target_lines(results["table"]) + [""]

    mlp = results["measures"]["mlp_step"]
    out += ["## MLP step: median and interquartile range", "",
            "| Batch | Contender | Median | IQR | Steps per sample |", "|---:|---|---:|---:|---:|"]
    for batch, res in mlp.items():
        for n, r in res.items():
            out.append(f"| {batch} | {CONTENDER_LABELS[n]} | {r['median'] * 1e3:.3f} ms | "
                       f"{r['iqr'] * 1e3:.3f} ms | {r['calls_per_sample']} |")
    out.append("")
    paired = [(r["measure"] + (" (wall clock)" if r.get("method") == "wall" else ""), r["paired_ratios"])
              for r in results["table"] if r.get("paired_ratios")]
    if paired:
        out.append("Cross-check, the median over rounds of each round's ratio (robust to the load "
                   "changing between rounds): " + "; ".join(
                       f"{measure}: " + ", ".join(f"{k.replace('torch', 'PyTorch')} {v:.2f}"
                                                  for k, v in ratios.items())
                       for measure, ratios in paired) + ".")
        out.append("")

    chain = results["measures"]["chain"]
    out += ["## Chain of elementwise ops", "",
            "Each op is `* 1.01`, `+ 0.01` or `tanh` (cycling) on a 256-element float32 tensor.", "",
            "| Length | Contender | Build (forward) | Backward | Peak memory | Bytes per op |",
            "|---:|---|---:|---:|---:|---:|"]
    for length in chain["lengths"]:
        for n, t in chain["time"][str(length)].items():
            mem = chain.get("memory", {}).get(n, {}).get("points", {}).get(str(length))
            peak = f"{mem['peak_delta_bytes'] / 2**20:.2f} MiB" if mem else "-"
            per_op = f"{mem['peak_delta_bytes'] / length:,.0f}" if mem else "-"
            out.append(f"| {length:,} | {CONTENDER_LABELS[n]} | {t['build']['median'] * 1e3:.1f} ms | "
                       f"{t['backward']['median'] * 1e3:.1f} ms | {peak} | {per_op} |")
    out.append("")
    for n, mem in chain.get("memory", {}).items():
        out.append(f"- {CONTENDER_LABELS[n]}: {mem['bytes_per_op']:,.0f} bytes per op (slope), "
                   f"growth exponent {mem['growth_exponent']:.2f} (1 = linear).")
    out.append("")

    peak = results["measures"]["peak_memory"]
    numpy_ws = peak["mlp"].get("numpy", {}).get("workspace_bytes")
    if numpy_ws:
        out.append(f"The hand-written numpy step's own buffers (activations, masks, gradients) take "
                   f"{numpy_ws / 2**20:.1f} MiB at batch {peak['batch']}.")
        out.append("")

    scalar = results["measures"]["scalar_engine"]
    out.append(f"Scalar engine: a micrograd-style `Value` per number ({'bench/scalar_engine.py'}); "
               f"one SGD step of the same MLP ({'-'.join(map(str, scalar['sizes']))}, batch "
               f"{scalar['batch']}) takes {scalar['step']['scalar']['median'] * 1e3:.1f} ms; nnref's "
               f"tensor autograd is {scalar['speedup']['nnref']:,.0f}x faster.")
    out.append("")
    out.append("![benchmark chart](chart.png)")
    out.append("")
    out.append("Regenerate with `./dev.sh bench` (or `python -m bench.run`); see `bench/run.py`.")
    return "\n".join(out) + "\n"


def findings(results):
    """The sentences of the performance page that quote ratios (``findings.md``, included by
    book/performance.md), written from the results so that no figure on the page is typed by
    hand.  Rows a run did not measure (``--quick`` or ``--no-torch``) are left out."""
    ratios = results["ratios"]

    def ratio(key, which="nnref/torch"):
        value = ratios.get(key, {}).get(which)
        return None if value is None else f"{value:.2f}"

    lines = []
    cnn8, cnn64 = ratio("wall_cnn_step_b8"), ratio("wall_cnn_step_b64")
    if cnn8 and cnn64:
        trend = ("more at batch 64 than at batch 8" if float(cnn64) > float(cnn8)
                 else "less at batch 64 than at batch 8" if float(cnn64) < float(cnn8)
                 else "as much at batch 64 as at batch 8")
        lines.append(f"- **Convolutions** (wall clock): the CNN step takes {cnn8} times PyTorch's "
                     f"time at batch 8 and {cnn64} times at batch 64, {trend}.")
        forward, both = ratio("wall_conv_forward"), ratio("wall_conv_forward_backward")
        if forward and both:
            lines[-1] += (f" The 3-channel layer alone: {forward} times PyTorch's time forward, "
                          f"{both} times forward and backward.")
    per_op, b1, b64 = ratio("per_op_overhead"), ratio("mlp_step_b1"), ratio("mlp_step_b64")
    if per_op and b1 and b64:
        lines.append(f"- **Per-operation overhead** (CPU time): one operation, forward and backward, "
                     f"costs {per_op} times PyTorch's; the MLP step takes {b1} times PyTorch's time "
                     f"at batch 1 and {b64} times at batch 64.")
    numpy = [(b, ratio(f"mlp_step_b{b}", "nnref/numpy")) for b in (1, 64, 512)]
    if all(v for _, v in numpy):
        lines.append("- **Against the hand-written numpy step** (CPU time): "
                     + ", ".join(f"{v} times its time at batch {b}" for b, v in numpy) + ".")
    memory = ratio("peak_memory_cnn_b64")
    if memory:
        lines.append(f"- **Memory**: the CNN step's peak at batch 64 is {memory} times PyTorch's.")
    head = (f"From the run of {results['meta']['date'][:10]} (commit "
            f"{(results['meta'].get('git_commit') or '-')[:7]}), as ratios nnref / other:")
    return "\n".join([head, ""] + lines) + "\n"


# ----------------------------------------------------------------- chart ---
# The chart is drawn at the width the site gives it (a page's content is 672 px wide at a
# 1280 px window), so that its smallest text, CHART_MIN_FONT_PT at CHART_DPI, shows at
# 12.5 px or more (points x dpi / 72); the site's tests read that size from the PNG.
CHART_WIDTH_IN, CHART_DPI, CHART_MIN_FONT_PT = 6.7, 100, 9


def chart(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.text
    import numpy as np

    m = results["measures"]
    small = CHART_MIN_FONT_PT
    style = {"font.size": 10, "axes.titlesize": 10.5, "axes.labelsize": 10, "xtick.labelsize": 10,
             "ytick.labelsize": 10, "legend.fontsize": 10, "figure.titlesize": 11}
    with plt.rc_context(style):
        rows = [n for n in results["table"] if TARGETS.get(n["key"])]
        n_ratios = sum(len(TARGETS[r["key"]]) for r in rows)
        ratio_height = 0.3 * n_ratios + 1.2
        fig = plt.figure(figsize=(CHART_WIDTH_IN, 10.0 + ratio_height), layout="constrained")
        # Two subfigures, so that the long labels of the ratios do not push the other panels.
        top, bottom = fig.subfigures(2, 1, height_ratios=[10.0, ratio_height])
        grid = top.add_gridspec(3, 2, height_ratios=[3.0, 2.6, 2.6])
        axes = {"mlp": top.add_subplot(grid[0, :]), "per_op": top.add_subplot(grid[1, 0]),
                "peak": top.add_subplot(grid[1, 1]), "chain": top.add_subplot(grid[2, 0]),
                "scalar": top.add_subplot(grid[2, 1]), "ratios": bottom.add_subplot()}
        shown = {}

        def grouped(ax, groups, series, values, errors=None, log=True, ylabel=""):
            x = np.arange(len(groups))
            k = len(series)
            width = 0.8 / k
            for i, name in enumerate(series):
                vals = [values[g].get(name, np.nan) for g in groups]
                err = None
                if errors is not None:
                    err = np.array([errors[g].get(name, (0, 0)) for g in groups]).T
                bars = ax.bar(x + (i - (k - 1) / 2) * width, vals, width, yerr=err, capsize=2,
                              label=CONTENDER_LABELS[name], color=COLORS[name])
                shown.setdefault(name, bars)
                ax.bar_label(bars, labels=[_num(v) if not np.isnan(v) else "" for v in vals],
                             fontsize=small, padding=1, rotation=90 if k * len(groups) > 4 else 0)
            ax.set_xticks(x, groups)
            if log:
                ax.set_yscale("log")
            ax.set_ylabel(ylabel)
            ax.margins(y=0.35 if log else 0.25)
            if log:  # room above the tallest bar for its label, on a log axis
                low, high = ax.get_ylim()
                ax.set_ylim(low, high * 3)

        # 1. MLP step time
        mlp = m["mlp_step"]
        names = list(next(iter(mlp.values())))
        groups = [f"batch {b}" for b in mlp]
        vals = {f"batch {b}": {n: r["median"] * 1e3 for n, r in res.items()} for b, res in mlp.items()}
        errs = {f"batch {b}": {n: ((r["median"] - r["q1"]) * 1e3, (r["q3"] - r["median"]) * 1e3)
                               for n, r in res.items()} for b, res in mlp.items()}
        grouped(axes["mlp"], groups, names, vals, errs, ylabel="ms per step (log)")
        axes["mlp"].set_title("MLP SGD step (784-512-512-10), CPU time")

        # 2. per-op overhead
        per_op = m["per_op_overhead"]["us_per_op"]
        grouped(axes["per_op"], ["fwd+bwd"], list(per_op), {"fwd+bwd": per_op}, log=False,
                ylabel="µs per op")
        axes["per_op"].set_title("Per-op overhead\n(20 ops on 4 elements)")

        # 3. peak memory, MLP step
        peak = m["peak_memory"]
        key = f"batch {peak['batch']}"
        grouped(axes["peak"], [key], list(peak["mlp"]),
                {key: {n: v["peak_delta_bytes"] / 2**20 for n, v in peak["mlp"].items()}}, log=False,
                ylabel="MiB above baseline")
        axes["peak"].set_title("Peak memory of\nthe MLP step")

        # 4. chain memory
        chain = m["chain"]
        mem = chain.get("memory", {})
        if mem:
            groups = [f"{k // 1000:g}k" if k % 1000 == 0 else f"{k:,}" for k in chain["lengths"]]
            vals = {g: {n: v["points"][str(k)]["peak_delta_bytes"] / 2**20 for n, v in mem.items()}
                    for g, k in zip(groups, chain["lengths"])}
            grouped(axes["chain"], groups, list(mem), vals, log=False, ylabel="peak memory, MiB")
            axes["chain"].set_xlabel("ops in the chain")
            axes["chain"].set_title("Chain of ops: peak memory\n("
                                    + ", ".join(f"{CONTENDER_LABELS[n]} {v['bytes_per_op']:,.0f}"
                                                for n, v in mem.items()) + " B/op)")
        else:
            axes["chain"].set_axis_off()

        # 5. scalar engine
        scalar = m["scalar_engine"]
        step = {n: r["median"] * 1e3 for n, r in scalar["step"].items()}
        grouped(axes["scalar"], ["one SGD step"], list(step), {"one SGD step": step},
                ylabel="ms per step (log)")
        axes["scalar"].set_title(f"Scalar engine: nnref's\ntensors {scalar['speedup']['nnref']:,.0f}x faster")

        # 6. ratio / target
        ax = axes["ratios"]
        labels, values, fractions, colors = [], [], [], []
        for r in rows:
            for ratio_key, limit in TARGETS[r["key"]]:
                value = r["ratios"][ratio_key]
                if value is None:
                    continue
                name = r["key"].replace("_", " ").replace("wall ", "").replace("step b", "b")
                clock = ("" if "memory" in r["key"] else
                         " (wall)" if r["key"].startswith("wall_") else " (CPU)")
                labels.append(f"{name}{clock}, {ratio_key.replace('torch', 'PyTorch')}")
                values.append(f"{value:.2f} / {limit:g}")
                fractions.append(value / limit)
                colors.append("#2ca02c" if value <= limit else "#d62728")
        y = np.arange(len(labels))
        bars = ax.barh(y, fractions, color=colors)
        ax.bar_label(bars, labels=values, fontsize=small, padding=2)
        ax.set_xlim(0, max(fractions + [1.0]) * 1.3)
        ax.axvline(1.0, color="black", linewidth=1)
        ax.set_yticks(y, labels, fontsize=small)
        ax.tick_params(axis="x", labelsize=small)
        ax.invert_yaxis()
        ax.set_xlabel("measured ratio / target ratio")
        ax.set_title("Ratios against targets (green, left of 1: met)")

        meta = results["meta"]
        top.legend([shown[n] for n in CONTENDER_LABELS if n in shown],
                   [CONTENDER_LABELS[n] for n in CONTENDER_LABELS if n in shown],
                   loc="outside upper center", ncols=4, frameon=False)
        fig.suptitle(f"nnref benchmark: {meta['mode']} run, {meta['threads']} thread(s), "
                     f"{results['config'].get('clock', 'wall')} time, {meta['date'][:10]}\n"
                     f"{meta['cpu']}, numpy {meta['numpy']}, PyTorch {meta['torch'] or '-'}")
        sizes = [t.get_fontsize() for t in fig.findobj(matplotlib.text.Text)
                 if t.get_visible() and t.get_text().strip()]
        fig.savefig(path, dpi=CHART_DPI, metadata={"nnref:min-font-pt": f"{min(sizes):g}"})
        plt.close(fig)


def _jsonable(obj):
    if isinstance(obj, float) and (math.isnan(obj) or math.isinf(obj)):
        return None
    if isinstance(obj, dict):
        return {k: _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalars
        return obj.item()
    return obj


def finish(results, out_dir):
    compute(results)
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(_jsonable(results), f, indent=1)
        f.write("\n")
    with open(os.path.join(out_dir, "results.md"), "w") as f:
        f.write(markdown(results))
    with open(os.path.join(out_dir, "findings.md"), "w") as f:
        f.write(findings(results))
    chart(results, os.path.join(out_dir, "chart.png"))
