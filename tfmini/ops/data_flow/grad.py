"""Gradients of the TensorArray ops (TensorFlow's ``tensorflow/python/ops/tensor_array_grad.py``).

The gradient of a TensorArray is another TensorArray, found by (forward handle, *source*) with
TensorArrayGradV3: reads become writes into it (repeated writes add), writes become reads from
it, gather and scatter swap, concat and split swap. The *source* is the name scope of the
``gradients`` call ("gradients", "gradients_1"), so two gradient computations in one step use
two gradient arrays. Inside a gradient function (a loop body's gradient) the scope continues
the one the function was built under.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.graph import Operation
from tfmini.core.registry import RegisterGradient, no_gradient
from tfmini.core.scope import current_scope
from tfmini.ops.data_flow.tensor_array import TensorArray

for _op_type in ("TensorArrayV3", "TensorArrayGradV3", "TensorArrayGradWithShape",
                 "TensorArraySizeV3", "TensorArrayCloseV3"):
    no_gradient(_op_type)

# As TensorFlow: a py_func has no gradient unless the user overrides it (RegisterGradient +
# Graph.gradient_override_map). TensorFlow differentiates EagerPyFunc with an eager tape,
# which tfmini (graph mode only) does not have.
for _op_type in ("PyFunc", "PyFuncStateless", "EagerPyFunc"):
    no_gradient(_op_type)


def grad_source() -> str:
    """The name scope of the enclosing ``gradients`` call ("gradients", "outer/gradients_2").

    Within a gradient function (a loop body's gradient, which runs its own ``gradients``)
    the outermost call counts, so the body's gradient uses the arrays the ops around the
    loop use.

    Raises:
        ValueError: not inside a gradients call (TensorFlow's message).
    """
    scope = current_scope()
    prefixes = [scope.name_prefix]
    graph = scope.graph
    while getattr(graph, "outer_graph", None) is not None:
        prefixes.append(getattr(graph, "outer_name_scope", ""))
        graph = graph.outer_graph
    for prefix in reversed(prefixes):  # the outermost graph first
        tokens = prefix.rstrip("/").split("/") if prefix else []
        hits = [i for i, t in enumerate(tokens) if t.startswith("gradients")]
        if hits:
            return "/".join(tokens[:hits[-1] + 1])
    raise ValueError(
        "Expected op/tensor name to start with gradients (excluding scope), got: "
        f"{scope.name_prefix}"
    )


def _forward(op: Operation, dtype: Any, flow: Any) -> TensorArray:
    return TensorArray(dtype, handle=op.inputs[0], flow=flow)


@RegisterGradient("TensorArrayReadV3")
def _read_grad(op: Operation, grad: Any) -> list:
    """Writes ``grad`` into the gradient array at the index read."""
    index, flow = op.inputs[1], op.inputs[2]
    g = _forward(op, op.get_attr("dtype"), flow).grad(grad_source(), flow)
    return [None, None, g.write(index, grad).flow]


@RegisterGradient("TensorArrayWriteV3")
def _write_grad(op: Operation, flow: Any) -> list:
    """Reads the value's gradient from the gradient array at the index written."""
    index = op.inputs[1]
    g = _forward(op, op.get_attr("T"), flow).grad(grad_source(), flow)
    value = g.read(index)
    value.set_shape(op.inputs[2].shape)
    return [None, None, value, flow]


@RegisterGradient("TensorArrayGatherV3")
def _gather_grad(op: Operation, grad: Any) -> list:
    """Scatters ``grad`` into the gradient array at the gathered indices."""
    indices, flow = op.inputs[1], op.inputs[2]
    g = _forward(op, op.get_attr("dtype"), flow).grad(grad_source(), flow)
    return [None, None, g.scatter(indices, grad).flow]


@RegisterGradient("TensorArrayScatterV3")
def _scatter_grad(op: Operation, flow: Any) -> list:
    """Gathers the value's gradient from the gradient array at the scattered indices."""
    indices = op.inputs[1]
    g = _forward(op, op.get_attr("T"), flow).grad(grad_source(), flow)
    value = g.gather(indices)
    value.set_shape(op.inputs[2].shape)
    return [None, None, value, flow]


@RegisterGradient("TensorArrayConcatV3")
def _concat_grad(op: Operation, grad: Any, unused_lengths_grad: Any) -> list:
    """Splits ``grad`` into the gradient array by the concatenated lengths."""
    flow = op.inputs[1]
    g = _forward(op, op.get_attr("dtype"), flow).grad(grad_source(), flow)
    return [None, g.split(grad, op.outputs[1]).flow]


@RegisterGradient("TensorArraySplitV3")
def _split_grad(op: Operation, flow: Any) -> list:
    """Concatenates the gradient array: the split value's gradient."""
    g = _forward(op, op.get_attr("T"), flow).grad(grad_source(), flow)
    value = g.concat()
    value.set_shape(op.inputs[1].shape)
    return [None, value, None, flow]


__all__: list[str] = []
