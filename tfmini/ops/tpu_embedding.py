"""The simulated TPU-embedding device: TensorFlow's embedding ops with NumPy kernels.

Recommendation models keep their embedding tables on the TPU. Per step the host enqueues ids
(``EnqueueTPUEmbedding*Batch``), the model receives the combined activations
(``RecvTPUEmbeddingActivations``) and hands back their gradients
(``SendTPUEmbeddingGradients``), which the device applies to the touched rows with the
optimizer named in the configuration. ``LoadTPUEmbedding<Alg>Parameters`` and
``RetrieveTPUEmbedding<Alg>Parameters`` move tables and optimizer slots in and out by shard.

Every op here has a kernel only on ``/device:TPU:0`` (``only_devices=("TPU",)``): the builder
places them there when the scope names no device, and a plan that puts one on the CPU fails
with "No OpKernel was registered to support Op ... on device CPU (registered devices: TPU)".

The device state (:class:`EmbeddingDevice`) lives in the TPU device's resource manager:

* the parsed configuration and, per table, its parameters and optimizer slots **sharded
  across ``num_tensor_cores`` simulated cores** (DIV_DEFAULT: contiguous row blocks; MOD:
  ``id % cores``), each shard a separate array, as each core holds its own memory. Lookups
  and updates locate every id's (core, local row) with one vectorised call and loop over the
  cores, never over ids, so results are identical for any core count;
* a FIFO of enqueued batches (Recv waits, as a blocking op, until one is there), and the
  batch the last Recv consumed (what Send's gradients refer to).

Maths (TF_SEMANTICS.md 2.5/2.6): activation of a sample = sum of ``w_i * E[id_i]`` divided by
1 (sum), ``sum(w)`` (mean) or ``sqrt(sum(w**2))`` (sqrtn); empty samples give zero rows. On
Send, every occurrence contributes ``(w_i / D) * dL/da``; contributions to one row (across
samples and across features sharing the table) are summed first, then the optimizer runs
once per touched row: gradient clipping, the update, decoupled weight decay, weight clipping.
Untouched rows keep their values and slots (except non-lazy Adam, which updates every row).

Failure atomicity: each state change registers a ``ctx.on_failure`` undo. Send remembers only
the touched rows' old values (parameters and slots), so a run that fails after Send puts the
table back at a cost proportional to the batch, not the table.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import deque
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.ops import shape_fns
from tfmini.ops import tpu_embedding_config as cfg
from tfmini.ops.kernel_util import invalid_argument

__all__ = ["EmbeddingDevice", "SUPPORTED_OPTIMIZERS"]

_TPU = ("TPU",)
# Where the device state lives in the TPU device's resource manager.
_CONTAINER, _STATE_NAME = "", "tpu_embedding"

# The algorithms the simulated device applies, and the Load/Retrieve op stems registered for
# them (TensorFlow's spelling: "ADAM", "FTRL", "RMSProp").
SUPPORTED_OPTIMIZERS = (
    "stochastic_gradient_descent", "adagrad", "adam", "ftrl", "momentum", "rms_prop",
    "adagrad_momentum",
)

# Initial slot values when ConfigureTPUEmbedding creates a table (TensorFlow leaves them to
# the Load ops; these are the mid-level API's defaults, and keep Adagrad/FTRL away from 0/0).
_INITIAL_SLOT = {("adagrad", "accumulators"): 0.1, ("ftrl", "accumulators"): 0.1}

_MODES = {
    "unspecified": None,
    "inference": "INFERENCE",
    "training": "TRAINING",
    "train": "TRAINING",  # what TF2's mid-level API actually passes
    "backward_pass_only": "BACKWARD_PASS_ONLY",
}
_COMBINERS = ("sum", "mean", "sqrtn")


def _failed_precondition(message: str) -> errors.FailedPreconditionError:
    return errors.FailedPreconditionError(None, None, message)


@functools.lru_cache(maxsize=64)
def _parse_config(text: str) -> cfg.TPUEmbeddingConfiguration:
    """The configuration in a ``config`` attr (cached: the configuration is a frozen value)."""
    return cfg.TPUEmbeddingConfiguration.FromString(text)


def _config_or_error(text: Any, op: str) -> cfg.TPUEmbeddingConfiguration:
    """Run time: the configuration of an op's attr, InvalidArgumentError when malformed."""
    try:
        return _parse_config(text.decode() if isinstance(text, bytes) else text)
    except (ValueError, TypeError) as e:
        raise invalid_argument(f"{op}: Malformed tpu_embedding_config: {e}") from None


# ----------------------------------------------------------------------------------------
# Device state.


class _Table:
    """One embedding table: parameters and slots, each a list of per-core shards.

    Attributes:
        name, vocab, dim: from the TableDescriptor.
        params: the table's OptimizationParameters (None: the table cannot train).
        optimizer: the algorithm's field name (``"adagrad"``) or None.
        slots: slot name (``"parameters"`` first) -> one float32 array per core.
    """

    def __init__(self, desc: cfg.TableDescriptor, num_cores: int, strategy: str):
        self.name = desc.name
        self.vocab = int(desc.vocabulary_size)
        self.dim = int(desc.dimension)
        self.params = desc.optimization_parameters
        self.optimizer = None if self.params is None else self.params.optimizer
        self.num_cores = num_cores
        self.strategy = strategy
        names = ("parameters",) if self.params is None else cfg.slot_names(self.params)
        sizes = [cfg.shard_size(self.vocab, num_cores, k) for k in range(num_cores)]
        self.slots: dict[str, list[np.ndarray]] = {}
        for slot in names:
            init = _INITIAL_SLOT.get((self.optimizer, slot), 0.0)
            self.slots[slot] = [np.full((n, self.dim), init, np.float32) for n in sizes]

    # Locating rows: (positions in the id array, local rows) per core; None for one core,
    # where the global id is the local row and no grouping is needed.
    def locate(self, ids: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]] | None:
        if self.num_cores == 1:
            return None
        core, local = cfg.shard_of_ids(ids, self.vocab, self.num_cores, self.strategy)
        parts = []
        for k in range(self.num_cores):
            pos = np.flatnonzero(core == k)
            parts.append((pos, local[pos]))
        return parts

    def gather(self, slot: str, ids: np.ndarray, parts: Any) -> np.ndarray:
        """Rows ``ids`` (global) of ``slot`` as a new (len(ids), dim) array."""
        shards = self.slots[slot]
        if parts is None:
            return shards[0][ids]
        out = np.empty((len(ids), self.dim), np.float32)
        for shard, (pos, local) in zip(shards, parts):
            if len(pos):
                out[pos] = shard[local]
        return out

    def scatter(self, slot: str, ids: np.ndarray, parts: Any, values: np.ndarray) -> None:
        """Writes ``values`` into rows ``ids`` (unique) of ``slot``, in place."""
        shards = self.slots[slot]
        if parts is None:
            shards[0][ids] = values
            return
        for shard, (pos, local) in zip(shards, parts):
            if len(pos):
                shard[local] = values[pos]

    def full(self, slot: str) -> np.ndarray:
        """The whole slot as one (vocab, dim) array in global row order (a new array)."""
        ids = np.arange(self.vocab, dtype=np.int64)
        return self.gather(slot, ids, self.locate(ids))


class _Batch:
    """One enqueued batch: for each Recv output, the entries that make its rows.

    ``outputs[o]`` is ``(table index, rows, ids, scale)``: entry i adds ``scale[i] *
    E[ids[i]]`` to output row ``rows[i]``. ``rows`` None means row i is entry i (one id per
    sample); ``scale`` None means all ones. ``mode`` is the effective mode of the batch.
    """

    __slots__ = ("outputs", "mode")

    def __init__(self, outputs: list, mode: str):
        self.outputs = outputs
        self.mode = mode


class _Configured:
    """What ConfigureTPUEmbedding sets up: the configuration, tables, queue and pending batch."""

    def __init__(self, config: cfg.TPUEmbeddingConfiguration, text: str):
        self.config = config
        self.text = text
        cores = config.num_shards
        self.tables = [
            _Table(t, cores, config.sharding_strategy) for t in config.table_descriptor
        ]
        self.shapes = [tuple(s) for s in cfg.recv_output_shapes(config)]
        if config.feature_descriptor:
            self.output_tables = [f.table_id for f in config.feature_descriptor]
        else:
            self.output_tables = list(range(len(self.tables)))
        self.tags = cfg.dynamic_learning_rate_tags(config)
        self.queue: deque[_Batch] = deque()
        self.pending: _Batch | None = None  # the batch the last Recv consumed, for Send

    def rows_of_output(self, o: int) -> int:
        return int(np.prod(self.shapes[o][:-1], dtype=np.int64))


class EmbeddingDevice:
    """The TPU embedding state of one Session (held by the TPU device's resource manager).

    ``cond`` guards ``state`` and everything in it; Enqueue notifies it, Recv waits on it.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.RLock())
        self.state: _Configured | None = None

    def __repr__(self) -> str:
        if self.state is None:
            return "<EmbeddingDevice unconfigured>"
        names = [t.name for t in self.state.tables]
        return f"<EmbeddingDevice tables={names} queued={len(self.state.queue)}>"


def _device(ctx: Any) -> EmbeddingDevice:
    return ctx.resource_manager.lookup_or_create(_CONTAINER, _STATE_NAME, EmbeddingDevice)


def _configured(dev: EmbeddingDevice, what: str) -> _Configured:
    state = dev.state
    if state is None:
        raise _failed_precondition(
            f"{what} before ConfigureTPUEmbedding: the TPU embedding is not configured "
            "(run a ConfigureTPUEmbedding op on this session first)"
        )
    return state


# ----------------------------------------------------------------------------------------
# ConfigureTPUEmbedding


@register_op("ConfigureTPUEmbedding", attrs=["config: string"], stateful=True,
             shape_fn=shape_fns.no_outputs, only_devices=_TPU, device="TPU")
def configure_tpu_embedding_kernel(ctx, *, config):
    """Sets up the embedding tables (zeros; slots at their defaults) from ``config``."""
    parsed = _config_or_error(config, "ConfigureTPUEmbedding")
    if parsed.mode == "UNSPECIFIED":
        raise invalid_argument(
            "TPUEmbeddingConfiguration.mode is INVALID. Must be INFERENCE, TRAINING, or "
            "BACKWARD_PASS_ONLY"
        )
    if not parsed.table_descriptor:
        raise invalid_argument("TPUEmbeddingConfiguration has no table_descriptor")
    for t in parsed.table_descriptor:
        if t.optimization_parameters is not None and (
            t.optimization_parameters.optimizer not in SUPPORTED_OPTIMIZERS
        ):
            raise errors.UnimplementedError(
                None, None,
                f"table {t.name!r}: optimizer {t.optimization_parameters.optimizer!r} is not "
                f"simulated; supported: {', '.join(SUPPORTED_OPTIMIZERS)}",
            )
    new = _Configured(parsed, config.decode() if isinstance(config, bytes) else config)
    dev = _device(ctx)
    with dev.cond:
        old = dev.state
        dev.state = new
        dev.cond.notify_all()

    def undo() -> None:
        with dev.cond:
            if dev.state is new:
                dev.state = old

    ctx.on_failure(undo)


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


def _check_ids(ids: np.ndarray, table: _Table, what: str) -> None:
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
           table: _Table, what: str) -> np.ndarray | None:
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


def _enqueue(ctx: Any, dev: EmbeddingDevice, state: _Configured, batch: _Batch) -> None:
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
             what: str) -> tuple[EmbeddingDevice, _Configured, str, list[str]]:
    dev = _device(ctx)
    state = _configured(dev, what)
    _check_ordinal(device_ordinal)
    mode = _mode_of(mode_override, state.config)
    return dev, state, mode, _combiners_of(combiners, len(state.tables))


def _check_count(n: int, state: _Configured, what: str) -> None:
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
             shape_fn=shape_fns.no_outputs, only_devices=_TPU, device="TPU")
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
    _enqueue(ctx, dev, state, _Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingSparseBatch",
             inputs=["sample_indices: N * T1", *_ENQUEUE_INPUTS], attrs=_ENQUEUE_TYPES,
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=_TPU, device="TPU")
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
    _enqueue(ctx, dev, state, _Batch(outputs, mode))


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


def _legacy_layout(state: _Configured, table_ids: Sequence[int],
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


def _feature_inputs(kind: str, state: _Configured, firsts: Sequence[Any], embedding_indices,
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


def _merge_outputs(state: _Configured, per_output: dict[int, list], combs: list[str],
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
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=_TPU, device="TPU")
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
    _enqueue(ctx, dev, state, _Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingRaggedTensorBatch",
             inputs=["sample_splits: N * T1", *_ENQUEUE_INPUTS], attrs=_PER_FEATURE_ATTRS,
             stateful=True, shape_fn=shape_fns.no_outputs, only_devices=_TPU, device="TPU")
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
    _enqueue(ctx, dev, state, _Batch(outputs, mode))


@register_op("EnqueueTPUEmbeddingArbitraryTensorBatch",
             inputs=["sample_indices_or_row_splits: N * T1", *_ENQUEUE_INPUTS],
             attrs=_ENQUEUE_TYPES, stateful=True, shape_fn=shape_fns.no_outputs,
             only_devices=_TPU, device="TPU")
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
    _enqueue(ctx, dev, state, _Batch(_merge_outputs(state, per_output, combs, what), mode))


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


# ----------------------------------------------------------------------------------------
# RecvTPUEmbeddingActivations


def _recv_shape(ic) -> list:
    try:
        config = _parse_config(ic.attrs["config"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"Malformed tpu_embedding_config. ({e})") from None
    shapes = cfg.recv_output_shapes(config)
    if len(shapes) != ic.attrs["num_outputs"]:
        raise ValueError("num outputs != size of output shapes")
    return [list(s) for s in shapes]


def _segment_sum(values: np.ndarray, rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Sum of ``values`` rows per ``rows`` entry into an (n_rows, dim) array (zeros elsewhere)."""
    out = np.zeros((n_rows, values.shape[1]), values.dtype)
    if len(rows) == 0:
        return out
    if np.any(rows[1:] < rows[:-1]):
        order = np.argsort(rows, kind="stable")
        rows, values = rows[order], values[order]
    starts = np.r_[0, np.flatnonzero(rows[1:] != rows[:-1]) + 1]
    out[rows[starts]] = np.add.reduceat(values, starts, axis=0)
    return out


def _activations(state: _Configured, batch: _Batch) -> list[np.ndarray]:
    acts = []
    for o, (t, rows, ids, scale) in enumerate(batch.outputs):
        table = state.tables[t]
        vals = table.gather("parameters", ids, table.locate(ids))
        if scale is not None:
            vals *= scale[:, None]
        shape = state.shapes[o]
        n_rows = state.rows_of_output(o)
        act = vals if rows is None else _segment_sum(vals, rows, n_rows)
        acts.append(act.reshape(shape))
    return acts


def _check_same_config(state: _Configured, config: Any, op: str) -> None:
    if not config or config == state.text:
        return  # the common case, the very same string: no deep comparison per step
    if _config_or_error(config, op) != state.config:
        raise invalid_argument(
            f"{op} was built for a different TPUEmbeddingConfiguration than the one "
            "ConfigureTPUEmbedding set up on this device"
        )


@register_op("RecvTPUEmbeddingActivations", outputs=["outputs: num_outputs * float"],
             attrs=["num_outputs: int >= 1", "config: string"], stateful=True, blocking=True,
             shape_fn=_recv_shape, only_devices=_TPU, device="TPU")
def recv_tpu_embedding_activations_kernel(ctx, *, num_outputs, config):
    """Waits for an enqueued batch and returns its activations (one per table or feature)."""
    what = "RecvTPUEmbeddingActivations"
    dev = _device(ctx)
    with dev.cond:
        state = _configured(dev, what)
        _check_same_config(state, config, what)
        if len(state.shapes) != num_outputs:
            raise invalid_argument(
                f"{what} has {num_outputs} outputs; the configuration has {len(state.shapes)}"
            )
        ctx.wait(dev.cond, lambda: dev.state is not state or bool(state.queue),
                 "an enqueued TPU embedding batch",
                 detail=lambda: "no EnqueueTPUEmbedding* op has run since the last Recv")
        if dev.state is not state:
            raise errors.AbortedError(
                None, None, "The TPU embedding was reconfigured while Recv was waiting"
            )
        batch = state.queue.popleft()
        old_pending = state.pending
        state.pending = batch
        acts = _activations(state, batch)

    def undo() -> None:
        with dev.cond:
            if state.pending is batch:
                state.pending = old_pending
            state.queue.appendleft(batch)
            dev.cond.notify_all()

    ctx.on_failure(undo)
    return acts


# ----------------------------------------------------------------------------------------
# SendTPUEmbeddingGradients and the optimizers.


def _send_shape(ic) -> list:
    for s in ic.input_shape("learning_rates"):
        shape_fns.with_rank(s, 0)
    return []


def _table_gradients(state: _Configured, batch: _Batch,
                     grads: list[np.ndarray]) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """Per table: (unique touched ids, summed gradient rows) over every occurrence."""
    per_table: dict[int, tuple[list, list]] = {}
    for o, (t, rows, ids, scale) in enumerate(batch.outputs):
        if len(ids) == 0:
            continue
        g = grads[o].reshape(-1, grads[o].shape[-1])
        contrib = g if rows is None else g[rows]
        if scale is not None:
            contrib = contrib * scale[:, None]
        acc = per_table.setdefault(t, ([], []))
        acc[0].append(ids)
        acc[1].append(contrib)
    out = {}
    for t, (id_parts, c_parts) in per_table.items():
        ids = id_parts[0] if len(id_parts) == 1 else np.concatenate(id_parts)
        contrib = c_parts[0] if len(c_parts) == 1 else np.concatenate(c_parts)
        order = np.argsort(ids, kind="stable")
        sorted_ids = ids[order]
        starts = np.r_[0, np.flatnonzero(sorted_ids[1:] != sorted_ids[:-1]) + 1]
        summed = np.add.reduceat(contrib[order], starts, axis=0)
        out[t] = (sorted_ids[starts], summed.astype(np.float32, copy=False))
    return out


def _clip(x: np.ndarray, limits: Any) -> np.ndarray:
    if limits is None:
        return x
    lo, hi = limits.lower, limits.upper
    if lo == -math.inf and hi == math.inf:
        return x
    return np.clip(x, np.float32(lo), np.float32(hi))


def _apply(params: Any, lr: float, e: np.ndarray, slots: dict[str, np.ndarray],
           g: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """One optimizer step for the rows in ``e`` (TF_SEMANTICS 2.6); returns new E and slots.

    ``e``, the slots and ``g`` are float32 (rows, dim) blocks; nothing is modified in place.
    """
    g = _clip(g, params.gradient_clipping_limits)
    lr32 = np.float32(lr)
    opt = params.optimizer
    new: dict[str, np.ndarray] = {}
    if opt == "stochastic_gradient_descent":
        e_new = e - lr32 * g
    elif opt == "adagrad":
        a = slots["accumulators"] + g * g
        e_new = e - lr32 * g / np.sqrt(a)
        new["accumulators"] = a
    elif opt == "adam":
        p = params.adam
        # 1 - beta is formed in double precision: in float32, 1 - 0.999 is off by 1e-5.
        b1, b2, eps = np.float32(p.beta1), np.float32(p.beta2), np.float32(p.epsilon)
        m = b1 * slots["momenta"] + np.float32(1.0 - p.beta1) * g
        v = b2 * slots["velocities"] + np.float32(1.0 - p.beta2) * g * g
        denom = np.sqrt(v + eps * eps) if p.use_sum_inside_sqrt else np.sqrt(v) + eps
        e_new = e - lr32 * m / denom
        new["momenta"], new["velocities"] = m, v
    elif opt == "ftrl":
        e_new, new["accumulators"], new["linears"] = _ftrl(
            params.ftrl, lr32, e, slots["accumulators"], slots["linears"], g)
    elif opt == "momentum":
        p = params.momentum
        mu = np.float32(p.momentum)
        m = mu * slots["momenta"] + g
        e_new = e - lr32 * (g + mu * m) if p.use_nesterov else e - lr32 * m
        new["momenta"] = m
    elif opt == "rms_prop":
        p = params.rms_prop
        rho, mu, eps = np.float32(p.rho), np.float32(p.momentum), np.float32(p.epsilon)
        ms = rho * slots["ms"] + np.float32(1.0 - p.rho) * g * g
        mom = mu * slots["mom"] + lr32 * g / np.sqrt(ms + eps)
        e_new = e - mom
        new["ms"], new["mom"] = ms, mom
    elif opt == "adagrad_momentum":
        p = params.adagrad_momentum
        b2 = np.float32(p.beta2)
        if p.beta2 == 1.0:
            a = slots["accumulators"] + g * g
        else:
            a = b2 * slots["accumulators"] + np.float32(1.0 - p.beta2) * g * g
        precond = np.power(a + np.float32(p.epsilon), np.float32(-1.0 / p.exponent))
        mu = np.float32(p.momentum)
        m = mu * slots["momenta"] + g * precond
        update = mu * m + g * precond if p.use_nesterov else m
        e_new = e - lr32 * update
        new["accumulators"], new["momenta"] = a, m
    else:  # pragma: no cover - ConfigureTPUEmbedding refuses the others
        raise errors.UnimplementedError(None, None, f"optimizer {opt!r} is not simulated")
    if params.weight_decay_factor:
        # Decoupled weight decay on the touched rows, from their values before the update.
        wd = np.float32(params.weight_decay_factor)
        if params.multiply_weight_decay_factor_by_learning_rate:
            wd = wd * lr32
        e_new = e_new - wd * e
    e_new = _clip(e_new, params.clipping_limits)
    return e_new.astype(np.float32, copy=False), new


def _ftrl(p: Any, lr: np.float32, e: np.ndarray, acc: np.ndarray, lin: np.ndarray,
          g: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """FTRL-proximal (TensorFlow's ApplyFtrlV2, with ``beta`` and ``multiply_linear_by_lr``)."""
    power = np.float32(-p.lr_power)
    acc_new = acc + g * g

    def pw(x: np.ndarray) -> np.ndarray:
        if power == np.float32(0.5):
            return np.sqrt(x)
        if p.allow_zero_accumulator:
            return np.where(x > 0, np.power(x, power), np.float32(0))
        return np.power(x, power)

    sigma_num = pw(acc_new) - pw(acc)
    l1, l2, beta = np.float32(p.l1), np.float32(p.l2), np.float32(p.beta)
    if p.multiply_linear_by_lr:
        lin_new = lin + lr * g - sigma_num * e
        quadratic = pw(acc_new) + beta + np.float32(2) * l2 * lr
        l1_eff = l1 * lr
    else:
        lin_new = lin + g - sigma_num / lr * e
        quadratic = (pw(acc_new) + beta) / lr + np.float32(2) * l2
        l1_eff = l1
    e_new = np.where(np.abs(lin_new) > l1_eff,
                     (np.sign(lin_new) * l1_eff - lin_new) / quadratic, np.float32(0))
    return e_new.astype(np.float32), acc_new, lin_new


@register_op("SendTPUEmbeddingGradients",
             inputs=["inputs: N * float", "learning_rates: NN * float"],
             attrs=["N: int >= 1", "NN: int >= 0 = 0", "config: string"], stateful=True,
             shape_fn=_send_shape, only_devices=_TPU, device="TPU")
def send_tpu_embedding_gradients_kernel(ctx, inputs, learning_rates, *, config):
    """Applies the gradients of the last Recv's activations to the touched table rows."""
    what = "SendTPUEmbeddingGradients"
    dev = _device(ctx)
    with dev.cond:
        state = _configured(dev, what)
        _check_same_config(state, config, what)
        batch = state.pending
        if batch is None:
            raise _failed_precondition(
                f"{what} without RecvTPUEmbeddingActivations: no activations are waiting for "
                "gradients (run Recv first; each Recv takes one Send)"
            )
        if len(inputs) != len(state.shapes):
            raise invalid_argument(
                f"{what} got {len(inputs)} gradients; Recv gave {len(state.shapes)} activations"
            )
        grads = []
        for o, g in enumerate(inputs):
            g = np.asarray(g, np.float32)
            if g.shape != state.shapes[o]:
                raise invalid_argument(
                    f"gradient {o} has shape {list(g.shape)}; activation {o} has shape "
                    f"{list(state.shapes[o])}"
                )
            grads.append(g)
        if len(learning_rates) != len(state.tags):
            raise invalid_argument(
                f"{what} got {len(learning_rates)} learning rates; the configuration has "
                f"{len(state.tags)} dynamic learning-rate tags"
            )
        rates = []
        for k, lr in enumerate(learning_rates):
            lr = np.asarray(lr)
            if lr.ndim != 0:
                raise invalid_argument(
                    f"learning_rates[{k}] must be a scalar, got shape {list(lr.shape)}"
                )
            rates.append(float(lr))
        state.pending = None
        saved: list = []
        if batch.mode in ("TRAINING", "BACKWARD_PASS_ONLY"):
            saved = _update_tables(state, batch, grads, rates, what)

    def undo() -> None:
        with dev.cond:
            for table, ids, parts, old in reversed(saved):
                for slot, values in old.items():
                    table.scatter(slot, ids, parts, values)
            if state.pending is None:
                state.pending = batch

    ctx.on_failure(undo)


def _update_tables(state: _Configured, batch: _Batch, grads: list[np.ndarray],
                   rates: list[float], what: str) -> list:
    """Applies every table's update; returns the touched rows' old values for the undo."""
    work = []
    for t, (ids, g) in sorted(_table_gradients(state, batch, grads).items()):
        table = state.tables[t]
        if table.params is None:
            raise _failed_precondition(
                f"{what}: table {table.name!r} has no optimization_parameters, so it cannot "
                "be trained (configure it with an optimizer, or enqueue in inference mode)"
            )
        lr_conf = table.params.learning_rate
        lr = rates[lr_conf.dynamic.tag] if lr_conf.is_dynamic else lr_conf.value
        if table.optimizer == "adam" and table.params.adam.use_non_lazy_adam:
            # Non-lazy Adam updates every row (zero gradient where untouched).
            dense = np.zeros((table.vocab, table.dim), np.float32)
            dense[ids] = g
            ids, g = np.arange(table.vocab, dtype=np.int64), dense
        work.append((table, ids, g, lr))
    # Compute every new block before writing any, so a failure leaves all tables unchanged.
    updates = []
    for table, ids, g, lr in work:
        parts = table.locate(ids)
        old = {slot: table.gather(slot, ids, parts) for slot in table.slots}
        e_new, slots_new = _apply(table.params, lr, old["parameters"],
                                  {k: v for k, v in old.items() if k != "parameters"}, g)
        updates.append((table, ids, parts, old, {"parameters": e_new, **slots_new}))
    saved = []
    for table, ids, parts, old, new in updates:
        for slot, values in new.items():
            table.scatter(slot, ids, parts, values)
        saved.append((table, ids, parts, old))
    return saved


# ----------------------------------------------------------------------------------------
# Load / Retrieve parameters.


def _table_attr_check(ic) -> tuple[int, str]:
    table_id, table_name = ic.attrs["table_id"], ic.attrs["table_name"]
    if (table_id >= 0) == bool(table_name):
        raise ValueError("exactly one of table_id or table_name must be non-default")
    return table_id, table_name


def _load_shape(ic) -> list:
    _table_attr_check(ic)
    # TensorFlow 2.21 checks rank 2 and that every slot merges with the parameters; the shard
    # shape is checked when the op runs (the config attr may be empty).
    merged = shape_fns.with_rank(ic.input_shape(0), 2)
    for j in range(1, len(ic.op_def.inputs)):
        merged = shape_fns.merge_shapes(merged, shape_fns.with_rank(ic.input_shape(j), 2))
    return []


def _retrieve_shape(ic) -> list:
    _table_attr_check(ic)
    return [[None, None]] * len(ic.op_def.outputs)


def _find_table(state: _Configured, table_id: int, table_name: str, op: str) -> int:
    if table_name:
        for i, t in enumerate(state.tables):
            if t.name == table_name:
                return i
        raise invalid_argument(
            f"{op}: no table named {table_name!r}; the configuration has "
            f"{[t.name for t in state.tables]}"
        )
    if not 0 <= table_id < len(state.tables):
        raise invalid_argument(
            f"{op}: table_id {table_id} is not in [0, {len(state.tables)})"
        )
    return table_id


def _shard_rows(state: _Configured, table: _Table, num_shards: int, shard_id: int,
                op: str) -> np.ndarray:
    if num_shards < 1 or not 0 <= shard_id < num_shards:
        raise invalid_argument(
            f"{op}: shard_id {shard_id} is not in [0, num_shards={num_shards})"
        )
    return cfg.shard_row_ids(table.vocab, num_shards, shard_id, state.config.sharding_strategy)


def _resolve(ctx: Any, op: str, alg: str, table_id: int, table_name: str, num_shards: int,
             shard_id: int) -> tuple[EmbeddingDevice, _Table, np.ndarray]:
    dev = _device(ctx)
    state = _configured(dev, op)
    table = state.tables[_find_table(state, table_id, table_name, op)]
    if table.optimizer != alg:
        raise invalid_argument(
            f"{op}: table {table.name!r} is configured with optimizer {table.optimizer!r}; use "
            f"{cfg.load_op_name(table.optimizer) if table.optimizer else 'no Load op'} "
            f"/ {cfg.retrieve_op_name(table.optimizer) if table.optimizer else ''}".rstrip(" /")
        )
    return dev, table, _shard_rows(state, table, num_shards, shard_id, op)


def _make_load_kernel(alg: str, op: str, names: tuple[str, ...]) -> Callable:
    def kernel(ctx, *values, table_id, table_name, num_shards, shard_id):
        dev, table, rows = _resolve(ctx, op, alg, table_id, table_name, num_shards, shard_id)
        expected = (len(rows), table.dim)
        arrays = []
        for name, v in zip(names, values):
            v = np.asarray(v)
            if v.shape != expected:
                raise invalid_argument(
                    f"{op}: {name} for shard {shard_id} of {num_shards} of table "
                    f"{table.name!r} must have shape {list(expected)} (rows of the shard, "
                    f"dimension), got {list(v.shape)}"
                )
            arrays.append(v.astype(np.float32, copy=False))
        with dev.cond:
            parts = table.locate(rows)
            old = {name: table.gather(name, rows, parts) for name in names}
            for name, v in zip(names, arrays):
                table.scatter(name, rows, parts, v)

        def undo() -> None:
            with dev.cond:
                for name, v in old.items():
                    table.scatter(name, rows, parts, v)

        ctx.on_failure(undo)

    return kernel


def _make_retrieve_kernel(alg: str, op: str, names: tuple[str, ...]) -> Callable:
    def kernel(ctx, *, table_id, table_name, num_shards, shard_id):
        dev, table, rows = _resolve(ctx, op, alg, table_id, table_name, num_shards, shard_id)
        with dev.cond:
            parts = table.locate(rows)
            out = [table.gather(name, rows, parts) for name in names]
        # One output argument is returned as the value itself, several as a sequence.
        return out[0] if len(out) == 1 else out

    return kernel


_LOAD_ATTRS = ["table_id: int = -1", "table_name: string = ''", "num_shards: int",
               "shard_id: int", "config: string = ''"]

for _alg in SUPPORTED_OPTIMIZERS:
    _names = cfg.slot_names(_alg)
    _load, _retrieve = cfg.load_op_name(_alg), cfg.retrieve_op_name(_alg)
    register_op(
        _load, inputs=[f"{n}: float" for n in _names], attrs=_LOAD_ATTRS, stateful=True,
        shape_fn=_load_shape, only_devices=_TPU, device="TPU",
        doc=f"Loads {', '.join(_names)} of one shard of a {_alg} table into the device.",
    )(_make_load_kernel(_alg, _load, _names))
    register_op(
        _retrieve, outputs=[f"{n}: float" for n in _names], attrs=_LOAD_ATTRS, stateful=True,
        shape_fn=_retrieve_shape, only_devices=_TPU, device="TPU",
        doc=f"Returns {', '.join(_names)} of one shard of a {_alg} table.",
    )(_make_retrieve_kernel(_alg, _retrieve, _names))
    no_gradient(_load)
    no_gradient(_retrieve)

for _op in ("ConfigureTPUEmbedding", "EnqueueTPUEmbeddingIntegerBatch",
            "EnqueueTPUEmbeddingSparseBatch", "EnqueueTPUEmbeddingSparseTensorBatch",
            "EnqueueTPUEmbeddingRaggedTensorBatch", "EnqueueTPUEmbeddingArbitraryTensorBatch",
            "RecvTPUEmbeddingActivations", "SendTPUEmbeddingGradients"):
    # TensorFlow registers no gradient for any of them: Recv's outputs are where the model's
    # backward pass stops, and Send hands those gradients back to the device.
    no_gradient(_op)
