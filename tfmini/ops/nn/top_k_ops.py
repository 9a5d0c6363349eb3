"""TopKV2 and InTopKV2, with ``tm.nn.top_k`` and ``tm.nn.in_top_k``.

As TensorFlow's ``core/kernels/topk_op.cc`` and ``in_topk_op.h``: TopKV2 returns the k largest
entries of each row (the last axis) with their indices, the lower index first among equal
values. With ``sorted=False`` TensorFlow leaves the order unspecified (its CPU kernel returns
them in heap order); tfmini returns them sorted, which is one of the allowed orders.
InTopKV2 says whether each target's prediction is among the k largest of its row, counting
ties in its favour; a target outside ``[0, classes)`` or a non-finite prediction is never in
the top k (False, not an error).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core import dtypes
from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope, name_scope
from tfmini.core.shapes import TensorShape, dims_str, unknown_shape
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.type_lists import REAL_TYPES

_INDEX_TYPES = "{int16, int32, int64}"


def _top_k_shape(ic) -> list[TensorShape]:
    x = shape_fns.with_rank_at_least(ic.input_shape(0), 1)
    shape_fns.with_rank(ic.input_shape(1), 0)
    k = shape_fns.dim_from_scalar_input(ic, 1, 1)
    if x.dims is None:
        return [unknown_shape(), unknown_shape()]
    last = x.dims[-1]
    if k is not None and last is not None and last < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {last}")
    out = TensorShape(list(x.dims[:-1]) + [k])
    return [out, out]


def descending_order(x: np.ndarray) -> np.ndarray:
    """Indices sorting each row of ``x`` (last axis) by value, largest first, ties by index."""
    n = x.shape[-1]
    # A stable ascending sort of the reversed row puts equal values latest-index first;
    # reading it backwards gives the largest value first and, among equals, the lowest index.
    order = np.argsort(x[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - order


@register_op(
    "TopKV2",
    inputs=["input: T", "k: Tk"],
    outputs=["values: T", "indices: index_type"],
    attrs=["sorted: bool = true", f"T: {{{REAL_TYPES}}}", f"Tk: {_INDEX_TYPES} = DT_INT32",
           f"index_type: {_INDEX_TYPES} = DT_INT32"],
    shape_fn=_top_k_shape,
)
def top_kv2_kernel(input, k, *, index_type):  # noqa: A002  (TF's arg name)
    """The k largest entries of each row of ``input`` and their indices."""
    k = np.asarray(k)
    if k.ndim != 0:
        raise invalid_argument(f"k must be scalar, got shape {dims_str(k.shape)}")
    k = int(k)
    if k < 0:
        raise invalid_argument(f"Need k >= 0, got {k}")
    if input.ndim < 1:
        raise invalid_argument(f"input must be >= 1-D, got shape {dims_str(input.shape)}")
    n = input.shape[-1]
    if n < k:
        raise invalid_argument(f"input must have at least k columns. Had {n}, needed {k}")
    indices = _top_k_indices(input, k)
    values = np.take_along_axis(input, indices, axis=-1)
    return values, indices.astype(index_type.np_dtype)


def _top_k_indices(x: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k largest of each row, largest first, the lower index first on ties."""
    n = x.shape[-1]
    if k == 0 or 4 * k >= n or x.size == 0 or (x.dtype.kind == "f" and np.isnan(x).any()):
        # Rows with NaN are ordered by NumPy's rule (NaN largest); TensorFlow does not
        # specify that case either.
        return descending_order(x)[..., :k]
    # Few of many: select before sorting. The k-th largest value splits each row into the
    # values above it (all kept) and those equal to it (the lowest indices fill the rest),
    # which is exactly the set a stable full sort would keep.
    kth = np.partition(x, n - k, axis=-1)[..., n - k:n - k + 1]
    greater = x > kth
    equal = x == kth
    room = k - greater.sum(axis=-1, keepdims=True)
    keep = greater | (equal & (np.cumsum(equal, axis=-1) <= room))
    chosen = np.nonzero(keep.reshape(-1, n))[1].reshape(x.shape[:-1] + (k,))
    order = descending_order(np.take_along_axis(x, chosen, axis=-1))
    return np.take_along_axis(chosen, order, axis=-1)


def _in_top_k_shape(ic) -> list[TensorShape]:
    predictions = shape_fns.with_rank(ic.input_shape(0), 2)
    targets = shape_fns.with_rank(ic.input_shape(1), 1)
    shape_fns.with_rank(ic.input_shape(2), 0)
    return [TensorShape([shape_fns.merge_dim(predictions.dims[0], targets.dims[0])])]


@register_op(
    "InTopKV2",
    inputs=["predictions: float", "targets: T", "k: T"],
    outputs=["precision: bool"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape_fn=_in_top_k_shape,
)
def in_top_kv2_kernel(predictions, targets, k):
    """Whether ``predictions[i, targets[i]]`` is among the k largest of row i."""
    k = np.asarray(k)
    if k.ndim != 0:
        raise invalid_argument(f"k must be 0-D, got shape {dims_str(k.shape)}")
    if predictions.ndim != 2:
        raise invalid_argument("predictions must be 2-dimensional")
    if targets.ndim != 1:
        raise invalid_argument("targets must be 1-dimensional")
    batch, classes = predictions.shape
    if batch != targets.shape[0]:
        raise invalid_argument(
            f"First dimension of predictions {batch} must match length of targets "
            f"{targets.shape[0]}")
    valid = (targets >= 0) & (targets < classes)
    safe = np.where(valid, targets, 0).astype(np.intp)
    target_pred = predictions[np.arange(batch), safe]
    valid &= np.isfinite(target_pred)
    more_probable = np.sum(predictions > target_pred[:, None], axis=1)
    return valid & (more_probable < int(k))


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002  (TF's arg names)
          index_type: Any = dtypes.int32, name: str | None = None) -> tuple[Output, Output]:
    """The k largest entries of the last axis and their indices (``tf.nn.top_k``,
    ``tf.math.top_k``): one ``TopKV2`` op.

    Args:
        input: A real tensor of rank >= 1.
        k: The number of entries to keep (an int32 scalar, or a tensor).
        sorted: Whether the entries come largest first (TensorFlow leaves the order
            unspecified otherwise; tfmini sorts them anyway).
        index_type: int16, int32 or int64, the dtype of the indices.
        name: Name of the op.

    Returns:
        ``(values, indices)``, each shaped ``input.shape[:-1] + [k]``.

    Raises:
        ValueError: a known last dimension shorter than a known ``k``, or rank 0 input.
        InvalidArgumentError: the same found when the graph runs ("input must have at least
            k columns. Had 3, needed 5"), or ``k < 0``.
    """
    op = build_op(current_scope(), "TopKV2", [input, k], {
        "sorted": sorted, "index_type": dtypes.as_dtype(index_type)}, name=name)
    return op.outputs[0], op.outputs[1]


def in_top_k(predictions: Any, targets: Any, k: Any, name: str | None = None) -> Output:
    """Whether each target is among the k largest predictions of its row
    (``tf.compat.v1.nn.in_top_k``): ``InTopKV2`` in the scope ``in_top_k``.

    Args:
        predictions: A ``[batch, classes]`` float32 tensor.
        targets: A ``[batch]`` int32 or int64 tensor of class ids.
        k: How many of the largest predictions count (ties count in the target's favour).
        name: Name of the scope and the op.

    Returns:
        A ``[batch]`` bool tensor; False where a target is out of range or its
        prediction is not finite.
    """
    with name_scope(name, "in_top_k"):
        return build_op(current_scope(), "InTopKV2", [predictions, targets, k],
                        name=name).outputs[0]


__all__ = ["in_top_k", "top_k"]
