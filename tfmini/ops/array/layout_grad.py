"""Gradients of the padding, reordering, diagonal, scatter, space/batch and counting ops
(``space_batch``, ``pad_ops``,
``reverse_roll``, ``diagonals``, ``tensor_scatter``, ``where_mask``, ``sort_search``,
``counting``), as TensorFlow's ``array_grad.py`` defines them.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.builder import build_op
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import current_scope
from tfmini.ops import array as array_ops
from tfmini.ops import math as math_ops

for _type in ("BroadcastArgs", "Where", "LowerBound", "UpperBound", "UniqueWithCounts",
              "UniqueV2", "UniqueWithCountsV2", "Snapshot", "ListDiff", "Bincount",
              "DenseBincount", "HistogramFixedWidth", "ShapeN", "UnravelIndex", "Bitcast"):
    no_gradient(_type)


def _out(op_type: str, inputs: list, attrs: dict | None = None) -> Output:
    return build_op(current_scope(), op_type, inputs, attrs).outputs[0]


def _dense(grad: Any) -> Output:
    from tfmini.core.convert import convert_to_tensor

    return convert_to_tensor(grad)


@RegisterGradient("PadV2")
def _pad_v2_grad(op: Operation, grad: Any) -> list:
    # As Pad's: slice the input's block out of the padded gradient; none for the constant.
    x, paddings = op.inputs[0], op.inputs[1]
    before = array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(before, [-1])
    return [array_ops.slice(_dense(grad), begin, array_ops.shape(x, out_type=begin.dtype)),
            None, None]


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op: Operation, grad: Any) -> list:
    return [_out("MirrorPadGrad", [_dense(grad), op.inputs[1]], {"mode": op.get_attr("mode")}),
            None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op: Operation, grad: Any) -> list:
    return [_out("MirrorPad", [_dense(grad), op.inputs[1]], {"mode": op.get_attr("mode")}),
            None]


@RegisterGradient("EnsureShape")
def _ensure_shape_grad(op: Operation, grad: Any) -> Any:
    del op
    return grad


@RegisterGradient("ReverseV2")
def _reverse_v2_grad(op: Operation, grad: Any) -> list:
    return [_out("ReverseV2", [_dense(grad), op.inputs[1]]), None]


@RegisterGradient("ReverseSequence")
def _reverse_sequence_grad(op: Operation, grad: Any) -> list:
    return [_out("ReverseSequence", [_dense(grad), op.inputs[1]],
                 {"seq_dim": op.get_attr("seq_dim"), "batch_dim": op.get_attr("batch_dim")}),
            None]


@RegisterGradient("Roll")
def _roll_grad(op: Operation, grad: Any) -> list:
    shift = op.inputs[1]
    return [_out("Roll", [_dense(grad), math_ops.negative(shift), op.inputs[2]]), None, None]


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op: Operation, grad: Any) -> list:
    return [_out("MatrixBandPart", [_dense(grad), op.inputs[1], op.inputs[2]]), None, None]


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    part = array_ops.matrix_diag_part(g, k=op.inputs[1], align=op.get_attr("align"))
    return [part, None, None, None, None]


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op: Operation, grad: Any) -> list:
    x = op.inputs[0]
    g = _dense(grad)
    k, align = op.inputs[1], op.get_attr("align")
    if x.shape.is_fully_defined():
        zeros = array_ops.zeros(x.shape.dims, dtype=g.dtype)
        return [array_ops.matrix_set_diag(zeros, g, k=k, align=align), None, None]
    shape = array_ops.shape(x)
    return [array_ops.matrix_diag(g, k=k, num_rows=shape[-2], num_cols=shape[-1],
                                  align=align), None, None]


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    k, align = op.inputs[2], op.get_attr("align")
    diag = op.inputs[1]
    grad_input = array_ops.matrix_set_diag(g, array_ops.zeros_like(diag), k=k, align=align)
    grad_diag = array_ops.matrix_diag_part(g, k=k, align=align)
    return [grad_input, grad_diag, None]


@RegisterGradient("Diag")
def _diag_grad(op: Operation, grad: Any) -> Output:
    del op
    return _out("DiagPart", [_dense(grad)])


@RegisterGradient("DiagPart")
def _diag_part_grad(op: Operation, grad: Any) -> Output:
    del op
    return _out("Diag", [_dense(grad)])


def _gather_nd(params: Output, indices: Output) -> Output:
    return _out("GatherNd", [params, indices], {"bad_indices_policy": ""})


@RegisterGradient("TensorScatterUpdate")
def _tensor_scatter_update_grad(op: Operation, grad: Any) -> list:
    g, indices = _dense(grad), op.inputs[1]
    tensor_grad = _out("TensorScatterUpdate", [g, indices, array_ops.zeros_like(op.inputs[2])])
    return [tensor_grad, None, _gather_nd(g, indices)]


@RegisterGradient("TensorScatterAdd")
def _tensor_scatter_add_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    return [g, None, _gather_nd(g, op.inputs[1])]


@RegisterGradient("ScatterNdNonAliasingAdd")
def _scatter_nd_non_aliasing_add_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    return [g, None, _gather_nd(g, op.inputs[1])]


@RegisterGradient("TensorScatterSub")
def _tensor_scatter_sub_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    return [g, None, math_ops.negative(_gather_nd(g, op.inputs[1]))]


def _tensor_scatter_min_or_max_grad(op: Operation, grad: Any) -> list:
    # The gradient goes to whichever of x and the updates produced the output, split evenly
    # between ties.
    g = _dense(grad)
    x, indices, y, z = op.inputs[0], op.inputs[1], op.inputs[2], op.outputs[0]
    x_ind = math_ops.cast(math_ops.equal(x, z), g.dtype)
    y_ind = math_ops.cast(math_ops.equal(y, _gather_nd(z, indices)), g.dtype)
    ys_ind = array_ops.scatter_nd(indices, y_ind, array_ops.shape(x, out_type=indices.dtype))
    ind = math_ops.add(x_ind, ys_ind)
    x_grad = math_ops.realdiv(math_ops.multiply(g, x_ind), ind)
    y_grad = math_ops.multiply(_gather_nd(math_ops.realdiv(g, ind), indices), y_ind)
    return [x_grad, None, y_grad]


RegisterGradient("TensorScatterMin")(_tensor_scatter_min_or_max_grad)
RegisterGradient("TensorScatterMax")(_tensor_scatter_min_or_max_grad)


@RegisterGradient("SpaceToBatchND")
def _space_to_batch_nd_grad(op: Operation, grad: Any) -> list:
    return [_out("BatchToSpaceND", [_dense(grad), op.inputs[1], op.inputs[2]]), None, None]


@RegisterGradient("BatchToSpaceND")
def _batch_to_space_nd_grad(op: Operation, grad: Any) -> list:
    return [_out("SpaceToBatchND", [_dense(grad), op.inputs[1], op.inputs[2]]), None, None]


@RegisterGradient("SpaceToBatch")
def _space_to_batch_grad(op: Operation, grad: Any) -> list:
    return [_out("BatchToSpace", [_dense(grad), op.inputs[1]],
                 {"block_size": op.get_attr("block_size")}), None]


@RegisterGradient("BatchToSpace")
def _batch_to_space_grad(op: Operation, grad: Any) -> list:
    return [_out("SpaceToBatch", [_dense(grad), op.inputs[1]],
                 {"block_size": op.get_attr("block_size")}), None]


@RegisterGradient("SpaceToDepth")
def _space_to_depth_grad(op: Operation, grad: Any) -> Output:
    return _out("DepthToSpace", [_dense(grad)], {"block_size": op.get_attr("block_size"),
                                                 "data_format": op.get_attr("data_format")})


@RegisterGradient("DepthToSpace")
def _depth_to_space_grad(op: Operation, grad: Any) -> Output:
    return _out("SpaceToDepth", [_dense(grad)], {"block_size": op.get_attr("block_size"),
                                                 "data_format": op.get_attr("data_format")})


@RegisterGradient("CheckNumerics")
def _check_numerics_grad(op: Operation, grad: Any) -> Output:
    message = ("Not a number (NaN) or infinity (Inf) values detected in gradient. "
               f"{op.get_attr('message')}")
    return _out("CheckNumerics", [_dense(grad)], {"message": message})


@RegisterGradient("PreventGradient")
def _prevent_gradient_grad(op: Operation, grad: Any) -> Any:
    del grad
    raise LookupError(f"Gradient explicitly disabled. Reason: {op.get_attr('message')}")


@RegisterGradient("Reverse")
def _reverse_grad(op: Operation, grad: Any) -> list:
    return [_out("Reverse", [_dense(grad), op.inputs[1]]), None]


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op: Operation, grad: Any) -> Output:
    del op
    return _out("MatrixDiagPart", [_dense(grad)])


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op: Operation, grad: Any) -> Output:
    x = op.inputs[0]
    if x.shape.is_fully_defined():
        return _out("MatrixSetDiag", [array_ops.zeros_like(x), _dense(grad)])
    return _out("MatrixDiag", [_dense(grad)])


@RegisterGradient("MatrixSetDiag")
def _matrix_set_diag_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    diag = op.inputs[1]
    return [_out("MatrixSetDiag", [g, array_ops.zeros_like(diag)]),
            _out("MatrixDiagPart", [g])]


@RegisterGradient("MatrixDiagV2")
def _matrix_diag_v2_grad(op: Operation, grad: Any) -> list:
    return [_out("MatrixDiagPartV2", [_dense(grad), op.inputs[1], array_ops.zeros(
        [], op.inputs[0].dtype)]), None, None, None, None]


@RegisterGradient("MatrixDiagPartV2")
def _matrix_diag_part_v2_grad(op: Operation, grad: Any) -> list:
    x, k = op.inputs[0], op.inputs[1]
    g = _dense(grad)
    if x.shape.is_fully_defined():
        return [_out("MatrixSetDiagV2", [array_ops.zeros_like(x), g, k]), None, None]
    shape = array_ops.shape(x)
    return [_out("MatrixDiagV2", [g, k, shape[-2], shape[-1], array_ops.zeros([], g.dtype)]),
            None, None]


@RegisterGradient("MatrixSetDiagV2")
def _matrix_set_diag_v2_grad(op: Operation, grad: Any) -> list:
    g = _dense(grad)
    diag, k = op.inputs[1], op.inputs[2]
    return [_out("MatrixSetDiagV2", [g, array_ops.zeros_like(diag), k]),
            _out("MatrixDiagPartV2", [g, k, array_ops.zeros([], g.dtype)]), None]
