"""``nn.DataParallel`` and ``data_parallel`` (``torch/nn/parallel/data_parallel.py``).

PyTorch's DataParallel splits each batch over the GPUs of one process: every step it makes a
replica per GPU with ``Module._replicate_for_data_parallel`` (a shallow copy whose parameters
are *non-leaf* copies broadcast from the original, which is why ``zero_grad`` on a replica
warns), runs them in threads and gathers the outputs.  Without a GPU it does none of that: the
wrapper keeps ``device_ids == []`` and simply calls the module.  nnref does the same on CPU;
with GPUs present it raises rather than silently using one.
"""
from ..modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


def _gpu_available():
    from ... import cuda
    return cuda.is_available()


def _refuse_gpus():
    raise RuntimeError("nnref's DataParallel does not split batches over GPUs (it has no "
                       "replicate/scatter/gather across devices); use DistributedDataParallel "
                       "with one process per device, or call the module directly.")


class DataParallel(Module):
    """Wraps ``module``; on a machine without GPU, ``forward`` is ``module.forward``.

    The module is registered as the child ``module``, so ``state_dict`` keys start with
    ``module.`` exactly as in PyTorch (load them into a bare model after removing the prefix).
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if _gpu_available():
            _refuse_gpus()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """The functional form; as PyTorch's, it needs a GPU type to split over."""
    if _gpu_available():
        _refuse_gpus()
    raise RuntimeError("device type could not be determined")
