"""The profiler (``nnref/autograd/profiler.py``, ``nnref/profiler``) against PyTorch's.

Times differ between runs, so the comparisons are of what does not: the table PyTorch prints for
the same events (built by hand with the same times), the names and counts of what a training
step records (the backward nodes the engine evaluates, the ranges, the layers' ops and their
input shapes), the schedule's actions, and the invariants of the times (self <= total, the
self times add up to the total).
"""
import json
import warnings

import pytest

import nnref
import nnref.profiler

torch = pytest.importorskip("torch")
import torch.autograd.profiler_util  # noqa: E402
import torch.profiler  # noqa: E402


def hand_made_events(L, util):
    """The same nested calls, with fixed times, as either library's FunctionEvents."""
    spans = [("train_step", 0, 2500.0, 1, True), ("aten::linear", 10, 410.5, [[16, 4], [8, 4], [8]], False),
             ("aten::t", 12, 20.25, [[8, 4]], False), ("aten::addmm", 25, 400.0, [[8], [16, 4], [4, 8]], False),
             ("aten::relu", 420, 455.0, [[16, 8]], False), ("aten::linear", 460, 1460.0, [[16, 8], [3, 8], [3]], False),
             ("aten::addmm", 470, 1450.0, [[3], [16, 8], [8, 3]], False),
             ("autograd::engine::evaluate_function: AddmmBackward0", 1500, 2400.0, [], False),
             ("AddmmBackward0", 1501, 2399.0, [[16, 3]], False),
             ("a_very_long_user_range_name_that_needs_to_be_cut_short_in_the_table", 2410, 2420.0, [], True)]
    events = []
    for i, (name, start, end, shapes, user) in enumerate(spans):
        events.append(util.FunctionEvent(i, name, 1, float(start), float(end), input_shapes=shapes if shapes != 1 else [], stack=[],
                                         is_user_annotation=user))
    out = util.EventList(events)
    out._build_tree()
    return out


@pytest.mark.parametrize("options", [{}, {"sort_by": "cpu_time_total"}, {"sort_by": "self_cpu_time_total", "row_limit": 3},
                                     {"sort_by": "count"}, {"time_unit": "ms"}, {"time_unit": "s", "header": "HEAD"},
                                     {"top_level_events_only": True}, {"max_name_column_width": 20},
                                     {"sort_by": "cpu_time", "row_limit": 1}])
@pytest.mark.parametrize("group_by_input_shapes", [False, True])
def test_the_table_is_pytorchs(options, group_by_input_shapes):
    ours = hand_made_events(nnref, nnref.autograd.profiler).key_averages(group_by_input_shapes)
    theirs = hand_made_events(torch, torch.autograd.profiler_util).key_averages(group_by_input_shapes)
    assert ours.table(**options) == theirs.table(**options)


def test_the_events_table_and_averages_are_pytorchs():
    ours, theirs = hand_made_events(nnref, nnref.autograd.profiler), hand_made_events(torch, torch.autograd.profiler_util)
    assert ours.table(sort_by="self_cpu_time_total") == theirs.table(sort_by="self_cpu_time_total")
    for a, b in zip(ours.key_averages(), theirs.key_averages()):
        assert (a.key, a.count, a.cpu_time_total, a.self_cpu_time_total, a.cpu_time) == \
               (b.key, b.count, b.cpu_time_total, b.self_cpu_time_total, b.cpu_time)
    assert ours.self_cpu_time_total == theirs.self_cpu_time_total
    assert [[c.id for c in e.cpu_children] for e in ours] == [[c.id for c in e.cpu_children] for e in theirs]


def train_step(L, profiler):
    L.manual_seed(0)
    model = L.nn.Sequential(L.nn.Linear(4, 8), L.nn.ReLU(), L.nn.Linear(8, 3))
    opt = L.optim.SGD(model.parameters(), lr=0.1)
    x, y = L.randn(16, 4), L.randint(0, 3, (16,))
    with profiler.profile(activities=[profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        with profiler.record_function("model_inference"):
            loss = L.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    return prof


def counts(prof, predicate):
    return {a.key: a.count for a in prof.key_averages() if predicate(a.key)}


def test_a_training_step_records_what_pytorch_records():
    ours, theirs = train_step(nnref, nnref.profiler), train_step(torch, torch.profiler)
    # the backward: the same nodes evaluated, as many times (nnref's grad_fn names are PyTorch's)
    backward = lambda key: key.startswith("autograd::engine::evaluate_function")  # noqa: E731
    assert counts(ours, backward) == counts(theirs, backward) and counts(ours, backward)
    nodes = {key.split(": ")[1] for key in counts(theirs, backward)}
    assert counts(ours, lambda key: key in nodes) == counts(theirs, lambda key: key in nodes)
    # the ranges, and the ops of the layers, with their input shapes
    named = lambda key: key in ("model_inference", "aten::linear", "aten::relu", "aten::addmm", "aten::log_softmax",  # noqa: E731
                                "Optimizer.step#SGD.step", "Optimizer.zero_grad#SGD.zero_grad")
    assert counts(ours, named) == counts(theirs, named)
    shapes = lambda prof: sorted(str(e.input_shapes) for e in prof.events() if e.name == "aten::linear")  # noqa: E731
    assert shapes(ours) == shapes(theirs)


def test_times_are_consistent():
    prof = train_step(nnref, nnref.profiler)
    events = prof.events()
    for event in events:
        assert 0 <= event.self_cpu_time_total <= event.cpu_time_total
        for child in event.cpu_children:
            assert event.start_us <= child.start_us <= child.end_us <= event.end_us
    roots = [e for e in events if e.cpu_parent is None]
    assert prof.self_cpu_time_total == pytest.approx(sum(e.cpu_time_total for e in roots))
    table = prof.key_averages().table(sort_by="cpu_time_total", row_limit=5)
    assert table.splitlines()[3].split()[0] == "model_inference" or "evaluate_function" in table.splitlines()[3]
    assert len(table.splitlines()) == 3 + 5 + 2


def test_the_chrome_trace_is_valid_json_with_one_complete_event_per_call(tmp_path):
    prof = train_step(nnref, nnref.profiler)
    prof.export_chrome_trace(str(tmp_path / "trace.json"))
    trace = json.loads((tmp_path / "trace.json").read_text())
    complete = [e for e in trace["traceEvents"] if e["ph"] == "X"]
    assert len(complete) == len(prof.events())
    for entry, event in zip(complete, prof.events()):
        assert entry["name"] == event.name and entry["dur"] >= 0 and {"pid", "tid", "ts", "cat"} <= set(entry)
    assert {e["cat"] for e in complete} == {"cpu_op", "user_annotation"}
    assert any("Input Dims" in e["args"] for e in complete)


def test_nothing_stays_wrapped_outside_a_profile():
    originals = (nnref.Tensor.add, nnref.Tensor.__add__, nnref.nn.functional.linear, nnref.matmul,
                 nnref.optim.SGD.step, nnref.optim.Optimizer.zero_grad)
    with pytest.raises(ZeroDivisionError):
        with nnref.profiler.profile():
            (nnref.ones(2) + 1).sum()
            1 / 0
    assert (nnref.Tensor.add, nnref.Tensor.__add__, nnref.nn.functional.linear, nnref.matmul,
            nnref.optim.SGD.step, nnref.optim.Optimizer.zero_grad) == originals
    assert nnref.autograd.profiler._Profiling.recorder is None


def test_record_function_outside_a_profile_and_as_a_decorator():
    with nnref.profiler.record_function("nothing"):
        pass

    @nnref.profiler.record_function("decorated")
    def step():
        return nnref.ones(3).relu()

    with nnref.autograd.profiler.profile() as prof:
        step()
    assert [e.name for e in prof.events()] == ["decorated", "aten::ones", "aten::relu"]
    assert prof.events()[0].cpu_children == prof.events()[1:]


@pytest.mark.parametrize("kwargs", [dict(wait=1, warmup=1, active=2), dict(wait=0, warmup=2, active=1, repeat=2),
                                    dict(wait=2, warmup=1, active=3, skip_first=3), dict(wait=3, warmup=1, active=1,
                                                                                         skip_first=2, skip_first_wait=1)])
def test_schedules_and_steps_are_pytorchs(kwargs):
    ours, theirs = nnref.profiler.schedule(**kwargs), torch.profiler.schedule(**kwargs)
    assert [ours(i).name for i in range(20)] == [theirs(i).name for i in range(20)]

    def windows(L, profiler):
        ready = []
        with profiler.profile(activities=[profiler.ProfilerActivity.CPU], schedule=profiler.schedule(**kwargs),
                              on_trace_ready=lambda p: ready.append(sorted(
                                  a.key for a in p.key_averages() if a.key.startswith("step")))) as prof:
            for i in range(10):
                with profiler.record_function(f"step{i}"):
                    L.ones(2).sum()
                prof.step()
        return ready
    assert windows(nnref, nnref.profiler) == windows(torch, torch.profiler)


def test_schedule_errors_and_warning_are_pytorchs():
    with pytest.raises(AssertionError) as ours:
        nnref.profiler.schedule(wait=0, warmup=1, active=0)
    with pytest.raises(AssertionError) as theirs:
        torch.profiler.schedule(wait=0, warmup=1, active=0)
    assert str(ours.value) == str(theirs.value)
    with pytest.warns(UserWarning, match="Profiler won't be using warmup"):
        nnref.profiler.schedule(wait=1, warmup=0, active=1)


def test_what_nnref_does_not_record_raises():
    with pytest.raises(NotImplementedError, match="CPU only"):
        nnref.profiler.profile(activities=[nnref.profiler.ProfilerActivity.CUDA])
    for flag in ("profile_memory", "with_stack", "with_flops"):
        with pytest.raises(NotImplementedError, match="CPU times and shapes only"):
            nnref.profiler.profile(**{flag: True})
    with pytest.raises(RuntimeError, match="Profiler didn't finish running"):
        nnref.autograd.profiler.profile().key_averages()


def test_trace_handler_writes_a_trace(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sched = nnref.profiler.schedule(wait=0, warmup=0, active=1, repeat=1)
    with nnref.profiler.profile(schedule=sched, on_trace_ready=nnref.profiler.tensorboard_trace_handler(
            str(tmp_path), worker_name="w")) as prof:
        nnref.ones(2).sum()
        prof.step()
    (path,) = tmp_path.iterdir()
    assert path.name.startswith("w.") and path.name.endswith(".pt.trace.json")
    assert json.loads(path.read_text())["traceEvents"]
