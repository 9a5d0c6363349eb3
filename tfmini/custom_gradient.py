"""``tm.custom_gradient`` in graph mode, and ``tm.GradientTape``'s graph-mode answer.

:func:`custom_gradient` builds what TensorFlow's graph-mode decorator builds
(``tensorflow/python/ops/custom_gradient.py``): the function runs normally, then its results,
its tensor arguments and the variables it read pass through one ``IdentityN`` whose gradient
is overridden (``Graph.gradient_override_map``) with a uniquely named gradient function
(``CustomGradient-<uid>``) that calls the user's ``grad_fn``. The results returned are the
IdentityN's outputs, so ``tm.gradients`` reaches the user's gradient instead of
differentiating the function's ops.

This module sits at the gradients layer (it defines gradient functions), beside
``tfmini/gradients.py``.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable
from typing import Any

from tfmini.core.convert import convert_to_tensor
from tfmini.core.graph import Operation, Output
from tfmini.core.registry import RegisterGradient
from tfmini.core.scope import current_scope
from tfmini.ops import control_flow, variables
from tfmini.ops.array import identity_n

_uids = itertools.count(1)

_flatten = control_flow.flatten_structure
_pack_as = control_flow.pack_structure


def _dependent_variables(inputs: list[Output], outputs: list[Output]) -> list:
    """The resource variables whose reads the ``outputs`` depend on (not past ``inputs``)."""
    stop = {t.op for t in inputs}
    handles: set[Operation] = set()
    seen: set[Operation] = set()
    work = [o.op for o in outputs]
    while work:
        op = work.pop()
        if op in seen or op in stop:
            continue
        seen.add(op)
        if op.type == "ReadVariableOp":
            handles.add(op.inputs[0].op)
        work.extend(i.op for i in op.inputs)
        work.extend(op.control_inputs)
    found = [v for v in variables.global_variables() + variables.local_variables()
             if getattr(v, "handle", None) is not None and v.handle.op in handles]
    return sorted({id(v): v for v in found}.values(), key=lambda v: v.name)


def _takes_variables(fn: Callable) -> bool:
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return False
    return "variables" in spec.args or "variables" in spec.kwonlyargs or bool(spec.varkw)


def _graph_mode_call(f: Callable, args: tuple, kwargs: dict) -> Any:
    name = f"CustomGradient-{next(_uids)}"
    args = _pack_as(list(args), [convert_to_tensor(a) for a in _flatten(list(args))])
    result, grad_fn = f(*args, **kwargs)
    flat_args = [a for a in _flatten(list(args)) if isinstance(a, Output)]
    flat_result = [convert_to_tensor(r) for r in _flatten(result)]
    n_result = len(flat_result)
    graph = current_scope().graph
    inputs = [a for a in flat_args if a.graph is graph]
    used = _dependent_variables(inputs, flat_result)
    takes_variables = _takes_variables(grad_fn)
    if used and not takes_variables:
        raise TypeError(
            "@tf.custom_gradient grad_fn must accept keyword argument 'variables', since "
            f"function uses variables: {used}"
        )

    def user_grad(*result_grads: Any) -> list:
        result_grads = list(result_grads[:n_result])
        if used:
            input_grads, variable_grads = grad_fn(*result_grads, variables=used)
            if len(variable_grads) != len(used):
                raise ValueError(
                    "Must return gradient for each variable from @custom_gradient grad_fn."
                )
        else:
            input_grads = grad_fn(*result_grads)
            variable_grads = []
        flat_input_grads = _flatten(input_grads)
        if len(flat_input_grads) != len(flat_args):
            raise ValueError(
                f"custom_gradient function expected to return {len(flat_args)} gradients, but "
                f"returned {len(flat_input_grads)} instead."
            )
        return [None] * n_result + list(flat_input_grads) + list(variable_grads)

    @RegisterGradient(name)
    def _internal_grad_fn(unused_op: Operation, *result_grads: Any) -> list:
        return user_grad(*result_grads)

    all_tensors = flat_result + flat_args + [v.value() for v in used]
    with graph.gradient_override_map({"IdentityN": name}):
        passed = identity_n(all_tensors)
    return _pack_as(result, passed[:n_result])


def custom_gradient(f: Callable | None = None) -> Callable:
    """Decorator giving a function its own gradient (``tf.custom_gradient``, graph mode).

    ``f`` returns ``(y, grad_fn)``; ``grad_fn(*dys)`` returns one gradient per tensor argument
    of ``f``. When ``f`` reads resource variables, ``grad_fn`` must accept ``variables=``
    (the variables read, sorted by name) and return ``(input_grads, variable_grads)``.

    Example::

        @tm.custom_gradient
        def log1pexp(x):
            e = tm.exp(x)
            def grad(dy):
                return dy * (1 - 1 / (1 + e))
            return tm.log(1 + e), grad

    Raises:
        TypeError: ``f`` reads variables but ``grad_fn`` takes no ``variables`` argument.
        ValueError: ``grad_fn`` returns the wrong number of gradients.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args: Any, **kwargs: Any) -> Any:
        return _graph_mode_call(f, args, kwargs)

    return decorated


class GradientTape:
    """TF2's ``tf.GradientTape`` has no graph-mode counterpart in tfmini.

    TensorFlow's tape records operations as they execute eagerly; tfmini builds graphs only,
    and ``tm.gradients(ys, xs)`` computes exactly what a tape would return for the same ops.
    Constructing a tape raises, saying so, rather than returning gradients that could differ
    from TensorFlow's (a tape only sees ops built inside its context).

    Raises:
        NotImplementedError: always.
    """

    def __init__(self, *args: Any, **kwargs: Any):
        raise NotImplementedError(
            "tm.GradientTape is not supported: tfmini runs TensorFlow 1 graphs and has no eager "
            "tape. Build the forward ops, then use tm.gradients(ys, xs) (or "
            "optimizer.compute_gradients / minimize); write custom gradients with "
            "tm.custom_gradient or tm.RegisterGradient + Graph.gradient_override_map."
        )


__all__ = ["GradientTape", "custom_gradient"]
