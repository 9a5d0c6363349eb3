"""The simulated TPU embedding's device state, and ``ConfigureTPUEmbedding``, which sets it up.

:class:`EmbeddingDevice` lives in the TPU device's resource manager (found with
:func:`embedding_device`); once configured it holds a :class:`Configured`: the parsed
configuration, one :class:`Table` per table descriptor (parameters and optimizer slots, each
sharded across ``num_tensor_cores`` simulated cores), the FIFO of enqueued batches
(:class:`Batch`) and the batch the last Recv consumed. The ops that use the state are in
``enqueue``, ``recv_send`` and ``load_retrieve``;
the family's overview is in ``tfmini.ops.tpu_embedding.front_tmp``.
"""

from __future__ import annotations

import functools
import threading
from collections import deque
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.tpu_embedding import config as cfg
from tfmini.ops.tpu_embedding.updates import SUPPORTED_OPTIMIZERS

TPU_ONLY = ("TPU",)
# Where the device state lives in the TPU device's resource manager.
_CONTAINER, _STATE_NAME = "", "tpu_embedding"

# Initial slot values when ConfigureTPUEmbedding creates a table (TensorFlow leaves them to
# the Load ops; these are the mid-level API's defaults, and keep Adagrad/FTRL away from 0/0).
_INITIAL_SLOT = {("adagrad", "accumulators"): 0.1, ("ftrl", "accumulators"): 0.1}


# ----------------------------------------------------------------------------------------
# The configuration attr, and the error for ops run out of order.


def failed_precondition(message: str) -> errors.FailedPreconditionError:
    """The error of an op run before the step it needs (Recv before Configure, ...)."""
    return errors.FailedPreconditionError(None, None, message)


@functools.lru_cache(maxsize=64)
def parse_config(text: str) -> cfg.TPUEmbeddingConfiguration:
    """The configuration in a ``config`` attr (cached: the configuration is a frozen value)."""
    return cfg.TPUEmbeddingConfiguration.FromString(text)


def config_or_error(text: Any, op: str) -> cfg.TPUEmbeddingConfiguration:
    """Run time: the configuration of an op's attr, InvalidArgumentError when malformed."""
    try:
        return parse_config(text.decode() if isinstance(text, bytes) else text)
    except (ValueError, TypeError) as e:
        raise invalid_argument(f"{op}: Malformed tpu_embedding_config: {e}") from None


def check_same_config(state: Configured, config: Any, op: str) -> None:
    """Run time: an op's ``config`` attr (when not empty) is the configuration in use."""
    if not config or config == state.text:
        return  # the common case, the very same string: no deep comparison per step
    if config_or_error(config, op) != state.config:
        raise invalid_argument(
            f"{op} was built for a different TPUEmbeddingConfiguration than the one "
            "ConfigureTPUEmbedding set up on this device"
        )


# ----------------------------------------------------------------------------------------
# Device state.


class Table:
    """One embedding table: parameters and slots, each a list of per-core shards.

    Attributes:
        name, vocab, dim: from the TableDescriptor.
        params: the table's OptimizationParameters (None: the table cannot train).
        optimizer: the algorithm's field name (``"adagrad"``) or None.
        slots: slot name (``"parameters"`` first) -> one float32 array per core.
    """

    def __init__(self, desc: cfg.TableDescriptor, num_cores: int, strategy: str,
                 allocate: bool = True):
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
        # A host's view of a table sharded over ps tasks (ps_shards) holds no rows.
        for slot in names if allocate else ():
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
        if parts is None:  # np.take copies rows about twice as fast as indexing
            return np.take(shards[0], ids, axis=0)
        out = np.empty((len(ids), self.dim), np.float32)
        for shard, (pos, local) in zip(shards, parts):
            if len(pos):
                out[pos] = np.take(shard, local, axis=0)
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


class Batch:
    """One enqueued batch: for each Recv output, the entries that make its rows.

    ``outputs[o]`` is ``(table index, rows, ids, scale)``: entry i adds ``scale[i] *
    E[ids[i]]`` to output row ``rows[i]``. ``rows`` None means row i is entry i (one id per
    sample); ``scale`` None means all ones. ``mode`` is the effective mode of the batch.
    """

    __slots__ = ("outputs", "mode")

    def __init__(self, outputs: list, mode: str):
        self.outputs = outputs
        self.mode = mode


class Configured:
    """What ConfigureTPUEmbedding sets up: the configuration, tables, queue and pending batch."""

    def __init__(self, config: cfg.TPUEmbeddingConfiguration, text: str,
                 host_only: bool = False):
        self.config = config
        self.text = text
        # host_only: the tables live on the ps tasks (ps_shards); this state keeps only the
        # configuration, the queue and the pending batch.
        self.host_only = host_only
        cores = config.num_shards
        self.tables = [
            Table(t, cores, config.sharding_strategy, allocate=not host_only)
            for t in config.table_descriptor
        ]
        self.shapes = [tuple(s) for s in cfg.recv_output_shapes(config)]
        if config.feature_descriptor:
            self.output_tables = [f.table_id for f in config.feature_descriptor]
        else:
            self.output_tables = list(range(len(self.tables)))
        self.tags = cfg.dynamic_learning_rate_tags(config)
        self.queue: deque[Batch] = deque()
        self.pending: Batch | None = None  # the batch the last Recv consumed, for Send

    def rows_of_output(self, o: int) -> int:
        return int(np.prod(self.shapes[o][:-1], dtype=np.int64))


class EmbeddingDevice:
    """The TPU embedding state of one Session (held by the TPU device's resource manager).

    ``cond`` guards ``state`` and everything in it; Enqueue notifies it, Recv waits on it.
    """

    def __init__(self) -> None:
        self.cond = threading.Condition(threading.RLock())
        self.state: Configured | None = None

    def __repr__(self) -> str:
        if self.state is None:
            return "<EmbeddingDevice unconfigured>"
        names = [t.name for t in self.state.tables]
        return f"<EmbeddingDevice tables={names} queued={len(self.state.queue)}>"


def embedding_device(ctx: Any) -> EmbeddingDevice:
    """The session's TPU embedding state (created, unconfigured, on first use)."""
    return ctx.resource_manager.lookup_or_create(_CONTAINER, _STATE_NAME, EmbeddingDevice)


def configured(dev: EmbeddingDevice, what: str) -> Configured:
    """The device's configured state; FailedPreconditionError before ConfigureTPUEmbedding."""
    state = dev.state
    if state is None:
        raise failed_precondition(
            f"{what} before ConfigureTPUEmbedding: the TPU embedding is not configured "
            "(run a ConfigureTPUEmbedding op on this session first)"
        )
    return state


def take_batch(ctx: Any, dev: EmbeddingDevice, state: Configured, reconfigured: str) -> Batch:
    """Waits (with the run's deadline) for an enqueued batch and makes it the pending one;
    a failed run puts it back in front of the queue, with the former pending batch.

    Call with ``dev.cond`` held. ``reconfigured``: the AbortedError's message when the
    device is configured anew while this waits.
    """
    ctx.wait(dev.cond, lambda: dev.state is not state or bool(state.queue),
             "an enqueued TPU embedding batch",
             detail=lambda: "no EnqueueTPUEmbedding* op has run since the last Recv")
    if dev.state is not state:
        raise errors.AbortedError(None, None, reconfigured)
    batch = state.queue.popleft()
    old_pending = state.pending
    state.pending = batch

    def undo() -> None:
        with dev.cond:
            if state.pending is batch:
                state.pending = old_pending
            state.queue.appendleft(batch)
            dev.cond.notify_all()

    ctx.on_failure(undo)
    return batch


# ----------------------------------------------------------------------------------------
# ConfigureTPUEmbedding


@register_op("ConfigureTPUEmbedding", attrs=["config: string"], stateful=True,
             shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def configure_tpu_embedding_kernel(ctx, *, config):
    """Sets up the embedding tables (zeros; slots at their defaults) from ``config``."""
    configure_device(ctx, config, "ConfigureTPUEmbedding")


def configure_device(ctx: Any, config: Any, what: str, host_only: bool = False) -> Configured:
    """Checks ``config`` and makes it the device's configured state (undone if the run fails).

    ``host_only``: the state holds no table rows (the tables are sharded over ps tasks).
    """
    parsed = config_or_error(config, what)
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
    new = Configured(parsed, config.decode() if isinstance(config, bytes) else config,
                     host_only=host_only)
    dev = embedding_device(ctx)
    with dev.cond:
        old = dev.state
        dev.state = new
        dev.cond.notify_all()

    def undo() -> None:
        with dev.cond:
            if dev.state is new:
                dev.state = old

    ctx.on_failure(undo)
    return new


no_gradient("ConfigureTPUEmbedding")  # TensorFlow registers no gradient for it
