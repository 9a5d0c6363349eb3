"""SparseToDense (``tensorflow/core/ops/sparse_ops.cc``, kernel ``sparse_to_dense_op.cc``):
the op ``sampled_softmax_loss`` removes accidental hits with."""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.builder import build_op
from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import TensorShape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument

__all__ = ["sparse_to_dense"]


def _sparse_to_dense_shape(ic) -> list[TensorShape]:
    return [shape_fns.shape_from_shape_tensor(ic, "output_shape")]


@register_op(
    "SparseToDense",
    inputs=["sparse_indices: Tindices", "output_shape: Tindices", "sparse_values: T",
            "default_value: T"],
    outputs=["dense: T"],
    attrs=["validate_indices: bool = true", "T: type", "Tindices: {int32, int64}"],
    shape_fn=_sparse_to_dense_shape,
)
def sparse_to_dense_kernel(sparse_indices, output_shape, sparse_values, default_value, *,
                           validate_indices):
    """A dense tensor of ``default_value`` with ``sparse_values`` at ``sparse_indices``."""
    idx = np.asarray(sparse_indices)
    shape = np.asarray(output_shape)
    values = np.asarray(sparse_values)
    default = np.asarray(default_value)
    if idx.ndim > 2:
        raise invalid_argument(
            f"sparse_indices should be a scalar, vector, or matrix, got shape "
            f"{dims_str(idx.shape)}")
    if shape.ndim > 1:
        raise invalid_argument(
            f"output_shape should be a scalar or vector, got shape {dims_str(shape.shape)}")
    num = idx.shape[0] if idx.ndim > 0 else 1
    rank = shape.size
    idx2 = idx.reshape(num, -1) if idx.ndim else idx.reshape(1, 1)
    if idx2.shape[1] != rank:
        raise invalid_argument(
            f"sparse_indices should have {rank} columns (the rank of output_shape), got "
            f"{idx2.shape[1]}")
    if values.ndim > 1 or (values.ndim == 1 and values.size != num):
        raise invalid_argument(
            f"sparse_values has incorrect shape {dims_str(values.shape)}, should be [] or "
            f"[{num}]")
    if default.ndim != 0:
        raise invalid_argument("default_value should be a scalar.")
    dims = [int(d) for d in shape.reshape(-1)]
    out = np.full(dims, default, values.dtype)
    if num == 0:
        return out
    bad = np.flatnonzero(((idx2 < 0) | (idx2 >= np.array(dims, np.int64))).any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise invalid_argument(
            f"indices[{i}] = [{','.join(str(int(v)) for v in idx2[i])}] is out of bounds: "
            f"need 0 <= index < [{','.join(str(d) for d in dims)}]")
    if validate_indices and num > 1:
        flat = np.ravel_multi_index(tuple(idx2.T.astype(np.int64)), dims)
        order = np.diff(flat)
        if (order <= 0).any():
            i = int(np.flatnonzero(order <= 0)[0]) + 1
            kind = "repeated" if order[i - 1] == 0 else "out of order"
            raise invalid_argument(
                f"indices[{i}] = [{','.join(str(int(v)) for v in idx2[i])}] is {kind}")
    out[tuple(idx2.T.astype(np.int64))] = values
    return out


def sparse_to_dense(sparse_indices: Any, output_shape: Any, sparse_values: Any,
                    default_value: Any = 0, validate_indices: bool = True,
                    name: str | None = None) -> Output:
    """A dense tensor from sparse indices and values (``tf.sparse_to_dense``)."""
    from tfmini.core.convert import convert_to_tensor

    values = convert_to_tensor(sparse_values)
    default = convert_to_tensor(default_value, dtype=values.dtype)
    op = build_op(current_scope(), "SparseToDense",
                  [sparse_indices, output_shape, values, default],
                  {"validate_indices": validate_indices}, name=name)
    return op.outputs[0]
