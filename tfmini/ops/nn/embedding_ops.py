"""``tm.nn.embedding_lookup`` over one table or a list of shards, and the sparse lookups
(``embedding_lookup_sparse``, ``safe_embedding_lookup_sparse``), as TensorFlow's
``tensorflow/python/ops/embedding_ops.py`` builds them (``_embedding_lookup_and_transform``,
``_clip``, ``embedding_lookup_sparse_impl``, ``_prune_invalid_ids``).

One table is a gather; several shards route each id with ``mod`` or ``div`` (FloorMod,
FloorDiv, Maximum, Select), split ids and positions with DynamicPartition, gather from each
shard and put the rows back in order with ParallelDynamicStitch. ``max_norm`` clips each row
with ``clip_by_norm``. Gradients reach each shard as IndexedSlices.
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
from tfmini.ops.common.sparse_tensor import SparseTensor
from tfmini.ops.nn.clip_ops import clip_by_norm

__all__ = ["embedding_lookup", "embedding_lookup_sparse", "safe_embedding_lookup_sparse"]


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


def embedding_lookup_sparse(params: Any, sp_ids: SparseTensor, sp_weights: Any,
                            partition_strategy: str = "mod", name: str | None = None,
                            combiner: str | None = None, max_norm: float | None = None,
                            allow_fast_lookup: bool = False) -> Output:
    """Combined embeddings of each row of a sparse id matrix
    (``tf.compat.v1.nn.embedding_lookup_sparse``).

    Row ``r`` of the result combines the embeddings of the ids in row ``r`` of ``sp_ids``:
    ``"sum"`` is the weighted sum, ``"mean"`` (the default) divides it by the sum of the
    weights, ``"sqrtn"`` by the square root of the sum of squared weights (a zero divisor
    gives 0). The result has ``last non-empty row + 1`` rows.

    Args:
        params: A table or a list of shards, as for :func:`embedding_lookup`.
        sp_ids: int SparseTensor ``[batch, max_ids]`` (rows sorted).
        sp_weights: A float SparseTensor with the same indices, or None for weights 1.
        partition_strategy: ``"mod"`` or ``"div"`` for sharded tables.
        name: Name scope.
        combiner: ``"mean"``, ``"sqrtn"`` or ``"sum"``.
        max_norm: Clip each embedding to this L2 norm before combining.
        allow_fast_lookup: Accepted for TensorFlow's signature; the result is the same.

    Raises:
        ValueError: an unknown combiner. TypeError: ``sp_ids`` or ``sp_weights`` is not a
        SparseTensor.
    """
    del allow_fast_lookup
    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got {combiner}")
    if not isinstance(params, list):
        params = list(params) if isinstance(params, tuple) else [params]
    if not isinstance(sp_ids, SparseTensor):
        raise TypeError(f"sp_ids must be SparseTensor, got {type(sp_ids)}")
    ignore_weights = sp_weights is None
    if not ignore_weights and not isinstance(sp_weights, SparseTensor):
        raise TypeError(f"sp_weights must be either None or SparseTensor, got {type(sp_weights)}")
    with name_scope(name, "embedding_lookup_sparse") as scope:
        segment_ids = sp_ids.indices[:, 0]
        ids = sp_ids.values
        sparse_gradient = False
        if len(params) == 1 and not _is_variable(params[0]):
            params = [convert_to_tensor(params[0], name="params")]
        if len(params) == 1 and max_norm is None and ignore_weights:
            # TensorFlow 2.21's fast path: reduce rows of the table itself, with a sparse
            # gradient (SparseSegment*GradV2).
            idx = ids
            embeddings = params[0]
            if _is_variable(embeddings):
                embeddings = embeddings.read_value()
            sparse_gradient = True
        else:
            ids, idx = array_ops.unique(ids)
            embeddings = embedding_lookup(params, ids, partition_strategy=partition_strategy,
                                          max_norm=max_norm)
        if ignore_weights:
            fn = {"sum": array_ops.sparse_segment_sum, "mean": array_ops.sparse_segment_mean,
                  "sqrtn": array_ops.sparse_segment_sqrt_n}[combiner]
            return fn(embeddings, idx, segment_ids, name=scope, sparse_gradient=sparse_gradient)
        if segment_ids.dtype != dtypes.int32:
            segment_ids = math_ops.cast(segment_ids, dtypes.int32)
        weights = sp_weights.values
        embeddings = array_ops.gather(embeddings, idx)
        original_dtype = embeddings.dtype
        if embeddings.dtype == dtypes.float16:
            embeddings = math_ops.cast(embeddings, dtypes.float32)
        if weights.dtype != embeddings.dtype:
            weights = math_ops.cast(weights, embeddings.dtype)
        ones_shape = array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0)
        ones = array_ops.ones(ones_shape, dtype=dtypes.int32)
        bcast_weights_shape = array_ops.concat([array_ops.shape(weights), ones], 0)
        weights = array_ops.reshape(weights, bcast_weights_shape)
        embeddings *= weights
        if combiner == "sum":
            embeddings = math_ops.segment_sum(embeddings, segment_ids, name=scope)
        elif combiner == "mean":
            embeddings = math_ops.segment_sum(embeddings, segment_ids)
            weight_sum = math_ops.segment_sum(weights, segment_ids)
            embeddings = math_ops.div_no_nan(embeddings, weight_sum, name=scope)
        else:
            embeddings = math_ops.segment_sum(embeddings, segment_ids)
            weights_squared = math_ops.pow(weights, 2)
            weight_sum = math_ops.segment_sum(weights_squared, segment_ids)
            weight_sum_sqrt = math_ops.sqrt(weight_sum)
            embeddings = math_ops.div_no_nan(embeddings, weight_sum_sqrt, name=scope)
        if embeddings.dtype != original_dtype:
            embeddings = math_ops.cast(embeddings, original_dtype)
        return embeddings


def _prune_invalid_ids(sparse_ids, sparse_weights):
    is_id_valid = math_ops.greater_equal(sparse_ids.values, 0)
    if sparse_weights is not None:
        is_id_valid = math_ops.logical_and(
            is_id_valid, array_ops.ones_like(sparse_weights.values, dtype=dtypes.bool_))
    sparse_ids = array_ops.sparse_retain(sparse_ids, is_id_valid)
    if sparse_weights is not None:
        sparse_weights = array_ops.sparse_retain(sparse_weights, is_id_valid)
    return sparse_ids, sparse_weights


def _prune_invalid_weights(sparse_ids, sparse_weights):
    if sparse_weights is not None:
        is_weights_valid = math_ops.greater(sparse_weights.values, 0)
        sparse_ids = array_ops.sparse_retain(sparse_ids, is_weights_valid)
        sparse_weights = array_ops.sparse_retain(sparse_weights, is_weights_valid)
    return sparse_ids, sparse_weights


def safe_embedding_lookup_sparse(embedding_weights: Any, sparse_ids: SparseTensor,
                                 sparse_weights: Any = None, combiner: str = "mean",
                                 default_id: int | None = None, name: str | None = None,
                                 partition_strategy: str = "div",
                                 max_norm: float | None = None,
                                 allow_fast_lookup: bool = False) -> Output:
    """:func:`embedding_lookup_sparse` that tolerates invalid ids and empty rows
    (``tf.compat.v1.nn.safe_embedding_lookup_sparse``).

    Negative ids are dropped (and, unless ``combiner="sum"``, ids whose weight is not
    positive); an empty row gives ``default_id``'s embedding, or zeros. ``sparse_ids`` may
    have rank above 2: its leading dimensions are kept in the result.

    Args:
        embedding_weights: A table or a list of shards.
        sparse_ids: int64 SparseTensor ``[d_0, ..., d_n, max_ids]``.
        sparse_weights: Float SparseTensor with the same indices, or None.
        combiner: ``"mean"`` (default), ``"sqrtn"`` or ``"sum"``.
        default_id: Id whose embedding empty rows get; None for zeros.
        name: Name scope.
        partition_strategy: ``"div"`` (this function's default) or ``"mod"``.
        max_norm: As for :func:`embedding_lookup`.
        allow_fast_lookup: Accepted for TensorFlow's signature.

    Returns:
        ``[d_0, ..., d_n, dim]`` embeddings.
    """
    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if not isinstance(embedding_weights, list):
        embedding_weights = (list(embedding_weights) if isinstance(embedding_weights, tuple)
                             else [embedding_weights])
    if len(embedding_weights) < 1:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    embedding_weights = [
        w if (_is_variable(w) and dtype in (None, w.dtype)) else convert_to_tensor(w, dtype=dtype)
        for w in embedding_weights]
    with name_scope(name, "embedding_lookup") as scope:
        original_shape = sparse_ids.dense_shape
        rank_dim = original_shape.shape.dims[0] if original_shape.shape.dims else None
        original_rank = array_ops.size(original_shape) if rank_dim is None else rank_dim
        sparse_ids = array_ops.sparse_reshape(sparse_ids, array_ops.stack([
            math_ops.reduce_prod(array_ops.slice(original_shape, [0], [original_rank - 1])),
            array_ops.gather(original_shape, original_rank - 1)]))
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        sparse_ids, sparse_weights = _prune_invalid_ids(sparse_ids, sparse_weights)
        if combiner != "sum":
            sparse_ids, sparse_weights = _prune_invalid_weights(sparse_ids, sparse_weights)
        sparse_ids, is_row_empty = array_ops.sparse_fill_empty_rows(sparse_ids,
                                                                    default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = array_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(
            embedding_weights, sparse_ids, sparse_weights, combiner=combiner,
            partition_strategy=partition_strategy,
            name=None if default_id is None else scope, max_norm=max_norm,
            allow_fast_lookup=allow_fast_lookup)
        if default_id is None:
            is_row_empty = array_ops.tile(
                array_ops.reshape(is_row_empty, [-1, 1]),
                array_ops.stack([1, array_ops.shape(result)[1]]))
            result = math_ops.where(is_row_empty, array_ops.zeros_like(result), result,
                                    name=scope)
        return array_ops.reshape(result, array_ops.concat([
            array_ops.slice(math_ops.cast(original_shape, dtypes.int32), [0],
                            [original_rank - 1]),
            array_ops.slice(array_ops.shape(result), [1], [-1])], 0))
