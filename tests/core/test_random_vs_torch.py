"""nnref's random numbers are PyTorch's, bit for bit, after the same seed.

Every factory, in-place fill and sampler is compared element for element (``array_equal``,
not a tolerance) with real PyTorch on the CPU, over dtypes, sizes on both sides of the
16-value Box-Muller blocks, strided tensors, ``Generator`` objects and restored states.
"""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

DTYPES = [("float32", np.float32), ("float64", np.float64)]
SIZES = [1, 2, 3, 15, 16, 17, 31, 32, 100, 1000, 1003]


def same(t, n):
    a, b = t.detach().numpy(), n.detach().numpy()
    assert a.dtype == b.dtype and a.shape == b.shape
    np.testing.assert_array_equal(a, b)


def both(seed):
    torch.manual_seed(seed)
    nnref.manual_seed(seed)


@pytest.mark.parametrize("seed", [0, 1, 2**32 + 7, 67280421310721])
@pytest.mark.parametrize("dtype", [d for d, _ in DTYPES])
@pytest.mark.parametrize("n", SIZES)
def test_rand_randn_match_for_every_size(seed, dtype, n):
    both(seed)
    same(torch.rand(n, dtype=getattr(torch, dtype)), nnref.rand(n, dtype=getattr(nnref, dtype)))
    same(torch.randn(n, dtype=getattr(torch, dtype)), nnref.randn(n, dtype=getattr(nnref, dtype)))
    same(torch.randn(n, 2, dtype=getattr(torch, dtype)), nnref.randn(n, 2, dtype=getattr(nnref, dtype)))
    same(torch.rand(1), nnref.rand(1))  # and the stream continues in step


@pytest.mark.parametrize("dtype", [d for d, _ in DTYPES])
@pytest.mark.parametrize("args", [(0.0, 1.0), (-0.37, 0.52), (2.5, 7.1), (-3.3, 1e-3)])
def test_uniform_and_normal_fills_with_parameters(dtype, args):
    both(11)
    for n in (5, 40, 333):
        same(torch.empty(n, dtype=getattr(torch, dtype)).uniform_(*args),
             nnref.empty(n, dtype=getattr(nnref, dtype)).uniform_(*args))
        same(torch.empty(n, dtype=getattr(torch, dtype)).normal_(args[0], abs(args[1])),
             nnref.empty(n, dtype=getattr(nnref, dtype)).normal_(args[0], abs(args[1])))


def test_the_vectorised_float32_box_muller_over_millions_of_values():
    """PyTorch's AVX2 kernel (its log/sincos polynomials, fused as GCC fuses them): no last-bit
    difference in 1.6 million normals."""
    both(0)
    same(torch.randn(1_600_000), nnref.randn(1_600_000))


def test_strided_tensors_are_filled_in_memory_order():
    both(3)
    same(torch.empty(8, 3).t().uniform_(-1, 2), nnref.empty(8, 3).t().uniform_(-1, 2))
    same(torch.empty(8, 5).t().normal_(1, 2), nnref.empty(8, 5).t().normal_(1, 2))
    same(torch.empty(6, 6)[:, ::2].uniform_(), nnref.empty(6, 6)[:, ::2].uniform_())


def test_integers_permutations_and_samplers():
    both(5)
    same(torch.randint(3, 17, (500,)), nnref.randint(3, 17, (500,)))
    same(torch.randint(10, (4, 5)), nnref.randint(10, (4, 5)))
    same(torch.randint(-2**40, 2**40, (50,)), nnref.randint(-2**40, 2**40, (50,)))  # 64-bit draws
    same(torch.randint(0, 5, (9,), dtype=torch.int32), nnref.randint(0, 5, (9,), dtype=nnref.int32))
    same(torch.randint(0, 5, (9,), dtype=torch.float32), nnref.randint(0, 5, (9,), dtype=nnref.float32))
    for n in (0, 1, 2, 10, 1000):
        same(torch.randperm(n), nnref.randperm(n))
    for dt in ("int64", "int32", "float32", "float64", "bool"):
        same(torch.empty(20, dtype=getattr(torch, dt)).random_(),
             nnref.empty(20, dtype=getattr(nnref, dt)).random_())
    same(torch.empty(20).random_(7), nnref.empty(20).random_(7))
    same(torch.empty(20, dtype=torch.int64).random_(-3, 7), nnref.empty(20, dtype=nnref.int64).random_(-3, 7))
    same(torch.randint_like(torch.zeros(3, 2), 9), nnref.randint_like(nnref.zeros(3, 2), 9))
    same(torch.rand_like(torch.zeros(3, 2)), nnref.rand_like(nnref.zeros(3, 2)))
    same(torch.randn_like(torch.zeros(30, 2)), nnref.randn_like(nnref.zeros(30, 2)))


def test_bernoulli_exponential_multinomial_normal():
    both(8)
    p = np.linspace(0, 1, 50).reshape(5, 10)
    for dt in (np.float32, np.float64):
        same(torch.bernoulli(torch.tensor(p.astype(dt))), nnref.bernoulli(nnref.tensor(p.astype(dt))))
    same(torch.empty(300).bernoulli_(0.3), nnref.empty(300).bernoulli_(0.3))
    same(torch.empty(3, 4).bernoulli_(torch.full((4,), 0.6)), nnref.empty(3, 4).bernoulli_(nnref.full((4,), 0.6)))
    same(torch.empty(300).exponential_(2.0), nnref.empty(300).exponential_(2.0))
    same(torch.empty(30, dtype=torch.float64).exponential_(), nnref.empty(30, dtype=nnref.float64).exponential_())
    w = [[0.1, 0.5, 0.2, 0.2], [1.0, 2.0, 3.0, 4.0]]
    same(torch.multinomial(torch.tensor(w), 3), nnref.multinomial(nnref.tensor(w), 3))
    same(torch.multinomial(torch.tensor(w), 1), nnref.multinomial(nnref.tensor(w), 1))
    same(torch.multinomial(torch.tensor(w), 10, True), nnref.multinomial(nnref.tensor(w), 10, True))
    same(torch.tensor(w[0]).multinomial(2), nnref.tensor(w[0]).multinomial(2))
    same(torch.normal(0.5, 2.0, (40,)), nnref.normal(0.5, 2.0, (40,)))
    same(torch.normal(torch.zeros(20), torch.ones(20) * 3), nnref.normal(nnref.zeros(20), nnref.ones(20) * 3))
    same(torch.rand(2), nnref.rand(2))


@pytest.mark.parametrize("p", [0.1, 0.25, 0.5, 0.9])
def test_dropout_masks_match(p):
    both(2)
    for shape in ((40, 30), (7,), (2, 3, 5)):
        same(torch.nn.functional.dropout(torch.ones(shape), p),
             nnref.nn.functional.dropout(nnref.ones(shape), p))
    model_t, model_n = torch.nn.Dropout(p), nnref.nn.Dropout(p)
    same(model_t(torch.arange(20.0)), model_n(nnref.arange(20.0)))


@pytest.mark.parametrize("p", [0.25, 0.5])
def test_channel_dropout_masks_match(p):
    """Dropout1d/2d draw one bernoulli per (sample, channel) from the CPU generator, as dropout."""
    both(4)
    same(torch.nn.functional.dropout1d(torch.ones(4, 6, 5), p), nnref.nn.functional.dropout1d(nnref.ones(4, 6, 5), p))
    same(torch.nn.Dropout2d(p)(torch.ones(3, 8, 2, 2)), nnref.nn.Dropout2d(p)(nnref.ones(3, 8, 2, 2)))
    same(torch.rand(3), nnref.rand(3))  # the generators stayed in step


def test_generator_objects():
    gt, gn = torch.Generator().manual_seed(3), nnref.Generator().manual_seed(3)
    assert gn.initial_seed() == gt.initial_seed() == 3 and str(gn.device) == "cpu"
    torch.manual_seed(0)
    nnref.manual_seed(99)  # the global generator is not involved
    same(torch.rand(4, generator=gt), nnref.rand(4, generator=gn))
    same(torch.randn(20, generator=gt), nnref.randn(20, generator=gn))
    same(torch.randperm(9, generator=gt), nnref.randperm(9, generator=gn))
    same(torch.empty(3).uniform_(generator=gt), nnref.empty(3).uniform_(generator=gn))
    np.testing.assert_array_equal(gt.get_state().numpy(), gn.get_state().numpy())
    assert nnref.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721


@pytest.mark.parametrize("seed", [0, 5, -1, 2**64 - 1, 2**63])
def test_seeds_and_states_are_pytorchs(seed):
    both(seed)
    assert nnref.initial_seed() == torch.initial_seed()
    same(torch.get_rng_state(), nnref.get_rng_state())
    torch.rand(5), nnref.rand(5)
    torch.randn(3), nnref.randn(3)  # leaves a cached second normal in the state
    same(torch.get_rng_state(), nnref.get_rng_state())
    torch.randn(1, dtype=torch.float64), nnref.randn(1, dtype=nnref.float64)
    same(torch.get_rng_state(), nnref.get_rng_state())


def test_set_rng_state_takes_pytorchs_state_and_replays():
    torch.manual_seed(4)
    torch.randn(5)
    state = torch.get_rng_state()
    nnref.set_rng_state(nnref.tensor(state.numpy()))
    same(torch.randn(7), nnref.randn(7))
    saved = nnref.get_rng_state()
    first = nnref.rand(3)
    nnref.set_rng_state(saved)
    same(first, nnref.rand(3))
    nnref.set_rng_state(nnref.tensor(torch.get_rng_state().numpy()))
    with nnref.random.fork_rng():
        nnref.rand(10)  # fork_rng puts the state back afterwards
    same(torch.rand(2), nnref.rand(2))


def test_errors_are_pytorchs():
    for m in (torch, nnref):
        with pytest.raises(TypeError, match="ByteTensor"):
            m.set_rng_state(m.zeros(5056))
        with pytest.raises(RuntimeError, match="size 5056 but found the input RNG state size to be 10"):
            m.set_rng_state(m.zeros(10, dtype=m.uint8))
        with pytest.raises(ValueError, match="Overflow"):
            m.manual_seed(2**64)
        with pytest.raises(RuntimeError, match=r"uniform_ expects to return a \[from, to\) range, but found from=1 > to=0"):
            m.empty(3).uniform_(1, 0)
        with pytest.raises(RuntimeError, match="normal expects std >= 0.0, but found std -1"):
            m.empty(3).normal_(0, -1)
        with pytest.raises(RuntimeError, match="random_ expects 'from' to be less than 'to', but got from=5 >= to=3"):
            m.randint(5, 3, (2,))
        with pytest.raises(NotImplementedError, match="check_uniform_bounds"):
            m.rand(3, dtype=m.int64)
        with pytest.raises(RuntimeError, match="negative dimension -1"):
            m.randperm(-1)
        with pytest.raises(RuntimeError, match="bernoulli_ expects p to be in"):
            m.empty(3).bernoulli_(2.0)
        with pytest.raises(RuntimeError, match="exponential_ expects lambda > 0.0"):
            m.empty(3).exponential_(-1.0)
        with pytest.raises(RuntimeError, match="without replacement"):
            m.multinomial(m.tensor([1.0, 1.0]), 3)


def test_the_cpu_capability_is_detected_as_pytorchs():
    assert nnref.backends.cpu.get_cpu_capability() == torch.backends.cpu.get_cpu_capability()


def test_float64_draws_match_over_many_values():
    """float64 normals and exponentials take log and log1p from the C library, as PyTorch's
    kernels do: numpy's vectorised float64 log/log1p (SIMD on AVX512 machines) round
    differently in up to 1 result in 14, which a handful of draws would not catch."""
    for seed in (0, 1):
        torch.manual_seed(seed)
        nnref.manual_seed(seed)
        same(torch.randn(300_000, dtype=torch.float64), nnref.randn(300_000, dtype=nnref.float64))
        same(torch.empty(300_000, dtype=torch.float64).exponential_(),
             nnref.empty(300_000, dtype=nnref.float64).exponential_())
        same(torch.empty(20_001, 3, dtype=torch.float64)[:, 0].normal_(),  # strided: one at a time
             nnref.empty(20_001, 3, dtype=nnref.float64)[:, 0].normal_())
