"""PyTorch's CPU random numbers, bit for bit: the generator and its sampling kernels.

PyTorch's CPU generator (``aten/src/ATen/CPUGeneratorImpl.cpp``) is a 32-bit
Mersenne Twister seeded like ``std::mt19937`` with the low 32 bits of the seed.
numpy's legacy ``RandomState`` runs the very same twister, so nnref keeps one
as its engine and adds what PyTorch adds on top:

* ``random()`` is one 32-bit word, ``random64()`` two words, the first one
  high (``make64BitsFrom32Bits``);
* the distributions of ``aten/src/ATen/core/DistributionsHelper.h`` and
  ``TransformationHelper.h``: a float32 uniform keeps 24 bits of one word, a
  float64 uniform 53 bits of a 64-bit draw; integers are ``word % range``;
  a normal is Box-Muller, whose second value is cached in the generator;
* the CPU kernels of ``aten/src/ATen/native/cpu/DistributionTemplates.h``,
  which fill whole tensors (``normal_`` of 16 or more contiguous values fills
  all uniforms first, then transforms them 16 at a time).

The transforms are vectorised numpy; the order in which words are consumed
is PyTorch's, so every tensor, weight and shuffle agrees with PyTorch after
the same ``manual_seed``.  CUDA tensors draw from CuPy's generator instead
(PyTorch's CUDA generator is Philox; see "Differences from PyTorch").
"""
import ctypes
import ctypes.util
import math
import os

import numpy as np

from ._capability import get_cpu_capability
from .core._naming import TorchNamed
from .core._device import CPU, array_module, canonical_device
from ._ops.fused import fma, fused_multiply_add

__all__ = ["Generator", "manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state",
           "default_generator", "fork_rng"]

_DEFAULT_SEED = 67280421310721  # the seed PyTorch's default CPU generator starts from
_MT_N = 624                     # words in the Mersenne Twister's state
_STATE_SIZE = 5056              # bytes in PyTorch's CPUGeneratorImplState
_U32 = np.uint32
_U64 = np.uint64


def _seed_as_uint64(seed):
    """PyTorch reads a seed as uint64, or as int64 reinterpreted when it is negative."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        try:
            seed = int(seed)
        except (TypeError, ValueError):
            raise TypeError(f"manual_seed expected an int, but got {type(seed).__name__}") from None
    seed = int(seed)
    if not -2**63 <= seed < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return seed % 2**64


class Generator(metaclass=TorchNamed):
    """A CPU random-number generator with PyTorch's state, streams and methods.

    ``Generator().manual_seed(s)`` gives the numbers ``torch.Generator().manual_seed(s)``
    gives; pass it as ``generator=`` to ``rand``, ``randperm``, ``DataLoader``, ...
    """
    _torch_name = "torch._C.Generator"  # PyTorch's name (nnref/_naming.py)

    def __init__(self, device="cpu"):
        self._device = canonical_device(device)
        if self._device.type != "cpu":
            raise RuntimeError(f"nnref.Generator draws CPU numbers only, not {self._device}; "
                               "CUDA tensors draw from the device's generator (nnref.manual_seed "
                               "seeds it)")
        self._engine = np.random.RandomState()
        self.manual_seed(_DEFAULT_SEED)

    @property
    def device(self):
        """The device whose numbers it draws: always ``cpu`` (``torch.Generator.device``,
        ``aten/src/ATen/core/Generator.h``)."""
        return self._device

    def __repr__(self):
        return f"<nnref.Generator object at {hex(id(self))}>"

    # ---- seeding and state ---------------------------------------------------------------
    def manual_seed(self, seed):
        """Reset to ``seed`` (any int in [-2**63, 2**64)); returns the generator itself."""
        seed = _seed_as_uint64(seed)
        self._seed = seed
        self._engine.seed(seed & 0xFFFFFFFF)   # std::mt19937's init_genrand
        self._next_double_normal = None
        self._next_float_normal = None
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed used."""
        new = int.from_bytes(os.urandom(8), "little")
        self.manual_seed(new)
        return new

    def initial_seed(self):
        """The seed last given to ``manual_seed`` (or chosen by ``seed``), as a uint64."""
        return self._seed

    def get_state(self):
        """PyTorch's ``CPUGeneratorImplState`` as a uint8 tensor of 5056 bytes."""
        from .core._tensor import Tensor
        _, key, pos, _, _ = self._engine.get_state()
        state = np.zeros(_STATE_SIZE, np.uint8)
        state[0:8] = np.frombuffer(np.uint64(self._seed).tobytes(), np.uint8)
        left = 625 - pos if pos < _MT_N else 1     # PyTorch counts down the words left
        state[8:12] = np.frombuffer(np.int32(left).tobytes(), np.uint8)
        state[12:16] = np.frombuffer(np.int32(1).tobytes(), np.uint8)  # seeded
        state[16:24] = np.frombuffer(np.uint64(pos % _MT_N if pos < _MT_N else 0).tobytes(), np.uint8)
        state[24:5016] = key.astype(np.uint64).view(np.uint8)
        if self._next_double_normal is not None:
            state[5024:5032] = np.frombuffer(np.float64(self._next_double_normal).tobytes(), np.uint8)
            state[5040:5044] = np.frombuffer(np.int32(1).tobytes(), np.uint8)
        if self._next_float_normal is not None:
            state[5048:5052] = np.frombuffer(np.float32(self._next_float_normal).tobytes(), np.uint8)
            state[5052] = 1
        return Tensor._make(state)

    def set_state(self, new_state):
        """Restore a state made by ``get_state`` (or by PyTorch's ``get_rng_state``)."""
        from .core import _dtype
        from .core._tensor import Tensor
        if not isinstance(new_state, Tensor) or new_state._dtype is not _dtype.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        data = np.ascontiguousarray(array_module(new_state._device).asnumpy(new_state._data)
                                    if new_state._device.type != "cpu" else new_state._data)
        if data.size != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                               f"the input RNG state size to be {data.size}")
        data = data.reshape(-1)
        seed = int(data[0:8].view(np.uint64)[0])
        left = int(data[8:12].view(np.int32)[0])
        nxt = int(data[16:24].view(np.uint64)[0])
        if not 1 <= left <= _MT_N or nxt + left != 625 and not (left == 1 and nxt == 0):
            raise RuntimeError(f"Invalid mt19937 state: left={left}, next={nxt}; the state must "
                               "come from get_rng_state()")
        key = data[24:5016].view(np.uint64).astype(np.uint32)
        self._seed = seed
        self._engine.set_state(("MT19937", key, 625 - left))
        self._next_double_normal = (float(data[5024:5032].view(np.float64)[0])
                                    if data[5040:5044].view(np.int32)[0] else None)
        self._next_float_normal = (float(data[5048:5052].view(np.float32)[0])
                                   if data[5052] else None)
        return self

    # ---- raw words -------------------------------------------------------------------------
    def _random(self, n):
        """``n`` 32-bit words, PyTorch's ``random()``."""
        return self._engine.randint(0, 2**32, n, dtype=_U32)

    def _random64(self, n):
        """``n`` 64-bit words, PyTorch's ``random64()``: two words each, the first one high."""
        words = self._random(2 * n).astype(_U64).reshape(n, 2)
        return (words[:, 0] << _U64(32)) | words[:, 1]

    def _uniform(self, n, dtype, low=0.0, high=1.0):
        """``uniform_real_distribution<dtype>``: float64 from 53 bits of a 64-bit draw, float32
        from 24 bits of a 32-bit one (float16/bfloat16: the float32 value, rounded)."""
        dtype = np.dtype(dtype)
        if dtype == np.float64:
            x = (self._random64(n) & _U64(2**53 - 1)).astype(np.float64) * 2.0**-53
            return _fma64(x, high - low, low)  # GCC fuses PyTorch's x * (to - from) + from
        x = (self._random(n) & _U32(0xFFFFFF)).astype(np.float32) * np.float32(2.0**-24)
        low, high = np.float32(low), np.float32(high)
        return _fma32(x, high - low, low).astype(dtype)

    def _normal_scalar(self, n, mean, std):
        """``normal_distribution<double>`` one value at a time, with its cached second value."""
        out = np.empty(n, np.float64)
        start = 0
        if n and self._next_double_normal is not None:
            out[0] = self._next_double_normal
            self._next_double_normal = None
            start = 1
        pairs = (n - start + 1) // 2
        if pairs:
            u = self._uniform(2 * pairs, np.float64).reshape(pairs, 2)
            r = np.sqrt(-2.0 * _libm_log1p(-u[:, 1]))
            theta = 2.0 * np.pi * u[:, 0]
            both = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1).reshape(-1)
            out[start:] = both[:n - start]
            if (n - start) % 2:
                self._next_double_normal = float(both[-1])
        return _fma64(out, std, mean)


# PyTorch's double kernels call the C library's log and log1p one value at a time. numpy's own
# vectorised float64 log and log1p (SIMD where the CPU has AVX512) round differently in about
# 1 result in 300 (log) and 1 in 14 (log1p); Python's math module calls the C library, so these
# apply it element by element (cos and sin agree already).
_LIBM_LOG, _LIBM_LOG1P = np.frompyfunc(math.log, 1, 1), np.frompyfunc(math.log1p, 1, 1)


def _libm_log(x):
    return _LIBM_LOG(x).astype(np.float64)


def _libm_log1p(x):
    return _LIBM_LOG1P(x).astype(np.float64)


def _libm_float32(name):
    """The C library's float32 ``name`` (``logf``, ``cosf``, ``sinf``) one value at a time, or numpy's
    where there is no C math library to load.  The DEFAULT capability's ``normal_fill`` calls them
    (``std::log`` of a float); numpy's float32 functions round differently in a few results in
    100.  ~1.4 s per million normals: only CPUs without AVX2 take this path."""
    global _LIBM
    if _LIBM is None:
        path = ctypes.util.find_library("m")
        _LIBM = ctypes.CDLL(path) if path else False
    function = getattr(_LIBM, name, None) if _LIBM else None
    if function is None:
        return {"logf": np.log, "cosf": np.cos, "sinf": np.sin}[name]
    function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
    vectorised = np.frompyfunc(function, 1, 1)
    return lambda x: vectorised(x).astype(np.float32)


_LIBM = None


def _fill_16(u, dtype, mean, std):
    """``normal_fill_16`` over every block of 16 uniforms (rows of ``u``): pairs (j, j + 8).

    ``radius * cos(theta) * std + mean`` rounds once on every capability (measured: the DEFAULT
    capability's float64 normals match only a fused multiply-add; the template ``normal_fill`` is
    compiled into every capability's object file, and the copy the linker keeps is an FMA build's)."""
    u1 = 1 - u[:, :8]
    u2 = u[:, 8:]
    if dtype == np.float32 and get_cpu_capability() != "DEFAULT":  # normal_fill_16_AVX2
        radius = np.sqrt(np.float32(-2.0) * _log256_ps(u1))
        sin, cos = _sincos256_ps(np.float32(2.0 * np.pi) * u2)
        mean, std = np.float32(mean), np.float32(std)
        return np.concatenate([_fma32(radius * cos, std, mean), _fma32(radius * sin, std, mean)], 1)
    theta = (2.0 * np.pi * u2.astype(np.float64)).astype(dtype)
    if dtype == np.float64:
        radius, cos, sin = np.sqrt(-2 * _libm_log(u1)), np.cos(theta), np.sin(theta)
    else:
        radius = np.sqrt(dtype.type(-2) * _libm_float32("logf")(u1))
        cos, sin = _libm_float32("cosf")(theta), _libm_float32("sinf")(theta)
    mean, std = dtype.type(mean), dtype.type(std)
    return np.concatenate([fused_multiply_add(radius * cos, std, mean),
                           fused_multiply_add(radius * sin, std, mean)], 1)


def normal_fill(gen, n, dtype, mean, std, contiguous=True):
    """``normal_`` of ``n`` values: PyTorch's ``normal_fill`` (and its AVX2 twin) for 16 or more
    contiguous values, else one Box-Muller draw per value."""
    dtype = np.dtype(dtype)
    if dtype.itemsize == 2:  # float16/bfloat16: float32's numbers, rounded (see Differences)
        return normal_fill(gen, n, np.float32, mean, std, contiguous).astype(dtype)
    if n < 16 or not contiguous:
        return gen._normal_scalar(n, mean, std).astype(dtype)
    u = gen._uniform(n, dtype)
    blocks = n // 16
    out = np.empty(n, dtype)
    out[:blocks * 16] = _fill_16(u[:blocks * 16].reshape(blocks, 16), dtype, mean, std).reshape(-1)
    if n % 16:
        # PyTorch redraws the last 16 uniforms and transforms them again.
        out[n - 16:] = _fill_16(gen._uniform(16, dtype).reshape(1, 16), dtype, mean, std).reshape(-1)
    return out


# ---- the AVX2 kernel's float32 log and sincos (avx_mathfun.h, Cephes polynomials) ---------
_F = np.float32


def _fma32(a, b, c):
    """float32 ``a * b + c`` as the sampling kernels round it: once where the capability has FMA
    (``_mm256_fmadd_ps``, and GCC's contraction of the scalar formulas), else twice."""
    return fma(np.asarray(a, _F), np.asarray(b, _F), np.asarray(c, _F))


def _fma64(a, b, c):
    """float64 ``a * b + c``: GCC fuses PyTorch's ``x * std + mean`` where the capability has FMA."""
    return fma(np.asarray(a, np.float64), np.asarray(b, np.float64), np.asarray(c, np.float64))


def _log256_ps(x):
    x = np.maximum(x, np.float32(1.17549435e-38))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 0x7F).astype(_F) + _F(1)
    x = ((bits & ~0x7F800000) | 0x3F000000).view(_F)  # mantissa in [0.5, 1)
    small = x < _F(0.707106781186547524)
    tmp = np.where(small, x, _F(0))
    x = x - _F(1)
    e = e - np.where(small, _F(1), _F(0))
    x = x + tmp
    z = x * x
    y = _F(7.0376836292E-2)
    for c in (-1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
              -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1):
        y = _fma32(y, x, _F(c))
    y = _fma32(y * x, z, e * _F(-2.12194440e-4))  # GCC contracts y * z + e * q1 to an FMA
    y = _fma32(z, _F(-0.5), y)
    x = x + y
    return _fma32(e, _F(0.693359375), x)


def _sincos256_ps(x):
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = ((x * _F(1.27323954473516)).astype(np.int32) + 1) & ~1
    y = j.astype(_F)
    swap_sin = (j & 4) != 0
    poly = (j & 2) == 0
    x = _fma32(y, _F(-0.78515625), x)
    x = _fma32(y, _F(-2.4187564849853515625e-4), x)
    x = _fma32(y, _F(-3.77489497744594108e-8), x)
    sign_cos = ((j - 2) & 4) == 0
    sign_sin = sign_sin ^ swap_sin
    z = x * x
    c = _fma32(_F(2.443315711809948E-005), z, _F(-1.388731625493765E-003))
    c = _fma32(c, z, _F(4.166664568298827E-002))
    c = _fma32(c * z, z, -(z * _F(0.5)))  # GCC contracts y * z - z * 0.5 to an FMA
    c = c + _F(1)
    s = _fma32(_F(-1.9515295891E-4), z, _F(8.3321608736E-3))
    s = _fma32(s, z, _F(-1.6666654611E-1))
    s = s * z
    s = _fma32(s, x, x)
    sin = np.where(poly, s, c)
    cos = np.where(poly, c, s)
    return np.where(sign_sin, -sin, sin), np.where(sign_cos, -cos, cos)


# ---- the default generator and the per-device generators -------------------------------------
default_generator = Generator()


class _State:
    cuda = {}   # device -> CuPy generator, made when a CUDA tensor first draws numbers
    cuda_seed = None  # set by nnref.cuda.manual_seed; None: the CPU generator's seed


def manual_seed(seed):
    """Seed every device's generator; returns the default CPU generator (as PyTorch)."""
    default_generator.manual_seed(seed)
    _State.cuda, _State.cuda_seed = {}, None
    return default_generator


def seed():
    """Seed from the operating system's entropy and return the seed used."""
    value = default_generator.seed()
    _State.cuda, _State.cuda_seed = {}, None
    return value


def manual_seed_cuda(seed):
    """Seed the GPU generators only (``torch.cuda.manual_seed_all``): the CPU stream goes on."""
    _State.cuda, _State.cuda_seed = {}, int(seed)


def initial_seed():
    """The default generator's seed (PyTorch's ``67280421310721`` until ``manual_seed``)."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state: a uint8 tensor of 5056 bytes, laid out as PyTorch's."""
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore a state from ``get_rng_state`` (nnref's or PyTorch's, as a uint8 tensor)."""
    default_generator.set_state(new_state)


def cpu_generator(generator=None):
    """The generator a CPU sampling call uses: ``generator=`` if given, else the default one."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a nnref.Generator, not {type(generator).__name__}")
    return generator


def generator(device=CPU):
    """The generator that draws numbers for tensors on ``device``: CuPy's for a GPU.

    A CUDA generator is seeded from the global seed and the device index, so two GPUs
    draw different streams and ``manual_seed`` reproduces both.
    """
    if device.type == "cpu":
        return default_generator
    if device.type == "meta":
        return array_module(device).random.default_rng()  # draws nothing: meta tensors have no values
    found = _State.cuda.get(device)
    if found is None:
        xp = array_module(device)
        with xp.cuda.Device(device.index):
            seed = default_generator.initial_seed() if _State.cuda_seed is None else _State.cuda_seed
            found = xp.random.default_rng([seed % 2**63, device.index])
        _State.cuda[device] = found
    return found


class fork_rng:
    """``with fork_rng():`` restores the CPU generator's state on exit."""

    def __init__(self, devices=None, enabled=True):
        self.enabled = enabled

    def __enter__(self):
        if self.enabled:
            self._saved = get_rng_state()

    def __exit__(self, *exc):
        if self.enabled:
            set_rng_state(self._saved)
        return False


# ---- the other CPU kernels (DistributionTemplates.h), on flat arrays of n values -------------
def random_from_to(gen, n, low, high, dtype):
    """``random_(low, high)`` / ``randint``: ``word % range + low``; 64-bit words from a range of
    2**28 on, whatever the dtype (ATen's ``uniform_int_from_to_distribution`` outside fbcode:
    it keeps the modulo skew under about 5%)."""
    span = int(high) - int(low)
    if span >= 2**28:
        words = gen._random64(n)
    else:
        words = gen._random(n).astype(_U64)
    return ((words % _U64(span)).astype(np.int64) + np.int64(low)).astype(dtype)


def random_full(gen, n, dtype):
    """``random_()`` without bounds: ``[0, max]`` of an integer dtype, ``[0, 2**mantissa]`` of a float."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return (gen._random(n) & _U32(1)).astype(np.bool_)
    if dtype.kind == "f":
        digits = np.finfo(dtype).nmant + 1
        words = gen._random64(n) if dtype == np.float64 else gen._random(n).astype(_U64)
        return (words % _U64(2**digits + 1)).astype(dtype)
    words = gen._random64(n) if dtype == np.int64 else gen._random(n).astype(_U64)
    return (words % _U64(int(np.iinfo(dtype).max) + 1)).astype(dtype)


def randperm(gen, n):
    """PyTorch's CPU ``randperm`` for n < 2**32 / 20: swap position i with i + random() % (n - i)."""
    if n >= (2**32 - 1) // 20:
        raise RuntimeError(f"randperm(n) for n >= {(2**32 - 1) // 20} is not supported by nnref "
                           "(PyTorch switches to a 64-bit shuffle there)")
    offsets = (gen._random(max(n - 1, 0)).astype(np.int64)
               % np.arange(n, 1, -1, dtype=np.int64)).tolist()
    perm = list(range(n))
    # Each swap depends on the previous ones: a loop over plain ints is the fastest way.
    for i, z in enumerate(offsets):
        j = i + z
        perm[i], perm[j] = perm[j], perm[i]
    return np.array(perm, np.int64)


def bernoulli_tensor(gen, p):
    """``bernoulli_(p_tensor)``: one uniform per value (a double for float64 ``p``), kept where
    ``u < p``."""
    p = np.ascontiguousarray(p).reshape(-1)
    if p.dtype == np.float64:
        return gen._uniform(p.size, np.float64) < p
    return gen._uniform(p.size, np.float32) < p.astype(np.float32)


def bernoulli_scalar(gen, n, p):
    """``bernoulli_(p)`` with a number ``p`` (dropout's masks): a double uniform per value.

    This is PyTorch's kernel on CPUs that are not Intel's; on Intel CPUs PyTorch draws
    these masks from MKL's own generator instead (see "Differences from PyTorch").
    """
    return gen._uniform(n, np.float64) < p


def exponential(gen, n, lambd):
    """``exponential_(lambd)``: ``-1 / lambd * log1p(-u)`` of a double uniform."""
    return -1.0 / lambd * _libm_log1p(-gen._uniform(n, np.float64))


# ---- whole tensors: what the tensor methods and factories call --------------------------------
def in_memory_order(template, flat):
    """An array shaped like ``template`` whose elements, read in ``template``'s memory order,
    are ``flat``: PyTorch's serial kernels walk a strided tensor by its strides."""
    out = np.empty_like(template)
    if template.ndim < 2 or template.flags.c_contiguous:
        out[...] = flat.reshape(template.shape)
        return out
    axes = sorted(range(template.ndim), key=lambda a: -abs(template.strides[a]))
    out.transpose(axes)[...] = flat.reshape([template.shape[a] for a in axes])
    return out


def _check_floating(dtype, kernel):
    if dtype.kind != "f" and dtype.name != "bfloat16":
        from ._type_info import from_numpy_dtype
        name = {"int64": "Long", "int32": "Int", "bool": "Bool", "uint8": "Byte"}.get(
            dtype.name, from_numpy_dtype(dtype).name)
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def uniform_like(template, device, low=0.0, high=1.0, generator_=None):
    """Values of ``uniform_(low, high)`` for an array like ``template`` on ``device``."""
    _check_floating(template.dtype, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(low)} > to={_fmt(high)}")
    if device.type != "cpu":
        return generator(device).uniform(low, high, size=template.shape)
    flat = cpu_generator(generator_)._uniform(template.size, template.dtype, low, high)
    return in_memory_order(template, flat)


def normal_like(template, device, mean=0.0, std=1.0, generator_=None):
    """Values of ``normal_(mean, std)`` for an array like ``template`` on ``device``."""
    _check_floating(template.dtype, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    if device.type != "cpu":
        # CuPy's generator has no normal(): mean + std * N(0, 1), as numpy computes it.
        return mean + std * generator(device).standard_normal(size=template.shape)
    flat = normal_fill(cpu_generator(generator_), template.size, template.dtype, mean, std,
                       template.flags.c_contiguous)
    return in_memory_order(template, flat)


def randint_like(template, device, low, high, generator_=None):
    """Values of ``random_(low, high)`` for an array like ``template`` on ``device``."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                           f"from={low} >= to={high}")
    if device.type != "cpu":
        return generator(device).integers(low, high, size=template.shape)
    flat = random_from_to(cpu_generator(generator_), template.size, low, high, template.dtype)
    return in_memory_order(template, flat)


def _fmt(x):
    """A number as PyTorch's messages print it (1 rather than 1.0)."""
    return int(x) if float(x).is_integer() else x
