"""FuncGraph: a sub-graph with explicit inputs and outputs (cond branches, loop bodies).

Ops built in a FuncGraph may use Outputs of an enclosing graph: the builder
asks the FuncGraph to *capture* them, which adds an argument placeholder
inside and remembers the outer Output, so the op that calls the function
passes the value in. Core names no op type: the ops layer installs the type
used for arguments (``set_argument_op``).
"""

from __future__ import annotations

from typing import Any

from attrs import define, field

from tfmini.core.graph import Graph, Operation, Output

_argument_op: str | None = None


def set_argument_op(op_type: str) -> None:
    """Sets the op type of function arguments (``"Placeholder"``; called by ``tfmini.ops``)."""
    global _argument_op
    _argument_op = op_type


def root_graph(graph: Graph) -> Graph:
    while getattr(graph, "outer_graph", None) is not None:
        graph = graph.outer_graph
    return graph


@define(eq=False, repr=False)
class FuncGraph(Graph):
    """A graph with arguments (``inputs``), results (``outputs``) and side effects
    (``control_outputs``: stateful ops that run whenever the function runs).

    ``inputs`` lists explicit arguments first, then captured outer values
    (``captures`` maps outer Output to inner argument, in capture order).
    """

    name: str = ""
    outer_graph: Graph | None = None
    inputs: list[Output] = field(factory=list)
    outputs: list[Output] = field(factory=list)
    control_outputs: list[Operation] = field(factory=list)
    captures: dict[Output, Output] = field(factory=dict)
    # Gradient functions: the name scope they were built under (TensorArray gradients find
    # their ``gradients`` source by it), and whether calling them replays forward ops that
    # were already run (kernels of per-step resources then tolerate repeated writes/reads).
    outer_name_scope: str = ""
    recomputes: bool = False

    def add_argument(self, dtype: Any, shape: Any, name: str = "arg") -> Output:
        """Adds an explicit argument (placeholder) and returns it."""
        from tfmini.core.builder import build_op  # builder imports scope which imports graph
        from tfmini.core.scope import Scope

        if _argument_op is None:
            raise RuntimeError("No argument op type installed (import tfmini.ops)")
        op = build_op(Scope(self), _argument_op, [], {"dtype": dtype, "shape": shape}, name=name)
        self.inputs.append(op.outputs[0])
        return op.outputs[0]

    def _capture(self, output: Output) -> Output:
        hit = self.captures.get(output)
        if hit is not None:
            return hit
        if output.graph is not self.outer_graph:
            # Captured from further out: the enclosing function must capture it too, so the
            # op calling this function can pass it along (see outer_values).
            self.outer_graph._capture(output)
        inner = self.add_argument(output.dtype, output.shape, name="capture")
        self.captures[output] = inner
        return inner

    def outer_values(self) -> list[Output]:
        """The Outputs of the enclosing graph to pass for the captured arguments, in order."""
        parent = self.outer_graph
        return [o if o.graph is parent else parent._capture(o) for o in self.captures]

    def finalize_function(self, outputs: list[Output]) -> None:
        """Sets the results; every stateful op becomes a control output (runs on each call)."""
        self.outputs = list(outputs)
        self.control_outputs = [op for op in self._operations if op.op_def.is_stateful]

    def __repr__(self) -> str:
        return f"<tm.FuncGraph '{self.name}' with {len(self._operations)} ops>"

    __hash__ = object.__hash__
