"""The global step: ``get_global_step``, ``create_global_step``, ``get_or_create_global_step``.

The global step is the int64 scalar variable ``global_step`` in the ``GLOBAL_STEP``
collection (found by the name ``global_step:0`` when the collection is empty), as in
``tf.compat.v1.train``. Optimizers increment it once per applied step.
"""

from __future__ import annotations

from typing import Any

from tfmini.core.dtypes import int64
from tfmini.core.function import root_graph
from tfmini.core.graph import Graph, Output
from tfmini.core.scope import default_graph_context, get_default_graph, name_scope
from tfmini.ops.variables import (
    GraphKeys,
    Variable,
    VariableAggregation,
    get_variable,
    zeros_initializer,
)


def _graph(graph: Graph | None) -> Graph:
    return graph if graph is not None else root_graph(get_default_graph())


def assert_global_step(global_step_tensor: Any) -> None:
    """Checks that ``global_step_tensor`` can be a global step: an integer scalar variable
    or tensor.

    Raises:
        TypeError: it is not a Variable or Tensor, not of integer type, or not a scalar.
    """
    if not isinstance(global_step_tensor, (Variable, Output)):
        raise TypeError(
            f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    dtype = global_step_tensor.dtype
    if not dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: {dtype.name}')
    shape = global_step_tensor.shape
    if shape.rank not in (None, 0) and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


def get_global_step(graph: Graph | None = None) -> Any:
    """The global step of ``graph`` (default: the default graph), or None.

    Returns:
        The single entry of the ``GLOBAL_STEP`` collection; if the collection is empty, the
        tensor named ``global_step:0``; None if there is neither, or (as TensorFlow, which
        logs an error) if the collection holds several.

    Raises:
        TypeError: the global step found is not an integer scalar.
    """
    graph = _graph(graph)
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except (KeyError, ValueError):
            return None
    else:
        return None
    assert_global_step(step)
    return step


def create_global_step(graph: Graph | None = None) -> Variable:
    """Creates the global step: ``get_variable("global_step")``, an int64 scalar starting at 0,
    not trainable, in ``GLOBAL_VARIABLES`` and ``GLOBAL_STEP``.

    Raises:
        ValueError: ``graph`` already has a global step.
    """
    graph = _graph(graph)
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with default_graph_context(graph), name_scope(None):
        return get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=int64, initializer=zeros_initializer(),
            trainable=False, aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph: Graph | None = None) -> Variable:
    """The global step of ``graph``, created if it has none."""
    graph = _graph(graph)
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def global_step(sess: Any, global_step_tensor: Any) -> int:
    """The value of ``global_step_tensor`` in ``sess``, as a Python int."""
    return int(sess.run(global_step_tensor))


__all__ = [
    "assert_global_step",
    "create_global_step",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
]
