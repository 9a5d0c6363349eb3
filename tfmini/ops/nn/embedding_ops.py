"""``tm.nn.embedding_lookup`` over one table or a list of shards, as TensorFlow's
``tensorflow/python/ops/embedding_ops.py`` builds it (``_embedding_lookup_and_transform``,
``_clip``): one table is a gather; several shards route each id with ``mod`` or ``div``
(FloorMod/FloorDiv, Maximum, SelectV2), split ids and positions with DynamicPartition, gather
from each shard and put the rows back in order with ParallelDynamicStitch. ``max_norm`` clips
each row with ``clip_by_norm``. Gradients reach each shard as IndexedSlices.
"""

from __future__ import annotations

from typing import Any

from tfmini.core import dtypes
from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Output
from tfmini.core.scope import name_scope
from tfmini.core.shapes import TensorShape
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops
from tfmini.ops.nn.clip_ops import clip_by_norm

__all__ = ["embedding_lookup"]


def _is_variable(p: Any) -> bool:
    return not isinstance(p, Output) and hasattr(p, "read_value")


def _static_rank(x: Any) -> int | None:
    shape = getattr(x, "shape", None)
    return None if shape is None or shape.dims is None else shape.rank


def _clip(params: Output, ids: Output, max_norm: Any) -> Output:
    if max_norm is None:
        return params
    ids_rank, params_rank = _static_rank(ids), _static_rank(params)
    if ids_rank and params_rank:
        axes: Any = list(range(ids_rank, params_rank))
    else:
        axes = array_ops.range(array_ops.rank(ids), array_ops.rank(params))
    return clip_by_norm(params, max_norm, axes=axes)


def _dim0(p: Any) -> int | None:
    shape = p.shape if not _is_variable(p) else p.get_shape()
    return None if shape.dims is None else shape.dims[0]


def embedding_lookup(params: Any, ids: Any, partition_strategy: str = "mod",
                     name: str | None = None, validate_indices: bool = True,
                     max_norm: float | None = None) -> Output:
    """Rows of an embedding table, or of a table split into shards
    (``tf.compat.v1.nn.embedding_lookup``).

    With a list of ``n`` shards, id ``i`` lives in shard ``i mod n`` at row ``i div n``
    (``"mod"``), or, with ``"div"``, in contiguous ranges: the first ``V mod n`` shards
    hold ``V div n + 1`` rows each (``V`` the total row count).

    Args:
        params: A tensor or variable, or a list of them (shards of equal trailing shape).
        ids: Integer ids, any shape.
        partition_strategy: ``"mod"`` (the v1 default) or ``"div"``; ignored for one table.
        name: Name scope.
        validate_indices: Ignored (as in TensorFlow).
        max_norm: If given, rows whose L2 norm exceeds it are scaled down to it.

    Returns:
        ``ids.shape + params.shape[1:]`` rows.

    Raises:
        ValueError: ``params`` is None or an empty list, or an unknown strategy.
    """
    del validate_indices  # TensorFlow ignores it too
    if params is None:
        raise ValueError("params must be specified")
    if isinstance(params, (list, tuple)) and not params:
        raise ValueError("Length of params is currently 0. Need at least one param.")
    if not isinstance(params, (list, tuple)):
        params = [params]
    params = list(params)
    with name_scope(name, "embedding_lookup") as scope:
        n = len(params)
        if not any(_is_variable(p) for p in params):
            params = [convert_to_tensor(p, name="params") for p in params]
        ids = convert_to_tensor(ids, name="ids")
        if n == 1:
            result = _clip(array_ops.gather(params[0], ids, name=scope), ids, max_norm)
            return array_ops.identity(result)
        flat_ids = array_ops.reshape(ids, [-1])
        original_indices = array_ops.range(array_ops.size(flat_ids))
        if partition_strategy == "mod":
            p_assignments = math_ops.floormod(flat_ids, n)
            new_ids = math_ops.floor_div(flat_ids, n)
        elif partition_strategy == "div":
            dims = [_dim0(p) for p in params]
            if all(d is not None for d in dims):
                num_total = array_ops.constant(sum(dims), flat_ids.dtype)
            else:
                sizes = [d if d is not None else array_ops.shape(p)[0]
                         for d, p in zip(dims, params)]
                num_total = math_ops.reduce_sum(
                    math_ops.cast(array_ops.stack(sizes), flat_ids.dtype))
            per = math_ops.floor_div(num_total, n)
            extras = math_ops.floormod(num_total, n)
            p_assignments = math_ops.maximum(
                math_ops.floor_div(flat_ids, per + 1),
                math_ops.floor_div(flat_ids - extras, per))
            new_ids = math_ops.where(p_assignments < extras,
                                     math_ops.floormod(flat_ids, per + 1),
                                     math_ops.floormod(flat_ids - extras, per))
        else:
            raise ValueError(
                f"Unrecognized partition strategy: {partition_strategy}. Must be one of either "
                "`mod` or `div`.")
        p_assignments = math_ops.cast(p_assignments, dtypes.int32)
        gather_ids = array_ops.dynamic_partition(new_ids, p_assignments, n)
        pindices = array_ops.dynamic_partition(original_indices, p_assignments, n)
        partitioned = [array_ops.gather(params[p], gather_ids[p]) for p in range(n)]
        ret = array_ops.parallel_dynamic_stitch(pindices, partitioned, name=scope)
        element_s = TensorShape(params[0].shape.dims[1:]) \
            if params[0].shape.dims is not None else TensorShape(None)
        for p in params[1:]:
            if p.shape.dims is not None:
                element_s = element_s.merge_with(TensorShape(p.shape.dims[1:])) \
                    if element_s.dims is not None else TensorShape(p.shape.dims[1:])
        if element_s.is_fully_defined():
            element_d: Any = list(element_s.dims)
        else:
            element_d = array_ops.shape(params[0])[1:]
        ret = array_ops.reshape(ret, array_ops.concat([array_ops.shape(ids), element_d], 0))
        return _clip(ret, ids, max_norm)
