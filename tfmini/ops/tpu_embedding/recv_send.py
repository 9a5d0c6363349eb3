"""The TPU embedding's training step: ``RecvTPUEmbeddingActivations`` and
``SendTPUEmbeddingGradients``.

Recv waits (a blocking op) for an enqueued batch, gives the model its activations and keeps
the batch pending; Send takes the gradients of those activations, sums them per touched row
of each table and applies the table's optimizer (``updates``) to those rows.

Maths (TensorFlow's CPU reference in tpu_embedding_for_serving.py and the optimizer reference of
tensorflow/python/tpu/tests/tpu_embedding_base_test.py): activation of a sample = sum of ``w_i *
E[id_i]`` divided by 1 (sum), ``sum(w)`` (mean) or ``sqrt(sum(w**2))`` (sqrtn); empty samples give
zero rows. On Send, every occurrence contributes ``(w_i / D) * dL/da``; contributions to one row
(across samples and across features sharing the table) are summed first, then the optimizer runs
once per touched row. Send remembers only the touched rows' old values (parameters and slots), so a
run that fails after Send puts the table back at a cost proportional to the batch, not the table.
The family's overview is in ``tfmini.ops.tpu_embedding.front_tmp``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.common.segment_reduce import sum_rows_by_id, unsorted_segment_sum_into
from tfmini.ops.tpu_embedding import config as cfg
from tfmini.ops.tpu_embedding.state import (
    TPU_ONLY,
    Batch,
    Configured,
    check_same_config,
    configured,
    embedding_device,
    failed_precondition,
    parse_config,
    take_batch,
)
from tfmini.ops.tpu_embedding.updates import apply_optimizer

# ----------------------------------------------------------------------------------------
# RecvTPUEmbeddingActivations


def _recv_shape(ic) -> list:
    try:
        config = parse_config(ic.attrs["config"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"Malformed tpu_embedding_config. ({e})") from None
    shapes = cfg.recv_output_shapes(config)
    if len(shapes) != ic.attrs["num_outputs"]:
        raise ValueError("num outputs != size of output shapes")
    return [list(s) for s in shapes]


def _segment_sum(values: np.ndarray, rows: np.ndarray, n_rows: int) -> np.ndarray:
    """Sum of ``values`` rows per ``rows`` entry into an (n_rows, dim) array (zeros elsewhere)."""
    out = np.zeros((n_rows, values.shape[1]), values.dtype)
    if len(rows):
        unsorted_segment_sum_into(out, rows, values)
    return out


def activations(state: Configured, batch: Batch, gather: Any = None) -> list[np.ndarray]:
    """The activations of ``batch``: per output, its rows combined per sample.

    ``gather(t, ids)`` gives table ``t``'s rows ``ids`` as a new array (default: from the
    device's own shards; ps_shards passes the rows the ps tasks sent).
    """
    acts = []
    for o, (t, rows, ids, scale) in enumerate(batch.outputs):
        if gather is None:
            table = state.tables[t]
            vals = table.gather("parameters", ids, table.locate(ids))
        else:
            vals = gather(t, ids)
        if scale is not None:
            vals *= scale[:, None]
        shape = state.shapes[o]
        n_rows = state.rows_of_output(o)
        act = vals if rows is None else _segment_sum(vals, rows, n_rows)
        acts.append(act.reshape(shape))
    return acts


@register_op("RecvTPUEmbeddingActivations", outputs=["outputs: num_outputs * float"],
             attrs=["num_outputs: int >= 1", "config: string"], stateful=True, blocking=True,
             shape_fn=_recv_shape, only_devices=TPU_ONLY, device="TPU")
def recv_tpu_embedding_activations_kernel(ctx, *, num_outputs, config):
    """Waits for an enqueued batch and returns its activations (one per table or feature)."""
    what = "RecvTPUEmbeddingActivations"
    dev = embedding_device(ctx)
    with dev.cond:
        state = configured(dev, what)
        check_same_config(state, config, what)
        check_holds_tables(state, what)
        if len(state.shapes) != num_outputs:
            raise invalid_argument(
                f"{what} has {num_outputs} outputs; the configuration has {len(state.shapes)}"
            )
        batch = take_batch(ctx, dev, state,
                           "The TPU embedding was reconfigured while Recv was waiting")
        return activations(state, batch)


# ----------------------------------------------------------------------------------------
# SendTPUEmbeddingGradients (the optimizers are in tpu_embedding_updates).


def _send_shape(ic) -> list:
    for s in ic.input_shape("learning_rates"):
        shape_fns.with_rank(s, 0)
    return []


def table_gradients(state: Configured, batch: Batch,
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
        unique, summed = sum_rows_by_id(ids, contrib)
        out[t] = (unique, summed.astype(np.float32, copy=False))
    return out


@register_op("SendTPUEmbeddingGradients",
             inputs=["inputs: N * float", "learning_rates: NN * float"],
             attrs=["N: int >= 1", "NN: int >= 0 = 0", "config: string"], stateful=True,
             shape_fn=_send_shape, only_devices=TPU_ONLY, device="TPU")
def send_tpu_embedding_gradients_kernel(ctx, inputs, learning_rates, *, config):
    """Applies the gradients of the last Recv's activations to the touched table rows."""
    what = "SendTPUEmbeddingGradients"
    dev = embedding_device(ctx)
    with dev.cond:
        state = configured(dev, what)
        check_same_config(state, config, what)
        check_holds_tables(state, what)
        batch = pending_batch(state, what)
        grads, rates = check_send_inputs(state, inputs, learning_rates, what)
        state.pending = None
        saved: list = []
        if batch.mode in ("TRAINING", "BACKWARD_PASS_ONLY"):
            saved = update_tables(state, table_gradients(state, batch, grads), rates, what)

    def undo() -> None:
        with dev.cond:
            for table, ids, parts, old in reversed(saved):
                for slot, values in old.items():
                    table.scatter(slot, ids, parts, values)
            if state.pending is None:
                state.pending = batch

    ctx.on_failure(undo)


def check_holds_tables(state: Configured, what: str) -> None:
    """FailedPreconditionError on a host whose tables live on ps tasks (ps_shards)."""
    if state.host_only:
        raise failed_precondition(
            f"{what}: this device's TPU embedding tables are sharded over ps tasks (it was "
            "configured by _ConfigureTPUEmbeddingHost); look rows up with the ps_shards ops "
            "(tm.tpu.TPUEmbedding(..., cluster=...) builds them)")


def pending_batch(state: Configured, what: str) -> Batch:
    """The batch the last Recv consumed; FailedPreconditionError when there is none."""
    batch = state.pending
    if batch is None:
        raise failed_precondition(
            f"{what} without RecvTPUEmbeddingActivations: no activations are waiting for "
            "gradients (run Recv first; each Recv takes one Send)"
        )
    return batch


def check_send_inputs(state: Configured, inputs: Any, learning_rates: Any,
                      what: str) -> tuple[list[np.ndarray], list[float]]:
    """Send's gradients (float32, the activations' shapes) and learning rates (floats)."""
    return check_gradients(state, inputs, what), check_rates(state, learning_rates, what)


def check_gradients(state: Configured, inputs: Any, what: str) -> list[np.ndarray]:
    """The activations' gradients as float32 arrays, one per Recv output, of its shape."""
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
    return grads


def check_rates(state: Configured, learning_rates: Any, what: str) -> list[float]:
    """The dynamic learning rates as floats, one scalar per tag of the configuration."""
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
    return rates


def update_tables(state: Configured, per_table: dict, rates: list[float], what: str) -> list:
    """Applies every table's update to the rows ``per_table[t] = (unique ids, summed
    gradients)``; returns the touched rows' old values for the undo."""
    work = []
    for t, (ids, g) in sorted(per_table.items()):
        table = state.tables[t]
        if table.params is None:
            raise failed_precondition(
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
        e_new, slots_new = apply_optimizer(table.params, lr, old["parameters"],
                                  {k: v for k, v in old.items() if k != "parameters"}, g)
        updates.append((table, ids, parts, old, {"parameters": e_new, **slots_new}))
    saved = []
    for table, ids, parts, old, new in updates:
        for slot, values in new.items():
            table.scatter(slot, ids, parts, values)
        saved.append((table, ids, parts, old))
    return saved


for _op in ("RecvTPUEmbeddingActivations", "SendTPUEmbeddingGradients"):
    # TensorFlow registers no gradient for either: Recv's outputs are where the model's
    # backward pass stops, and Send hands those gradients back to the device.
    no_gradient(_op)
