"""The TPU embedding's tables sharded over ps tasks: one batched lookup and one batched
update per shard per step.

TensorFlow splits an embedding table over the hosts of the TPU system, one shard per host
(``TPUEmbeddingConfiguration.num_hosts``; the Load/Retrieve ops of host ``k`` move shard ``k``),
and with ``sharding_strategy`` MOD row ``id`` lives on shard ``id % num_hosts`` at local row
``id // num_hosts``, as ``tf.nn.embedding_lookup(..., partition_strategy="mod")`` splits a
partitioned variable. On a tfmini cluster each shard lives on a ps task, in that task's
simulated TPU device, configured (``ConfigureTPUEmbedding``) with :func:`shard_config`: the
same tables with the shard's rows only. The worker (the *host*) keeps what is not rows:
the configuration, the queue of enqueued batches and the batch being trained
(``_ConfigureTPUEmbeddingHost``; the ``EnqueueTPUEmbedding*`` ops run there unchanged).
``RecvTPUEmbeddingActivations`` and ``SendTPUEmbeddingGradients`` each become three steps:

* ``_TPUEmbeddingDequeueShardIds`` (host, blocking): takes the next batch and gives, per
  shard and table, the local rows of the batch's distinct ids on that shard;
* ``_TPUEmbeddingShardGather`` (one per ps task): those rows of every table of its shard;
* ``_TPUEmbeddingCombineShardRows`` (host): the activations, combined as Recv combines them;
* ``_TPUEmbeddingSendShardGradients`` (host): the gradient of every touched row, summed over
  its occurrences as Send sums them, split by shard;
* ``_TPUEmbeddingShardApplyGradients`` (one per ps task): the table's optimizer on its rows.

A step's session partitions these into one part per task, so each ps task gets one call
per step carrying its lookup and its update. Every value equals the unsharded device's:
the rows gathered are the same floats, the per-row gradient sums are formed on the host in
the same order, and each row's update depends on that row alone.
"""

from __future__ import annotations

from typing import Any

import attrs
import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.tpu_embedding import config as cfg
from tfmini.ops.tpu_embedding.recv_send import (
    activations,
    check_gradients,
    check_holds_tables,
    check_rates,
    pending_batch,
    table_gradients,
    update_tables,
)
from tfmini.ops.tpu_embedding.state import (
    TPU_ONLY,
    Batch,
    Configured,
    check_same_config,
    configure_device,
    configured,
    embedding_device,
    failed_precondition,
    parse_config,
    take_batch,
)

__all__ = ["shard_config"]


def shard_config(config: cfg.TPUEmbeddingConfiguration,
                 shard_id: int) -> cfg.TPUEmbeddingConfiguration:
    """The configuration of shard ``shard_id`` of ``config``'s ``num_hosts``: every table
    holds only that shard's rows (in local row order), on one host and one core.

    Raises:
        ValueError: ``shard_id`` not in ``[0, num_hosts)``.
    """
    n = max(1, config.num_hosts)
    tables = [attrs.evolve(t, vocabulary_size=cfg.shard_size(t.vocabulary_size, n, shard_id))
              for t in config.table_descriptor]
    return attrs.evolve(config, table_descriptor=tables, num_hosts=1, num_tensor_cores=1,
                        sharding_strategy="DIV_DEFAULT")


def _num_hosts(state: Configured) -> int:
    return max(1, state.config.num_hosts)


def _host_state(ctx: Any, config: Any, what: str) -> tuple[Any, Configured]:
    dev = embedding_device(ctx)
    state = configured(dev, what)
    check_same_config(state, config, what)
    if not state.host_only:
        raise failed_precondition(
            f"{what}: this device holds its tables itself (ConfigureTPUEmbedding); the "
            "sharded ops need a host configured by _ConfigureTPUEmbeddingHost")
    return dev, state


def _check_count(n: int, state: Configured, attr: str, what: str) -> None:
    want = _num_hosts(state) * len(state.tables)
    if n != want:
        raise invalid_argument(
            f"{what}: {attr} = {n}, but the configuration has {_num_hosts(state)} shards x "
            f"{len(state.tables)} tables = {want}")


def _unique_ids(batch: Batch, t: int) -> np.ndarray:
    """The distinct ids of table ``t`` in ``batch``, sorted."""
    parts = [ids for (tt, _, ids, _) in batch.outputs if tt == t and len(ids)]
    if not parts:
        return np.zeros((0,), np.int64)
    return np.unique(np.concatenate(parts) if len(parts) > 1 else parts[0])


def _split(state: Configured, t: int, ids: np.ndarray) -> list[np.ndarray]:
    """Per shard: the positions of ``ids`` (global, of table ``t``) on it."""
    table = state.tables[t]
    shard, _ = cfg.shard_of_ids(ids, table.vocab, _num_hosts(state),
                                state.config.sharding_strategy)
    return [np.flatnonzero(shard == s) for s in range(_num_hosts(state))]


def _local_rows(state: Configured, t: int, ids: np.ndarray) -> np.ndarray:
    table = state.tables[t]
    return cfg.shard_of_ids(ids, table.vocab, _num_hosts(state),
                            state.config.sharding_strategy)[1]


# ----------------------------------------------------------------------------------------
# The host: configuration, dequeue, combine, gradients.


@register_op("_ConfigureTPUEmbeddingHost", attrs=["config: string"], stateful=True,
             shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def configure_tpu_embedding_host_kernel(ctx, *, config):
    """Configures the host of tables sharded over ``num_hosts`` ps tasks (holds no rows)."""
    configure_device(ctx, config, "_ConfigureTPUEmbeddingHost", host_only=True)


@register_op("_TPUEmbeddingDequeueShardIds", outputs=["rows: NR * int64"],
             attrs=["NR: int >= 1", "config: string"], stateful=True, blocking=True,
             only_devices=TPU_ONLY, device="TPU")
def dequeue_shard_ids_kernel(ctx, *, NR, config):  # noqa: N803  (TensorFlow's attr name)
    """Waits for an enqueued batch; returns, for shard s and table t (output ``s*T + t``),
    the local rows of the batch's distinct ids of table t on shard s."""
    what = "_TPUEmbeddingDequeueShardIds"
    dev, state = _host_state(ctx, config, what)
    _check_count(NR, state, "NR", what)
    with dev.cond:
        batch = take_batch(ctx, dev, state, "The TPU embedding was reconfigured while the "
                           "host was waiting for a batch")
    n_tables = len(state.tables)
    out: list[np.ndarray] = [np.zeros((0,), np.int64)] * (_num_hosts(state) * n_tables)
    for t in range(n_tables):
        ids = _unique_ids(batch, t)
        local = _local_rows(state, t, ids)
        for s, pos in enumerate(_split(state, t, ids)):
            out[s * n_tables + t] = local[pos]
    return out


def _combine_shape(ic) -> list:
    try:
        config = parse_config(ic.attrs["config"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"Malformed tpu_embedding_config. ({e})") from None
    return [list(s) for s in cfg.recv_output_shapes(config)]


@register_op("_TPUEmbeddingCombineShardRows", inputs=["rows: NR * float"],
             outputs=["outputs: num_outputs * float"],
             attrs=["NR: int >= 1", "num_outputs: int >= 1", "config: string"],
             stateful=True, shape_fn=_combine_shape, only_devices=TPU_ONLY, device="TPU")
def combine_shard_rows_kernel(ctx, rows, *, NR, num_outputs, config):  # noqa: N803
    """The activations of the dequeued batch from the rows its shards sent (in the order
    of ``_TPUEmbeddingDequeueShardIds``' outputs)."""
    what = "_TPUEmbeddingCombineShardRows"
    dev, state = _host_state(ctx, config, what)
    _check_count(len(rows), state, "the number of row blocks", what)
    if len(state.shapes) != num_outputs:
        raise invalid_argument(
            f"{what} has {num_outputs} outputs; the configuration has {len(state.shapes)}")
    with dev.cond:
        batch = pending_batch(state, what)
        n_tables = len(state.tables)
        tables: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for t, table in enumerate(state.tables):
            ids = _unique_ids(batch, t)
            block = np.empty((len(ids), table.dim), np.float32)
            for s, pos in enumerate(_split(state, t, ids)):
                got = np.asarray(rows[s * n_tables + t], np.float32)
                if got.shape != (len(pos), table.dim):
                    raise invalid_argument(
                        f"{what}: shard {s} sent rows of shape {list(got.shape)} for table "
                        f"{table.name!r}; expected {[len(pos), table.dim]}")
                block[pos] = got
            tables[t] = (ids, block)

        def gather(t: int, ids: np.ndarray) -> np.ndarray:
            unique, block = tables[t]
            return np.take(block, np.searchsorted(unique, ids), axis=0)

        return activations(state, batch, gather)


@register_op("_TPUEmbeddingSendShardGradients", inputs=["inputs: N * float"],
             outputs=["rows: NR * int64", "gradients: NR * float"],
             attrs=["N: int >= 1", "NR: int >= 1", "config: string"], stateful=True,
             only_devices=TPU_ONLY, device="TPU")
def send_shard_gradients_kernel(ctx, inputs, *, N, NR, config):  # noqa: N803
    """Sums the gradients of the dequeued batch per touched row (as Send) and splits them
    by shard: output ``s*T + t`` holds shard s's local rows of table t and their sums."""
    del N
    what = "_TPUEmbeddingSendShardGradients"
    dev, state = _host_state(ctx, config, what)
    _check_count(NR, state, "NR", what)
    n_tables = len(state.tables)
    rows_out: list[np.ndarray] = [np.zeros((0,), np.int64)] * NR
    grads_out = [np.zeros((0, state.tables[k % n_tables].dim), np.float32) for k in range(NR)]
    with dev.cond:
        batch = pending_batch(state, what)
        grads = check_gradients(state, inputs, what)  # the rates go to the shards
        state.pending = None

    def undo() -> None:
        with dev.cond:
            if state.pending is None:
                state.pending = batch

    ctx.on_failure(undo)
    if batch.mode not in ("TRAINING", "BACKWARD_PASS_ONLY"):
        return rows_out + grads_out  # the kernel returns its outputs flat
    for t, (ids, g) in table_gradients(state, batch, grads).items():
        table = state.tables[t]
        if table.params is None:
            raise failed_precondition(
                f"{what}: table {table.name!r} has no optimization_parameters, so it cannot "
                "be trained (configure it with an optimizer, or enqueue in inference mode)")
        local = _local_rows(state, t, ids)
        for s, pos in enumerate(_split(state, t, ids)):
            rows_out[s * n_tables + t] = local[pos]
            grads_out[s * n_tables + t] = g[pos]
    return rows_out + grads_out


# ----------------------------------------------------------------------------------------
# A ps task's shard: gather and apply.


def _shard_state(ctx: Any, config: Any, what: str) -> tuple[Any, Configured]:
    dev = embedding_device(ctx)
    state = configured(dev, what)
    check_same_config(state, config, what)
    check_holds_tables(state, what)
    return dev, state


def _check_rows(state: Configured, t: int, rows: Any, what: str) -> np.ndarray:
    table = state.tables[t]
    r = np.asarray(rows)
    if r.ndim != 1:
        raise invalid_argument(f"{what}: rows[{t}] must be rank 1, got shape {list(r.shape)}")
    r = r.astype(np.int64, copy=False)
    if len(r) and (r.min() < 0 or r.max() >= table.vocab):
        bad = int(r[np.flatnonzero((r < 0) | (r >= table.vocab))[0]])
        raise invalid_argument(
            f"{what}: local row {bad} of table {table.name!r} is not in [0, {table.vocab}) "
            "(the rows of this shard)")
    return r


@register_op("_TPUEmbeddingShardGather", inputs=["rows: T * int64"],
             outputs=["outputs: T * float"], attrs=["T: int >= 1", "config: string"],
             stateful=True, only_devices=TPU_ONLY, device="TPU")
def shard_gather_kernel(ctx, rows, *, T, config):  # noqa: N803
    """Rows ``rows[t]`` (local) of every table ``t`` of this shard, in one call."""
    what = "_TPUEmbeddingShardGather"
    dev, state = _shard_state(ctx, config, what)
    if T != len(state.tables):
        raise invalid_argument(
            f"{what}: T = {T}, but the shard's configuration has {len(state.tables)} tables")
    checked = [_check_rows(state, t, r, what) for t, r in enumerate(rows)]
    with dev.cond:
        return [table.gather("parameters", r, table.locate(r))
                for table, r in zip(state.tables, checked)]


@register_op("_TPUEmbeddingShardApplyGradients",
             inputs=["rows: T * int64", "gradients: T * float", "learning_rates: NN * float"],
             attrs=["T: int >= 1", "NN: int >= 0 = 0", "config: string"], stateful=True,
             shape_fn=shape_fns.no_outputs, only_devices=TPU_ONLY, device="TPU")
def shard_apply_gradients_kernel(ctx, rows, gradients, learning_rates, *, T, NN, config):  # noqa: N803
    """Applies each table's optimizer to rows ``rows[t]`` (local, distinct) of this shard
    with the summed gradients ``gradients[t]``."""
    del NN
    what = "_TPUEmbeddingShardApplyGradients"
    dev, state = _shard_state(ctx, config, what)
    if T != len(state.tables):
        raise invalid_argument(
            f"{what}: T = {T}, but the shard's configuration has {len(state.tables)} tables")
    rates = check_rates(state, learning_rates, what)
    per_table = {}
    for t, (r, g) in enumerate(zip(rows, gradients)):
        r = _check_rows(state, t, r, what)
        g = np.asarray(g, np.float32)
        if g.shape != (len(r), state.tables[t].dim):
            raise invalid_argument(
                f"{what}: gradients[{t}] has shape {list(g.shape)}; expected "
                f"{[len(r), state.tables[t].dim]} (one row per local row)")
        if len(r):
            per_table[t] = (r, g)
    with dev.cond:
        saved = update_tables(state, per_table, rates, what)

    def undo() -> None:
        with dev.cond:
            for table, ids, parts, old in reversed(saved):
                for slot, values in old.items():
                    table.scatter(slot, ids, parts, values)

    ctx.on_failure(undo)


for _op in ("_ConfigureTPUEmbeddingHost", "_TPUEmbeddingDequeueShardIds",
            "_TPUEmbeddingCombineShardRows", "_TPUEmbeddingSendShardGradients",
            "_TPUEmbeddingShardGather", "_TPUEmbeddingShardApplyGradients"):
    # Like Recv and Send, none has a gradient: the model's backward pass ends at the
    # activations, and their gradients go back to the shards by these ops.
    no_gradient(_op)
