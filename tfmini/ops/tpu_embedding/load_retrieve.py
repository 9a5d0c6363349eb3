"""The TPU embedding's ``LoadTPUEmbedding<Alg>Parameters`` and
``RetrieveTPUEmbedding<Alg>Parameters`` ops: tables and optimizer slots in and out by shard.

One pair is registered per algorithm in ``SUPPORTED_OPTIMIZERS``; its inputs (outputs) are the
algorithm's slots in ``tpu_embedding_config.slot_names`` order, ``parameters`` first. The
family's overview is in ``tfmini.ops.tpu_embedding.front_tmp``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini.core.registry import no_gradient, register_op
from tfmini.ops.common import shape_fns
from tfmini.ops.common.kernel_util import invalid_argument
from tfmini.ops.tpu_embedding import config as cfg
from tfmini.ops.tpu_embedding.recv_send import check_holds_tables
from tfmini.ops.tpu_embedding.state import (
    TPU_ONLY,
    Configured,
    EmbeddingDevice,
    Table,
    configured,
    embedding_device,
)
from tfmini.ops.tpu_embedding.updates import SUPPORTED_OPTIMIZERS

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


def _find_table(state: Configured, table_id: int, table_name: str, op: str) -> int:
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


def _shard_rows(state: Configured, table: Table, num_shards: int, shard_id: int,
                op: str) -> np.ndarray:
    if num_shards < 1 or not 0 <= shard_id < num_shards:
        raise invalid_argument(
            f"{op}: shard_id {shard_id} is not in [0, num_shards={num_shards})"
        )
    return cfg.shard_row_ids(table.vocab, num_shards, shard_id, state.config.sharding_strategy)


def _resolve(ctx: Any, op: str, alg: str, table_id: int, table_name: str, num_shards: int,
             shard_id: int) -> tuple[EmbeddingDevice, Table, np.ndarray]:
    dev = embedding_device(ctx)
    state = configured(dev, op)
    check_holds_tables(state, op)
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
        shape_fn=_load_shape, only_devices=TPU_ONLY, device="TPU",
        doc=f"Loads {', '.join(_names)} of one shard of a {_alg} table into the device.",
    )(_make_load_kernel(_alg, _load, _names))
    register_op(
        _retrieve, outputs=[f"{n}: float" for n in _names], attrs=_LOAD_ATTRS, stateful=True,
        shape_fn=_retrieve_shape, only_devices=TPU_ONLY, device="TPU",
        doc=f"Returns {', '.join(_names)} of one shard of a {_alg} table.",
    )(_make_retrieve_kernel(_alg, _retrieve, _names))
    no_gradient(_load)
    no_gradient(_retrieve)
