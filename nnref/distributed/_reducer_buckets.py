"""Which gradients share a bucket (``compute_bucket_assignment_by_size`` of PyTorch's
``torch/csrc/distributed/c10d/reducer.cpp``).

Tensors are taken in the order given and added to the open bucket of their dtype; a bucket
closes as soon as its size reaches its limit (so it may pass the limit by one tensor), and the
next bucket of that dtype gets the next limit of ``bucket_size_limits`` (the last one repeats).
"""
_DEFAULT_FIRST_BUCKET_BYTES = 1024 * 1024  # torch.distributed._DEFAULT_FIRST_BUCKET_BYTES


def _compute_bucket_assignment_by_size(tensors, bucket_size_limits, expect_sparse_gradient=(),
                                       tensor_indices=()):
    """``(bucket_indices, per_bucket_size_limits)`` for ``tensors``.

    ``tensor_indices`` names each tensor (the rebuild after the first iteration passes the
    order gradients became ready); without it the tensors are numbered 0, 1, ... and the
    buckets sorted by their smallest index, as PyTorch does.
    """
    if not bucket_size_limits:
        raise ValueError("Expected at least one size limit")
    result = []
    open_buckets = {}  # dtype -> [indices, size, limit position]
    for position, tensor in enumerate(tensors):
        index = tensor_indices[position] if len(tensor_indices) else position
        if expect_sparse_gradient and expect_sparse_gradient[index]:
            result.append(([index], 2**64 - 1))
            continue
        bucket = open_buckets.setdefault(tensor.dtype, [[], 0, 0])
        bucket[0].append(index)
        bucket[1] += tensor.numel() * tensor.element_size()
        limit = bucket_size_limits[bucket[2]]
        if bucket[1] >= limit:
            result.append((bucket[0], limit))
            open_buckets[tensor.dtype] = [[], 0, min(bucket[2] + 1, len(bucket_size_limits) - 1)]
    for indices, _, limit_position in open_buckets.values():
        if indices:
            result.append((indices, bucket_size_limits[limit_position]))
    if not len(tensor_indices):
        result.sort(key=lambda bucket: min(bucket[0]))
    return [indices for indices, _ in result], [limit for _, limit in result]
