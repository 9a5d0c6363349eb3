"""Scatter into a copy of a tensor: TensorScatterUpdate/Add/Sub/Min/Max and
ScatterNdNonAliasingAdd, with ``tm.tensor_scatter_nd_*`` (``scatter_nd_op.cc``).

``indices[..., :ix]`` address slices of ``tensor``; ``updates`` has shape
``indices.shape[:-1] + tensor.shape[ix:]``. Duplicate indices accumulate (add, sub, min, max);
for Update the last one wins, as on TensorFlow's CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tfmini.core.graph import Output
from tfmini.core.registry import register_op
from tfmini.core.shapes import TensorShape, as_shape, dims_str
from tfmini.ops.common import shape_fns
from tfmini.ops.common.build_util import as_operand, build_autopacked
from tfmini.ops.common.kernel_util import invalid_argument, slice_debug_string


def _tensor_scatter_shape(ic) -> list[TensorShape]:
    tensor = as_shape(ic.input_shape(0))
    indices = shape_fns.with_rank_at_least(ic.input_shape(1), 1)
    updates = as_shape(ic.input_shape(2))
    if tensor.dims is None or indices.dims is None or updates.dims is None:
        return [tensor]
    outer = indices.rank - 1
    ix = indices.dims[-1]
    if ix is None:
        return [tensor]
    expect = TensorShape(list(indices.dims[:outer]) + list(tensor.dims[ix:]))
    if not expect.is_compatible_with(updates):
        raise ValueError(
            f"Dimensions [0,{outer}) of indices[shape={indices.tf_str()}] = "
            f"{TensorShape(indices.dims[:outer]).tf_str()} must match dimensions [0,{outer}) of "
            f"updates[shape={updates.tf_str()}] = "
            f"{TensorShape(updates.dims[:outer]).tf_str()}"
            if not TensorShape(indices.dims[:outer]).is_compatible_with(
                TensorShape(updates.dims[:outer]))
            else f"Dimensions [{ix},{tensor.rank}) of input[shape={tensor.tf_str()}] = "
            f"{TensorShape(tensor.dims[ix:]).tf_str()} must match dimensions "
            f"[{outer},{updates.rank}) of updates[shape={updates.tf_str()}] = "
            f"{TensorShape(updates.dims[outer:]).tf_str()}")
    return [tensor]


def _scatter_kernel(op_type: str, combine):
    def kernel(tensor, indices, updates, *, bad_indices_policy):
        t, idx, upd = np.asarray(tensor), np.asarray(indices), np.asarray(updates)
        if idx.ndim < 1:
            raise invalid_argument(f"Indices shape must have rank at least one. Found:"
                                   f"{dims_str(idx.shape)}")
        ix = idx.shape[-1]
        outer = idx.ndim - 1
        if ix > t.ndim:
            raise invalid_argument(
                f"Output must have at least {ix} dimensions, got {t.ndim}")
        want = idx.shape[:outer] + t.shape[ix:]
        if upd.shape != want:
            raise invalid_argument(
                f"Dimensions [0,{outer}) of indices[shape={dims_str(idx.shape)}] must match "
                f"dimensions [0,{outer}) of updates[shape={dims_str(upd.shape)}]")
        rows = idx.reshape(-1, ix).astype(np.int64)
        vals = upd.reshape((rows.shape[0],) + t.shape[ix:])
        bad = ((rows < 0) | (rows >= np.array(t.shape[:ix], dtype=np.int64))).any(axis=1)
        if bad.any():
            if bad_indices_policy != "IGNORE":
                i = int(np.argmax(bad))
                raise invalid_argument(
                    f"indices{slice_debug_string(idx.shape[:-1], i)} = "
                    f"[{', '.join(str(v) for v in rows[i].tolist())}] does not index into "
                    f"shape {dims_str(t.shape)}")
            rows, vals = rows[~bad], vals[~bad]
        out = t.copy()
        if ix == 0:
            for v in vals:
                out = combine(out, v) if combine is not None else v.astype(t.dtype)
            return np.asarray(out, t.dtype)
        where = tuple(rows.T)
        if combine is None:
            for r, v in zip(rows, vals):  # in order: the last duplicate wins
                out[tuple(r)] = v
        else:
            combine.at(out, where, vals)
        return out

    kernel.__name__ = f"{op_type}_kernel"
    return kernel


_OPS = {
    "TensorScatterUpdate": (None, "{int16, int32, int64}", "Replaces the addressed slices."),
    "TensorScatterAdd": (np.add, "{int32, int64}", "Adds updates to the addressed slices."),
    "TensorScatterSub": (np.subtract, "{int32, int64}", "Subtracts updates."),
    "TensorScatterMin": (np.minimum, "{int32, int64}", "Elementwise minimum with updates."),
    "TensorScatterMax": (np.maximum, "{int32, int64}", "Elementwise maximum with updates."),
}
for _op_type, (_combine, _index_types, _doc) in _OPS.items():
    register_op(
        _op_type,
        inputs=["tensor: T", "indices: Tindices", "updates: T"],
        outputs=["output: T"],
        attrs=["T: type", f"Tindices: {_index_types}", "bad_indices_policy: string = ''"],
        shape_fn=_tensor_scatter_shape,
        doc=_doc,
    )(_scatter_kernel(_op_type, _combine))

register_op(
    "ScatterNdNonAliasingAdd",
    inputs=["input: T", "indices: Tindices", "updates: T"],
    outputs=["output: T"],
    attrs=["T: {half, float, double, int8, int16, int32, int64, uint8, bool}",
           "Tindices: {int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_tensor_scatter_shape,
    doc="input + updates scattered at indices, without touching input.",
)(_scatter_kernel("ScatterNdNonAliasingAdd", np.add))


def _fn(op_type: str, public: str):
    def fn(tensor: Any, indices: Any, updates: Any, name: str | None = None) -> Output:
        t = as_operand(tensor)
        return build_autopacked(op_type, [t, indices, as_operand(updates, t.dtype)],
                                name=name).outputs[0]

    fn.__name__ = fn.__qualname__ = public
    fn.__doc__ = (
        f"``tf.{public}`` (op ``{op_type}``): a copy of ``tensor`` with ``updates`` scattered "
        "at ``indices``.\n\n"
        "Args:\n"
        "    tensor: The tensor to copy.\n"
        "    indices: int tensor, ``[..., ix]`` indices into ``tensor``'s first ix dims.\n"
        "    updates: ``indices.shape[:-1] + tensor.shape[ix:]`` values.\n"
        "    name: Optional op name.\n\n"
        "Returns:\n"
        "    A tensor of ``tensor``'s shape and dtype.\n"
    )
    return fn


tensor_scatter_nd_update = _fn("TensorScatterUpdate", "tensor_scatter_nd_update")
tensor_scatter_nd_add = _fn("TensorScatterAdd", "tensor_scatter_nd_add")
tensor_scatter_nd_sub = _fn("TensorScatterSub", "tensor_scatter_nd_sub")
tensor_scatter_nd_min = _fn("TensorScatterMin", "tensor_scatter_nd_min")
tensor_scatter_nd_max = _fn("TensorScatterMax", "tensor_scatter_nd_max")
tensor_scatter_update = tensor_scatter_nd_update
tensor_scatter_add = tensor_scatter_nd_add
tensor_scatter_sub = tensor_scatter_nd_sub
tensor_scatter_min = tensor_scatter_nd_min
tensor_scatter_max = tensor_scatter_nd_max
scatter_nd_non_aliasing_add = _fn("ScatterNdNonAliasingAdd", "scatter_nd_non_aliasing_add")

__all__ = [
    "tensor_scatter_add", "tensor_scatter_max", "tensor_scatter_min",
    "tensor_scatter_nd_add", "tensor_scatter_nd_max", "tensor_scatter_nd_min",
    "tensor_scatter_nd_sub", "tensor_scatter_nd_update", "tensor_scatter_sub",
    "tensor_scatter_update",
]
