"""The legacy, hook-based spectral normalisation (``torch/nn/utils/spectral_norm.py``): ``weight``
becomes the parameter ``weight_orig`` and the buffers ``weight_u``, ``weight_v``, and a forward
pre-hook sets ``weight = weight_orig / sigma`` before each call, one power-iteration step per
call in training mode.  ``nn.utils.parametrizations.spectral_norm`` is its successor."""
from ...core.autograd.grad_mode import no_grad
from .. import functional as F
from ..modules.conv import ConvTranspose1d, ConvTranspose2d
from ..parameter import Parameter, UninitializedParameter

__all__ = ["SpectralNorm", "SpectralNormLoadStateDictPreHook", "SpectralNormStateDictHook",
           "spectral_norm", "remove_spectral_norm"]


class SpectralNorm:
    """The forward pre-hook of :func:`spectral_norm` (``torch.nn.utils.spectral_norm.SpectralNorm``)."""

    # Version 1: u and v are both saved (version 0 saved weight, weight_orig and u).
    _version = 1

    def __init__(self, name="weight", n_power_iterations=1, dim=0, eps=1e-12):
        self.name = name
        self.dim = dim
        if n_power_iterations <= 0:
            raise ValueError("Expected n_power_iterations to be positive, but "
                             f"got n_power_iterations={n_power_iterations}")
        self.n_power_iterations = n_power_iterations
        self.eps = eps

    def reshape_weight_to_matrix(self, weight):
        """``weight`` as a matrix with ``dim`` first and every other dimension flattened."""
        weight_mat = weight
        if self.dim != 0:
            weight_mat = weight_mat.permute(self.dim, *[d for d in range(weight_mat.dim()) if d != self.dim])
        height = weight_mat.size(0)
        return weight_mat.reshape(height, -1)

    def compute_weight(self, module, do_power_iteration):
        """``weight_orig / sigma``, ``sigma = u . (W v)``; the power steps update ``u``, ``v`` in
        place and are then cloned, so two forwards can both be backpropagated through."""
        weight = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        weight_mat = self.reshape_weight_to_matrix(weight)

        if do_power_iteration:
            with no_grad():
                for _ in range(self.n_power_iterations):
                    v = F.normalize(weight_mat.t().mv(u), dim=0, eps=self.eps, out=v)
                    u = F.normalize(weight_mat.mv(v), dim=0, eps=self.eps, out=u)
                if self.n_power_iterations > 0:
                    u = u.clone()
                    v = v.clone()

        sigma = u.dot(weight_mat.mv(v))
        weight = weight / sigma
        return weight

    def remove(self, module):
        """Put back ``module.<name>`` as a parameter holding the current normalised weight."""
        with no_grad():
            weight = self.compute_weight(module, do_power_iteration=False)
        delattr(module, self.name)
        delattr(module, self.name + "_u")
        delattr(module, self.name + "_v")
        delattr(module, self.name + "_orig")
        module.register_parameter(self.name, Parameter(weight.detach()))

    def __call__(self, module, inputs):
        setattr(module, self.name, self.compute_weight(module, do_power_iteration=module.training))

    def _solve_v_and_rescale(self, weight_mat, u, target_sigma):
        # v with u = normalize(W v) and u . (W v) = target_sigma, for version-0 checkpoints.
        raise NotImplementedError(
            "nnref cannot load a version-0 spectral_norm state_dict (one saving weight but not "
            "weight_v): recovering v needs torch.pinverse and torch.linalg.multi_dot, which nnref "
            "does not have")

    @staticmethod
    def apply(module, name, n_power_iterations, dim, eps):
        """Move ``module.<name>`` to ``<name>_orig``, draw ``u`` and ``v`` and register the hooks."""
        for hook in module._forward_pre_hooks.values():
            if isinstance(hook, SpectralNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two spectral_norm hooks on the same parameter {name}")

        fn = SpectralNorm(name, n_power_iterations, dim, eps)
        weight = module._parameters[name]
        if weight is None:
            raise ValueError(f"`SpectralNorm` cannot be applied as parameter `{name}` is None")
        if isinstance(weight, UninitializedParameter):
            raise ValueError("The module passed to `SpectralNorm` can't have uninitialized parameters. "
                             "Make sure to run the dummy forward before applying spectral normalization")

        with no_grad():
            weight_mat = fn.reshape_weight_to_matrix(weight)
            h, w = weight_mat.size()
            # Random u and v, not power-iterated: the first training call starts from them.
            u = F.normalize(weight.new_empty(h).normal_(0, 1), dim=0, eps=fn.eps)
            v = F.normalize(weight.new_empty(w).normal_(0, 1), dim=0, eps=fn.eps)

        delattr(module, fn.name)
        module.register_parameter(fn.name + "_orig", weight)
        # A plain attribute until the first call: the hook replaces it by the normalised weight.
        setattr(module, fn.name, weight.data)
        module.register_buffer(fn.name + "_u", u)
        module.register_buffer(fn.name + "_v", v)

        module.register_forward_pre_hook(fn)
        module._register_state_dict_hook(SpectralNormStateDictHook(fn))
        module._register_load_state_dict_pre_hook(SpectralNormLoadStateDictPreHook(fn))
        return fn


class SpectralNormLoadStateDictPreHook:
    """Upgrades a version-0 ``state_dict`` on load (``torch.nn.utils.spectral_norm.
    SpectralNormLoadStateDictPreHook``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs):
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is None or version < 1:
            weight_key = prefix + fn.name
            if (version is None and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))
                    and weight_key not in state_dict):
                # A version-1 dict without metadata (a user's copy): nothing to upgrade.
                return
            has_missing_keys = False
            for suffix in ("_orig", "", "_u"):
                key = weight_key + suffix
                if key not in state_dict:
                    has_missing_keys = True
                    if strict:
                        missing_keys.append(key)
            if has_missing_keys:
                return
            with no_grad():
                weight_orig = state_dict[weight_key + "_orig"]
                weight = state_dict.pop(weight_key)
                sigma = (weight_orig / weight).mean()
                weight_mat = fn.reshape_weight_to_matrix(weight_orig)
                u = state_dict[weight_key + "_u"]
                v = fn._solve_v_and_rescale(weight_mat, u, sigma)
                state_dict[weight_key + "_v"] = v


class SpectralNormStateDictHook:
    """Records the format's version in the ``state_dict`` metadata (``torch.nn.utils.
    spectral_norm.SpectralNormStateDictHook``)."""

    def __init__(self, fn):
        self.fn = fn

    def __call__(self, module, state_dict, prefix, local_metadata):
        if "spectral_norm" not in local_metadata:
            local_metadata["spectral_norm"] = {}
        key = self.fn.name + ".version"
        if key in local_metadata["spectral_norm"]:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        local_metadata["spectral_norm"][key] = self.fn._version


def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    """Spectral normalisation through a forward pre-hook: ``weight`` becomes ``weight_orig`` and
    the buffers ``weight_u``, ``weight_v`` (``normal_`` draws, normalised), and
    ``weight = weight_orig / sigma`` is recomputed before each call (``torch.nn.utils.spectral_norm``).
    ``dim`` defaults to 1 for ``ConvTranspose``, else 0.  Returns ``module``."""
    if dim is None:  # nnref has no ConvTranspose3d, the third class PyTorch names here
        dim = 1 if isinstance(module, (ConvTranspose1d, ConvTranspose2d)) else 0
    SpectralNorm.apply(module, name, n_power_iterations, dim, eps)
    return module


def remove_spectral_norm(module, name="weight"):
    """Undo :func:`spectral_norm`: ``weight`` is a parameter again, with the normalised values, and
    the hooks are gone (``torch.nn.utils.remove_spectral_norm``).  Returns ``module``."""
    for k, hook in module._forward_pre_hooks.items():
        if isinstance(hook, SpectralNorm) and hook.name == name:
            hook.remove(module)
            del module._forward_pre_hooks[k]
            break
    else:
        raise ValueError(f"spectral_norm of '{name}' not found in {module}")

    for k, hook in module._state_dict_hooks.items():
        if isinstance(hook, SpectralNormStateDictHook) and hook.fn.name == name:
            del module._state_dict_hooks[k]
            break

    for k, hook in module._load_state_dict_pre_hooks.items():
        if isinstance(hook, SpectralNormLoadStateDictPreHook) and hook.fn.name == name:
            del module._load_state_dict_pre_hooks[k]
            break

    return module
