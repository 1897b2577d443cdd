"""``serialization.add_safe_globals`` / ``safe_globals`` / ``get_safe_globals`` /
``clear_safe_globals`` and ``load(weights_only=True)`` of checkpoints that PyTorch wrote holding
the program's own classes: refused with PyTorch's ``UnpicklingError`` text unless allowlisted,
rebuilt as PyTorch rebuilds them when allowlisted, and never anything else run."""
import dataclasses
import enum
import os
import pickle

import pytest

import nnref

torch = pytest.importorskip("torch")


class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y


@dataclasses.dataclass
class Config:
    lr: float
    sizes: list


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


class Color(enum.Enum):
    RED = 1


class WithState:
    def __init__(self, v):
        self.v = v

    def __getstate__(self):
        return {"v2": self.v}

    def __setstate__(self, state):
        self.v = state["v2"] * 10


class Refusing(WithState):
    def __setstate__(self, state):
        raise KeyError("this state is not mine")


class Renamed:  # allowlisted under the path the file names for Point
    pass


ALL = [Point, Config, Slotted, Color, WithState]


@pytest.fixture(autouse=True)
def restore_allowlists():
    """Each test starts with nnref's allowlist empty, and leaves PyTorch's as it found it (PyTorch
    keeps classes of its own in it)."""
    nnref.serialization.clear_safe_globals()
    theirs = set(torch.serialization.get_safe_globals())
    yield
    nnref.serialization.clear_safe_globals()
    torch.serialization.clear_safe_globals()
    torch.serialization.add_safe_globals(list(theirs))


@pytest.fixture
def checkpoint(tmp_path):
    weights = torch.arange(4.0)
    path = tmp_path / "objects.pt"
    torch.save({"p": Point(weights, 3), "c": Config(0.1, [1, 2]), "s": Slotted(weights[:2], "x"),
                "e": Color.RED, "w": WithState(5), "state": {"w": weights}}, path)
    return path


def outcome(L, path, **kwargs):
    try:
        return "ok", L.load(path, **kwargs)
    except Exception as error:  # noqa: BLE001 - the comparison is the point
        return type(error), str(error)


def refusals(path):
    (kind_o, text_o), (kind_t, text_t) = outcome(nnref, path), outcome(torch, path)
    assert issubclass(kind_o, kind_t) and kind_t is pickle.UnpicklingError
    return text_o, text_t


def described(obj):
    """A loaded object as plain values, the same for nnref's tensors and PyTorch's."""
    if isinstance(obj, (nnref.Tensor, torch.Tensor)):
        return ("tensor", str(obj.dtype).replace("nnref", "torch"), obj.tolist())
    if isinstance(obj, dict):
        return {k: described(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(described(v) for v in obj)
    if isinstance(obj, Slotted):
        return ("Slotted", described(obj.a), obj.b)
    if hasattr(obj, "__dict__") and not isinstance(obj, enum.Enum):
        return (type(obj).__name__, described(vars(obj)))
    return obj


def test_a_class_of_the_program_is_refused_with_pytorchs_message(checkpoint):
    ours, theirs = refusals(checkpoint)
    assert ours == theirs
    assert f"GLOBAL {__name__}.Point was not an allowed global" in ours


def test_allowlisted_classes_are_rebuilt_as_pytorch_rebuilds_them(checkpoint):
    nnref.serialization.add_safe_globals(ALL)
    torch.serialization.add_safe_globals(ALL)
    (_, ours), (_, theirs) = outcome(nnref, checkpoint), outcome(torch, checkpoint)
    assert described(ours) == described(theirs)
    assert type(ours["p"]) is Point and isinstance(ours["p"].x, nnref.Tensor)
    assert ours["w"].v == 50 and ours["e"] is Color.RED  # __setstate__ ran; the enum member itself
    assert ours["p"].x is ours["state"]["w"]  # one tensor object, shared as in the file


def test_each_global_must_be_allowlisted_and_the_next_one_is_named(checkpoint):
    # Point allowed, so the refusal moves on to the next class the file names
    with nnref.serialization.safe_globals([Point]), torch.serialization.safe_globals([Point]):
        ours, theirs = refusals(checkpoint)
    assert ours == theirs and f"{__name__}.Config" in ours


def test_safe_globals_allowlists_only_inside_the_block(checkpoint):
    with nnref.serialization.safe_globals(ALL):
        assert outcome(nnref, checkpoint)[0] == "ok"
        assert set(nnref.serialization.get_safe_globals()) == set(ALL)
    assert nnref.serialization.get_safe_globals() == []
    assert issubclass(outcome(nnref, checkpoint)[0], pickle.UnpicklingError)


def test_the_allowlist_functions_keep_pytorchs_semantics():
    # PyTorch's list starts with classes of its own (nested tensors...), so compare what each adds
    def run(serialization):
        start = set(serialization.get_safe_globals())
        seen = []
        serialization.add_safe_globals([Point, Config])
        serialization.add_safe_globals([Point, (Renamed, "x.Y")])  # a set: Point once
        seen.append(sorted(map(repr, set(serialization.get_safe_globals()) - start)))
        with serialization.safe_globals([Point, Slotted]):
            seen.append(sorted(map(repr, set(serialization.get_safe_globals()) - start)))
        # leaving the block removes Point too, though it was added before the block
        seen.append(sorted(map(repr, set(serialization.get_safe_globals()) - start)))
        serialization.clear_safe_globals()
        seen.append(serialization.get_safe_globals())
        return seen
    assert run(nnref.serialization) == run(torch.serialization)


def test_a_pair_allowlists_a_class_under_the_path_the_file_names(tmp_path):
    path = tmp_path / "point.pt"
    torch.save(Point(1, 2), path)
    pair = [(Renamed, f"{__name__}.Point")]
    with nnref.serialization.safe_globals(pair), torch.serialization.safe_globals(pair):
        (_, ours), (_, theirs) = outcome(nnref, path), outcome(torch, path)
    assert type(ours) is type(theirs) is Renamed and vars(ours) == vars(theirs) == {"x": 1, "y": 2}


@pytest.mark.parametrize("item", [(Point,), (Point, "a", "b"), (Point, 3)], ids=["short", "long", "not-a-str"])
def test_a_malformed_pair_raises_pytorchs_error_at_load(checkpoint, item):
    nnref.serialization.add_safe_globals([item])  # accepted here, as by PyTorch: checked on load
    torch.serialization.add_safe_globals([item])
    assert outcome(nnref, checkpoint) == outcome(torch, checkpoint)


def test_an_error_of_the_allowlisted_code_reaches_the_program(tmp_path):
    path = tmp_path / "refusing.pt"
    torch.save(Refusing(1), path)
    with nnref.serialization.safe_globals([Refusing]), torch.serialization.safe_globals([Refusing]):
        assert outcome(nnref, path) == outcome(torch, path) == (KeyError, "'this state is not mine'")


class Payload:
    """Unpickling it calls ``func(*args)``: what a malicious checkpoint does."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return self.func, self.args


@pytest.mark.parametrize("allowlist", [[], [os.system]], ids=["not-allowlisted", "allowlisted-but-blocked"])
def test_a_blocked_module_stays_refused_and_nothing_runs(tmp_path, allowlist):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    torch.save(Payload(os.system, f"touch {marker}"), path)
    with nnref.serialization.safe_globals(allowlist), torch.serialization.safe_globals(allowlist):
        ours, theirs = refusals(path)
    assert ours == theirs and "whose module posix is blocked" in ours
    assert not marker.exists()


def test_an_unlisted_function_is_never_called(tmp_path):
    marker = tmp_path / "ran"
    path = tmp_path / "evil.pt"
    torch.save({"w": torch.ones(2), "x": Payload(open, str(marker), "w")}, path)
    with nnref.serialization.safe_globals([Point]), torch.serialization.safe_globals([Point]):
        ours, theirs = refusals(path)
    assert ours == theirs and "GLOBAL io.open was not an allowed global" in ours
    assert not marker.exists()


def test_get_unsafe_globals_in_checkpoint_names_what_load_would_refuse(checkpoint, tmp_path):
    def run(L, path):
        before = sorted(L.serialization.get_unsafe_globals_in_checkpoint(path))
        with L.serialization.safe_globals([Point, Config]):
            after = sorted(L.serialization.get_unsafe_globals_in_checkpoint(str(path)))
        with open(path, "rb") as stream:
            from_stream = sorted(L.serialization.get_unsafe_globals_in_checkpoint(stream))
        return before, after, from_stream
    assert run(nnref, checkpoint) == run(torch, checkpoint)
    assert f"{__name__}.Point" in run(nnref, checkpoint)[0]
    weights = tmp_path / "weights.pt"
    torch.save({"w": torch.ones(2)}, weights)
    assert nnref.serialization.get_unsafe_globals_in_checkpoint(weights) == []
    not_a_checkpoint = tmp_path / "plain.bin"
    not_a_checkpoint.write_bytes(b"hello")
    for L in (nnref, torch):
        with pytest.raises(ValueError, match="Expected input to be a checkpoint returned by torch.save"):
            L.serialization.get_unsafe_globals_in_checkpoint(not_a_checkpoint)
