"""The TPU embedding's enqueue ops: a batch of ids becomes entries per Recv output.

``EnqueueTPUEmbedding{IntegerBatch, SparseBatch, SparseTensorBatch, RaggedTensorBatch,
ArbitraryTensorBatch}`` check the ids, sample indices (or row splits) and weights against the
configuration, turn them into ``(table, rows, ids, scale)`` per Recv output (``scale`` is the
combiner's ``w_i / D``) and append that batch to the device's FIFO, where
``RecvTPUEmbeddingActivations`` (``recv_send``) takes it. The family's overview
is in ``tfmini.ops.tpu_embedding.front_tmp``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.tpu_embedding import config as cfg
from tfmini.ops.tpu_embedding.state import (
    TPU_ONLY,
    Batch,
    Configured,
    EmbeddingDevice,
    Table,
    configured,
    embedding_device,
)

_MODES = {
    "unspecified": None,
    "inference": "INFERENCE",
    "training": "TRAINING",
    "train": "TRAINING",  # what TF2's mid-level API actually passes
    "backward_pass_only": "BACKWARD_PASS_ONLY",
}
_COMBINERS = ("sum", "mean", "sqrtn")


# ----------------------------------------------------------------------------------------
# Enqueue: turning the inputs into (rows, ids, scale) per Recv output.


def _mode_of(mode_override: Any, config: cfg.TPUEmbeddingConfiguration) -> str:
    arr = np.asarray(mode_override)
    if arr.ndim != 0:
        raise invalid_argument(
            f"mode_override must be a scalar string, got shape {list(arr.shape)}"
        )
    value = arr.item()
    text = value.decode() if isinstance(value, bytes) else str(value)
    if text not in _MODES:
        raise invalid_argument(
            f"Unsupported mode_override {text!r}; expected one of 'unspecified', 'inference', "
            "'training' (or 'train'), 'backward_pass_only'"
        )
    return _MODES[text] or config.mode


def _combiners_of(combiners: Sequence[str], n_tables: int) -> list[str]:
    if not combiners:
        return ["sum"] * n_tables  # TF: an empty list means sum for every table
    combiners = [c.decode() if isinstance(c, bytes) else c for c in combiners]
    if len(combiners) != n_tables:
        raise invalid_argument(
            f"combiners has {len(combiners)} entries but the configuration has {n_tables} "
            "tables (one combiner per table, or none for 'sum')"
        )
    for i, c in enumerate(combiners):
        if c not in _COMBINERS:
            raise invalid_argument(
                f"combiners[{i}] = {c!r} is not supported; expected 'sum', 'mean' or 'sqrtn'"
            )
    return combiners


def _check_ordinal(device_ordinal: int) -> None:
    if device_ordinal not in (-1, 0):
        raise invalid_argument(
            f"device_ordinal must be -1 or 0 on the simulated TPU (one replica; "
            f"num_tensor_cores shards the tables, not the batch), got {device_ordinal}"
        )


def _vector(value: Any, what: str, dtype: Any) -> np.ndarray:
    arr = np.asarray(value)
    if arr.ndim != 1:
        raise invalid_argument(f"{what} must be rank 1, got shape {list(arr.shape)}")
    return arr.astype(dtype, copy=False)


def _check_ids(ids: np.ndarray, table: Table, what: str) -> None:
    if len(ids) == 0:
        return
    lo, hi = ids.min(), ids.max()
    if lo < 0 or hi >= table.vocab:
        flat = int(np.flatnonzero((ids < 0) | (ids >= table.vocab))[0])
        raise invalid_argument(
            f"{what}[{flat}] = {int(ids[flat])} is not in [0, {table.vocab}) for table "
            f"{table.name!r} (vocabulary_size {table.vocab})"
        )


def _weights(value: Any, n: int, what: str) -> np.ndarray | None:
    """The weights (float32), or None when empty (all ones, as TensorFlow reads it)."""
    w = np.asarray(value)
    if w.size == 0:
        return None
    if w.ndim != 1 or w.shape[0] != n:
        raise invalid_argument(
            f"{what} must be empty or rank 1 with one weight per id ({n}), got shape "
            f"{list(w.shape)}"
        )
    return w.astype(np.float32, copy=False)


def _scale(rows: np.ndarray | None, weights: np.ndarray | None, n_rows: int, combiner: str,
           table: Table, what: str) -> np.ndarray | None:
    """Per entry ``w_i / D_row`` (None for all ones): the combiner's normalisation."""
    if combiner == "sum":
        return weights
    if rows is None:
        if weights is None:
            return None  # one id of weight 1 per sample: mean and sqrtn divide by 1
        rows, n_rows = np.arange(len(weights)), len(weights)
    w = weights if weights is not None else np.ones(len(rows), np.float32)
    if combiner == "mean":
        denom = np.bincount(rows, weights=w, minlength=n_rows)
    else:
        denom = np.sqrt(np.bincount(rows, weights=np.square(w, dtype=np.float64),
                                    minlength=n_rows))
    d = denom[rows]
    if len(d) and not np.all(d != 0):
        bad = int(rows[np.flatnonzero(d == 0)[0]])
        kind = "sum of the weights" if combiner == "mean" else "sum of the squared weights"
        raise invalid_argument(
            f"{what}: sample {bad} of table {table.name!r} has {kind} 0, which is invalid "
            f"for the {combiner!r} combiner"
        )
    return (w / d).astype(np.float32)


def _check_rows(rows: np.ndarray, n_rows: int, what: str) -> None:
    if len(rows) and (rows.min() < 0 or rows.max() >= n_rows):
        flat = int(np.flatnonzero((rows < 0) | (rows >= n_rows))[0])
        raise invalid_argument(f"{what}[{flat}] = {int(rows[flat])} is not in [0, {n_rows})")


def _enqueue(ctx: Any, dev: EmbeddingDevice, state: Configured, batch: Batch) -> None:
    with dev.cond:
        if dev.state is not state:
            raise errors.AbortedError(
                None, None, "The TPU embedding was reconfigured while this batch was enqueued"
            )
        state.queue.append(batch)
        dev.cond.notify_all()

    def undo() -> None:
        with dev.cond:
            try:
                state.queue.remove(batch)
            except ValueError:
                pass  # a Recv of this run took it; that Recv's undo puts it back first

    ctx.on_failure(undo)


def _prepare(ctx: Any, device_ordinal: int, mode_override: Any, combiners: Sequence[str],
             what: str) -> tuple[EmbeddingDevice, Configured, str, list[str]]:
    dev = embedding_device(ctx)
    state = configured(dev, what)
    _check_ordinal(device_ordinal)
    mode = _mode_of(mode_override, state.config)
    return dev, state, mode, _combiners_of(combiners, len(state.tables))


def _check_count(n: int, state: Configured, what: str) -> None:
    if n != len(state.shapes):
        unit = "feature" if state.config.feature_descriptor else "table"
        raise invalid_argument(
            f"{what} got {n} inputs per list but the configuration has {len(state.shapes)} "
            f"{unit}s (one input per {unit})"
        )


_ENQUEUE_TYPES = ["T1: {int32, int64} = DT_INT32", "T2: {int32, int64} = DT_INT32",
                  "T3: {float, double} = DT_FLOAT", "N: int >= 1", "device_ordinal: int = -1",
                  "combiners: list(string) = []"]
_ENQUEUE_INPUTS = ["embedding_indices: N * T2", "aggregation_weights: N * T3",
                   "mode_override: string"]


@register_op("EnqueueTPUEmbeddingIntegerBatch",
             inputs=["batch: N * int32", "mode_override: string"],
             attrs=["N: int >= 1", "device_ordinal: int = -1"], stateful=True,
             shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def enqueue_integer_batch_kernel(ctx, batch, mode_override, *, device_ordinal):
    """One id per sample: ``batch[i]`` holds the ids of Recv output i, row by row."""
    what = "EnqueueTPUEmbeddingIntegerBatch"
    dev, state, mode, _ = _prepare(ctx, device_ordinal, mode_override, [], what)
    _check_count(len(batch), state, what)
    outputs = []
    for o, ids in enumerate(batch):
        ids = _vector(ids, f"batch[{o}]", np.int64)
        n_rows = state.rows_of_output(o)
        if len(ids) != n_rows:
            raise invalid_argument(
                f"batch[{o}] has {len(ids)} ids; output {o} has {n_rows} rows (one id each)"
            )
        table = state.tables[state.output_tables[o]]
        _check_ids(ids, table, f"batch[{o}]")
        outputs.append((state.output_tables[o], None, ids, None))
    _enqueue(ctx, dev, state, Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingSparseBatch",
             inputs=["sample_indices: N * T1", *_ENQUEUE_INPUTS], attrs=_ENQUEUE_TYPES,
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def enqueue_sparse_batch_kernel(ctx, sample_indices, embedding_indices, aggregation_weights,
                                mode_override, *, device_ordinal, combiners):
    """Per Recv output i: ``sample_indices[i][k]`` is the output row of id k (``b * nf + f``)."""
    what = "EnqueueTPUEmbeddingSparseBatch"
    dev, state, mode, combs = _prepare(ctx, device_ordinal, mode_override, combiners, what)
    _check_count(len(sample_indices), state, what)
    outputs = []
    for o in range(len(sample_indices)):
        t = state.output_tables[o]
        table = state.tables[t]
        ids = _vector(embedding_indices[o], f"embedding_indices[{o}]", np.int64)
        rows = _sample_indices(sample_indices[o], len(ids), o)
        n_rows = state.rows_of_output(o)
        if rows is None:
            _check_dense(ids, n_rows, o)
        else:
            _check_rows(rows, n_rows, f"sample_indices[{o}]")
        _check_ids(ids, table, f"embedding_indices[{o}]")
        w = _weights(aggregation_weights[o], len(ids), f"aggregation_weights[{o}]")
        scale = _scale(rows, w, n_rows, combs[t], table, what)
        outputs.append((t, rows, ids, scale))
    _enqueue(ctx, dev, state, Batch(outputs, mode))


def _sample_indices(value: Any, n_ids: int, o: int) -> np.ndarray | None:
    """Rank-1 sample indices, one per id; None when empty (each id its own sample)."""
    arr = np.asarray(value)
    if arr.size == 0 and n_ids > 0:
        return None
    rows = _vector(arr, f"sample_indices[{o}]", np.int64)
    if len(rows) != n_ids:
        raise invalid_argument(
            f"sample_indices[{o}] has {len(rows)} entries but embedding_indices[{o}] has "
            f"{n_ids}; they must have equal lengths"
        )
    return rows


def _check_dense(ids: np.ndarray, n_rows: int, o: int) -> None:
    if len(ids) != n_rows:
        raise invalid_argument(
            f"embedding_indices[{o}] has {len(ids)} ids and no sample indices (one id per "
            f"sample), but output {o} has {n_rows} samples"
        )


def _legacy_layout(state: Configured, table_ids: Sequence[int],
                   max_sequence_lengths: Sequence[int], what: str) -> list[tuple[int, int, int]]:
    """Per input (output = table, first feature slot, sequence length L or 0).

    Without feature descriptors a table's Recv output has ``batch * num_features`` rows; its
    inputs take the feature slots in order, a sequence feature ``L`` slots.
    """
    used = [0] * len(state.tables)
    layout = []
    for i, t in enumerate(table_ids):
        seq = max_sequence_lengths[i] if max_sequence_lengths else 0
        layout.append((t, used[t], seq))
        used[t] += max(seq, 1)
    for t, table in enumerate(state.tables):
        nf = state.config.table_descriptor[t].num_features
        if used[t] != nf:
            raise invalid_argument(
                f"{what}: the inputs fill {used[t]} feature slots of table {table.name!r}, "
                f"whose num_features is {nf}"
            )
    return layout


def _positions(rows: np.ndarray) -> np.ndarray:
    """For each entry, how many earlier entries share its sample (its sequence position)."""
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    starts = np.r_[0, np.flatnonzero(sorted_rows[1:] != sorted_rows[:-1]) + 1]
    run_start = np.repeat(starts, np.diff(np.r_[starts, len(rows)]))
    pos = np.empty(len(rows), np.int64)
    pos[order] = np.arange(len(rows)) - run_start
    return pos


def _feature_inputs(kind: str, state: Configured, firsts: Sequence[Any], embedding_indices,
                    aggregation_weights, combs: list[str], table_ids: Sequence[int],
                    max_sequence_lengths: Sequence[int], num_features: Sequence[int],
                    what: str) -> list:
    """Entries per Recv output for the per-feature enqueues (SparseTensor and Ragged)."""
    n = len(firsts)
    if len(table_ids) != n:
        raise invalid_argument(
            f"{what}: table_ids has {len(table_ids)} entries for {n} inputs (one table per "
            "input)"
        )
    for name, lst in (("max_sequence_lengths", max_sequence_lengths),
                      ("num_features", num_features)):
        if lst and len(lst) != n:
            raise invalid_argument(f"{what}: {name} must be empty or have {n} entries")
    for i, t in enumerate(table_ids):
        if not 0 <= t < len(state.tables):
            raise invalid_argument(
                f"{what}: table_ids[{i}] = {t} is not in [0, {len(state.tables)})"
            )
    fds = state.config.feature_descriptor
    if fds:
        _check_count(n, state, what)
        for i, t in enumerate(table_ids):
            if fds[i].table_id != t:
                raise invalid_argument(
                    f"{what}: table_ids[{i}] = {t} but feature {fds[i].name!r} looks up table "
                    f"{fds[i].table_id}"
                )
        layout = [(i, 0, 0) for i in range(n)]
    else:
        layout = _legacy_layout(state, table_ids, max_sequence_lengths, what)
    per_output: dict[int, list] = {}
    batch_size = state.config.batch_size_per_tensor_core
    for i in range(n):
        o, slot, seq = layout[i]
        t = table_ids[i]
        table = state.tables[t]
        ids = _vector(embedding_indices[i], f"embedding_indices[{i}]", np.int64)
        _check_ids(ids, table, f"embedding_indices[{i}]")
        w = _weights(aggregation_weights[i], len(ids), f"aggregation_weights[{i}]")
        n_samples = state.rows_of_output(o) if fds else batch_size
        if kind == "ragged":
            splits = _vector(firsts[i], f"sample_splits[{i}]", np.int64)
            if len(splits) == 0:
                samples = None
            else:
                if (splits[0] != 0 or splits[-1] != len(ids) or len(splits) - 1 > n_samples
                        or np.any(np.diff(splits) < 0)):
                    raise invalid_argument(
                        f"sample_splits[{i}] must rise from 0 to {len(ids)} (the number of "
                        f"ids) with at most {n_samples + 1} entries, got {splits.tolist()[:8]}"
                    )
                samples = np.repeat(np.arange(len(splits) - 1), np.diff(splits))
        else:
            samples = _sample_indices(firsts[i], len(ids), i)
        if samples is None:
            _check_dense(ids, n_samples, i)
            samples = np.arange(len(ids))
        else:
            _check_rows(samples, n_samples, f"sample_indices[{i}]")
        if fds:
            rows = samples
        elif seq:
            pos = _positions(samples)
            keep = pos < seq  # sequences are truncated at max_sequence_length
            samples, pos, ids = samples[keep], pos[keep], ids[keep]
            w = None if w is None else w[keep]
            nf = state.config.table_descriptor[t].num_features
            rows = samples * nf + slot + pos
        else:
            nf = state.config.table_descriptor[t].num_features
            rows = samples * nf + slot
        per_output.setdefault(o, []).append((rows, ids, w))
    return _merge_outputs(state, per_output, combs, what)


def _merge_outputs(state: Configured, per_output: dict[int, list], combs: list[str],
                   what: str) -> list:
    outputs = []
    for o in range(len(state.shapes)):
        t = state.output_tables[o]
        table = state.tables[t]
        parts = per_output.get(o, [])
        if parts:
            rows = np.concatenate([p[0] for p in parts])
            ids = np.concatenate([p[1] for p in parts])
            if any(p[2] is not None for p in parts):
                w = np.concatenate([
                    p[2] if p[2] is not None else np.ones(len(p[1]), np.float32) for p in parts
                ])
            else:
                w = None
        else:
            rows, ids, w = np.zeros(0, np.int64), np.zeros(0, np.int64), None
        scale = _scale(rows, w, state.rows_of_output(o), combs[t], table, what)
        outputs.append((t, rows, ids, scale))
    return outputs


_PER_FEATURE_ATTRS = [*_ENQUEUE_TYPES, "table_ids: list(int)",
                      "max_sequence_lengths: list(int) = []", "num_features: list(int) = []"]


@register_op("EnqueueTPUEmbeddingSparseTensorBatch",
             inputs=["sample_indices: N * T1", *_ENQUEUE_INPUTS], attrs=_PER_FEATURE_ATTRS,
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def enqueue_sparse_tensor_batch_kernel(ctx, sample_indices, embedding_indices,
                                       aggregation_weights, mode_override, *, device_ordinal,
                                       combiners, table_ids, max_sequence_lengths,
                                       num_features):
    """Per feature i: SparseTensor rows (``indices[:, 0]``), ids and weights; table_ids[i]."""
    what = "EnqueueTPUEmbeddingSparseTensorBatch"
    dev, state, mode, combs = _prepare(ctx, device_ordinal, mode_override, combiners, what)
    outputs = _feature_inputs("sparse", state, sample_indices, embedding_indices,
                              aggregation_weights, combs, list(table_ids),
                              list(max_sequence_lengths), list(num_features), what)
    _enqueue(ctx, dev, state, Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingRaggedTensorBatch",
             inputs=["sample_splits: N * T1", *_ENQUEUE_INPUTS], attrs=_PER_FEATURE_ATTRS,
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def enqueue_ragged_tensor_batch_kernel(ctx, sample_splits, embedding_indices,
                                       aggregation_weights, mode_override, *, device_ordinal,
                                       combiners, table_ids, max_sequence_lengths,
                                       num_features):
    """Per feature i: RaggedTensor ``row_splits``, flat ids and weights; table_ids[i]."""
    what = "EnqueueTPUEmbeddingRaggedTensorBatch"
    dev, state, mode, combs = _prepare(ctx, device_ordinal, mode_override, combiners, what)
    outputs = _feature_inputs("ragged", state, sample_splits, embedding_indices,
                              aggregation_weights, combs, list(table_ids),
                              list(max_sequence_lengths), list(num_features), what)
    _enqueue(ctx, dev, state, Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingArbitraryTensorBatch",
             inputs=["sample_indices_or_row_splits: N * T1", *_ENQUEUE_INPUTS],
             attrs=_ENQUEUE_TYPES, stateful=True, shape_fn=shape_fns.no_outputs,
             only_devices=TPU_ONLY, device="TPU")
def enqueue_arbitrary_tensor_batch_kernel(ctx, sample_indices_or_row_splits,
                                          embedding_indices, aggregation_weights,
                                          mode_override, *, device_ordinal, combiners):
    """Per feature descriptor i: dense ids (empty indices), sparse indices (rank 2; the
    leading columns address the feature's ``input_shape``) or ragged row splits (rank 1)."""
    what = "EnqueueTPUEmbeddingArbitraryTensorBatch"
    dev, state, mode, combs = _prepare(ctx, device_ordinal, mode_override, combiners, what)
    fds = state.config.feature_descriptor
    if not fds:
        raise invalid_argument(
            f"{what} needs feature descriptors in the TPUEmbeddingConfiguration (it enqueues "
            "one input per feature); use EnqueueTPUEmbeddingSparseTensorBatch with table_ids "
            "for a per-table configuration"
        )
    _check_count(len(sample_indices_or_row_splits), state, what)
    per_output: dict[int, list] = {}
    for i, first in enumerate(sample_indices_or_row_splits):
        table = state.tables[fds[i].table_id]
        shape = tuple(fds[i].input_shape)
        n_samples = state.rows_of_output(i)
        ids = _vector(embedding_indices[i], f"embedding_indices[{i}]", np.int64)
        _check_ids(ids, table, f"embedding_indices[{i}]")
        w = _weights(aggregation_weights[i], len(ids), f"aggregation_weights[{i}]")
        arr = np.asarray(first).astype(np.int64, copy=False)
        keep = None
        if arr.size == 0 or arr.shape[0] == 0:
            _check_dense(ids, n_samples, i)
            rows = np.arange(len(ids))
        elif arr.ndim == 2:
            rows, keep = _rows_from_sparse(arr, len(ids), shape, i)
        elif arr.ndim == 1:
            rows, keep = _rows_from_splits(arr, len(ids), shape, i)
        else:
            raise invalid_argument(
                f"sample_indices_or_row_splits[{i}] must be rank 1 (row splits) or rank 2 "
                f"(sparse indices), got shape {list(arr.shape)}"
            )
        if keep is not None:
            ids = ids[keep]
            w = None if w is None else w[keep]
        per_output[i] = [(rows, ids, w)]
    _enqueue(ctx, dev, state, Batch(_merge_outputs(state, per_output, combs, what), mode))


def _rows_from_sparse(indices: np.ndarray, n_ids: int, shape: tuple[int, ...],
                      i: int) -> tuple[np.ndarray, np.ndarray | None]:
    what = f"sample_indices_or_row_splits[{i}]"
    if indices.shape[0] != n_ids:
        raise invalid_argument(f"{what} has {indices.shape[0]} rows for {n_ids} ids")
    if indices.shape[1] < len(shape):
        raise invalid_argument(
            f"{what} has {indices.shape[1]} columns; the feature's input_shape "
            f"{list(shape)} needs at least {len(shape)}"
        )
    coords = indices[:, : len(shape)]
    if np.any(coords < 0) or np.any(coords[:, 0] >= shape[0]):
        raise invalid_argument(
            f"{what}: sample coordinates must lie in the input_shape {list(shape)}"
        )
    # Positions past a sequence dimension are truncated, as max_sequence_length truncates.
    inside = np.all(coords < np.asarray(shape), axis=1)
    keep = None if inside.all() else inside
    if keep is not None:
        coords = coords[keep]
    return np.ravel_multi_index(tuple(coords.T), shape).astype(np.int64), keep


def _rows_from_splits(splits: np.ndarray, n_ids: int, shape: tuple[int, ...],
                      i: int) -> tuple[np.ndarray, np.ndarray | None]:
    what = f"sample_indices_or_row_splits[{i}]"
    n_samples = int(np.prod(shape, dtype=np.int64))
    if splits[0] != 0 or splits[-1] != n_ids or np.any(np.diff(splits) < 0):
        raise invalid_argument(
            f"{what}: row splits must rise from 0 to {n_ids} (the number of ids)"
        )
    n_rows = len(splits) - 1
    row_of = np.repeat(np.arange(n_rows), np.diff(splits))
    if n_rows == n_samples:
        return row_of, None
    if len(shape) >= 2 and n_rows * shape[-1] == n_samples:
        # A ragged sequence feature: each id is its own sample at its position in the row.
        pos = np.arange(n_ids) - splits[row_of]
        keep = pos < shape[-1]
        return (row_of * shape[-1] + pos)[keep], (None if keep.all() else keep)
    raise invalid_argument(
        f"{what} describes {n_rows} rows but the feature's input_shape {list(shape)} has "
        f"{n_samples} samples"
    )


for _op in ("EnqueueTPUEmbeddingIntegerBatch", "EnqueueTPUEmbeddingSparseBatch",
            "EnqueueTPUEmbeddingSparseTensorBatch", "EnqueueTPUEmbeddingRaggedTensorBatch",
            "EnqueueTPUEmbeddingArbitraryTensorBatch"):
    # TensorFlow registers no gradient for any of them: they hand ids to the device.
    no_gradient(_op)
