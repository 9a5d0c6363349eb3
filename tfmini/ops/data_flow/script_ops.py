"""Python functions as graph ops: PyFunc, PyFuncStateless, EagerPyFunc (``script_ops``).

``tm.py_func`` / ``tm.numpy_function`` / ``tm.py_function`` build an op whose ``token`` attr
names a Python callable in a process-wide registry, as TensorFlow's ``FuncRegistry``
(``tensorflow/python/ops/script_ops.py``): the registry holds the callable weakly and the
graph that uses it holds it strongly, so it is released when the graph is collected. The
kernel calls it in the thread running the step with the inputs as NumPy arrays and checks
the results against ``Tout``, with TensorFlow's messages (``tensorflow/python/lib/core/
py_func.cc``). An exception in the function fails the step with the class TensorFlow maps
its type to (ValueError/TypeError: InvalidArgumentError, StopIteration: OutOfRangeError,
NotImplementedError: UnimplementedError, MemoryError: ResourceExhaustedError, anything else:
UnknownError), naming the exception and chaining it.

Why this lives in the data-flow family: like accumulators and TensorArrays, these ops hold
host-side Python state (the registry) that a graph's ops reach by name, and ``tfmini/ops``
has no room for another top-level family.

A graph_def keeps only the token, never the function: a graph imported elsewhere (or after
the function was collected) fails at run time saying so.
"""

from __future__ import annotations

import itertools
import threading
import traceback
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from tfmini import errors
from tfmini.core.builder import build_op
from tfmini.core.convert import convert_to_tensor
from tfmini.core.dtypes import DType, as_dtype, tf_type_name
from tfmini.core.registry import register_op
from tfmini.core.scope import current_scope
from tfmini.core.shapes import unknown_shape
from tfmini.ops.common.kernel_util import invalid_argument

# ----------------------------------------------------------------------------------------
# The registry


class _FuncRegistry:
    """token -> Python callable, held weakly (the graph using it holds it strongly)."""

    def __init__(self):
        self._lock = threading.Lock()
        self._funcs: dict[str, Any] = {}
        self._ids = itertools.count()
        # graph -> the callables its ops use: they live as long as the graph.
        self._by_graph: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def insert(self, func: Callable, graph: Any) -> str:
        with self._lock:
            token = f"pyfunc_{next(self._ids)}"
            try:
                ref = weakref.WeakMethod(func) if hasattr(func, "__self__") and \
                    hasattr(func, "__func__") else weakref.ref(func)
            except TypeError:  # not weakly referenceable (a builtin): keep it
                ref = (lambda f: (lambda: f))(func)
            self._funcs[token] = ref
            self._by_graph.setdefault(graph, []).append(func)
            return token

    def get(self, token: str) -> Callable | None:
        ref = self._funcs.get(token)
        return None if ref is None else ref()

    def size(self) -> int:
        """How many registered callables are still alive."""
        with self._lock:
            dead = [t for t, r in self._funcs.items() if r() is None]
            for t in dead:
                del self._funcs[t]
            return len(self._funcs)


registry = _FuncRegistry()


# ----------------------------------------------------------------------------------------
# Kernels

_ERROR_CLASSES: list[tuple[type, type]] = [
    (ValueError, errors.InvalidArgumentError),
    (TypeError, errors.InvalidArgumentError),
    (StopIteration, errors.OutOfRangeError),
    (NotImplementedError, errors.UnimplementedError),
    (MemoryError, errors.ResourceExhaustedError),
]


def _python_error(e: BaseException) -> errors.OpError:
    cls = next((c for t, c in _ERROR_CLASSES if isinstance(e, t)), errors.UnknownError)
    trace = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    return cls(None, None, f"{type(e).__name__}: {e}\n{trace}".rstrip())


def _lookup(token: str) -> Callable:
    func = registry.get(token)
    if func is None:
        raise invalid_argument(
            f"The Python function of {token} is not registered in this process: a py_func's "
            "function cannot be serialized with the graph (a graph_def keeps only its token), "
            "and it is released with the graph that built it. Build the py_func again here."
        )
    return func


def _as_input(value: Any) -> Any:
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.dtype == object or arr.dtype.kind == "U":
        # A string tensor reaches the function as bytes objects, as in TensorFlow.
        out = np.empty(arr.shape, dtype=object)
        for i, v in np.ndenumerate(arr):
            out[i] = v.encode() if isinstance(v, str) else v
        return out
    return arr


def _check_results(token: str, ret: Any, Tout: list[DType], eager: bool) -> list:  # noqa: N803
    if ret is None:
        values: list = []
    elif isinstance(ret, (list, tuple)):
        values = list(ret)
    else:
        values = [ret]
    if len(values) != len(Tout):
        raise invalid_argument(
            f"{token} returns {len(values)} values, but expects to see {len(Tout)} values."
        )
    out = []
    for i, (v, dt) in enumerate(zip(values, Tout)):
        if eager:
            arr = _convert_eager(v, dt)
        else:
            arr = _convert(v, dt)
            if arr.dtype != dt.np_dtype and not (dt.name == "string" and arr.dtype == object):
                got = _tf_name_of(arr)
                raise invalid_argument(
                    f"{i}-th value returned by {token} is {got}, but expects {tf_type_name(dt)}"
                )
        out.append(arr)
    return out


def _tf_name_of(arr: np.ndarray) -> str:
    try:
        return tf_type_name(as_dtype(arr.dtype))
    except (TypeError, ValueError):
        return str(arr.dtype)


def _convert(value: Any, dt: DType) -> np.ndarray:
    if isinstance(value, (bytes, str)) or (isinstance(value, np.ndarray) and
                                           value.dtype.kind in "SU"):
        arr = np.asarray(value, dtype=object)
        return np.vectorize(lambda s: s.encode() if isinstance(s, str) else s,
                            otypes=[object])(arr) if arr.size else arr
    return np.asarray(value)


def _convert_eager(value: Any, dt: DType) -> np.ndarray:
    if isinstance(value, np.ndarray) and value.dtype != dt.np_dtype and dt.name != "string":
        raise errors.InvalidArgumentError(
            None, None,
            f"ValueError: Tensor conversion requested dtype {dt.name} for Tensor with dtype "
            f"{value.dtype}",
        )
    if dt.name == "string":
        return _convert(value, dt)
    try:
        return np.asarray(value, dtype=dt.np_dtype)
    except (TypeError, ValueError) as e:
        raise _python_error(e) from e


class EagerArray(np.ndarray):
    """What ``tm.py_function`` passes its function: an ndarray with TF's ``.numpy()``."""

    def numpy(self) -> np.ndarray:
        return np.asarray(self)


def _py_func_kernel(input, *, token, Tout):  # noqa: N803  (TensorFlow's attr name)
    """Calls the registered function on NumPy inputs; checks its results against Tout."""
    func = _lookup(token)
    args = [_as_input(v) for v in input]
    try:
        ret = func(*args)
    except Exception as e:  # noqa: BLE001  (any Python error fails the step, mapped by type)
        raise _python_error(e) from e
    return _check_results(token, ret, list(Tout), eager=False)


def _eager_py_func_kernel(input, *, token, Tout, is_async):  # noqa: N803
    """As PyFunc, with the inputs as arrays that also offer ``.numpy()``."""
    del is_async
    func = _lookup(token)
    args = [_as_input(v) for v in input]
    args = [a if a.dtype == object else a.view(EagerArray) for a in args]
    try:
        ret = func(*args)
    except Exception as e:  # noqa: BLE001
        raise _python_error(e) from e
    return _check_results(token, ret, list(Tout), eager=True)


def _unknown_outputs(ic) -> list:
    return [unknown_shape()] * len(ic.attrs["Tout"])


_ATTRS = ["token: string", "Tin: list(type) >= 0", "Tout: list(type) >= 0"]

register_op("PyFunc", inputs=["input: Tin"], outputs=["output: Tout"], attrs=_ATTRS,
            shape_fn=_unknown_outputs, stateful=True,
            doc="Calls the Python function registered under `token` (stateful: never "
            "folded or deduplicated).")(_py_func_kernel)
register_op("PyFuncStateless", inputs=["input: Tin"], outputs=["output: Tout"], attrs=_ATTRS,
            shape_fn=_unknown_outputs,
            doc="Calls the Python function registered under `token` (declared free of side "
            "effects).")(_py_func_kernel)
register_op("EagerPyFunc", inputs=["input: Tin"], outputs=["output: Tout"],
            attrs=["token: string", "is_async: bool = false", "Tin: list(type) >= 0",
                   "Tout: list(type) >= 0"],
            shape_fn=_unknown_outputs, stateful=True,
            doc="Calls the Python function registered under `token` with array inputs "
            "(tm.py_function).")(_eager_py_func_kernel)


# ----------------------------------------------------------------------------------------
# Python API


def _build(op_type: str, func: Callable, inp: Any, Tout: Any, name: str | None,  # noqa: N803
           extra: dict | None = None) -> Any:
    if not callable(func):
        raise TypeError(f"Expected func to be callable, got func of type {type(func)}")
    is_list = isinstance(Tout, (list, tuple))
    touts = [as_dtype(t) for t in (Tout if is_list else [Tout])]
    scope = current_scope()
    inputs = [convert_to_tensor(x) for x in (inp or [])]
    token = registry.insert(func, scope.graph)
    attrs = {"token": token, "Tout": touts, **(extra or {})}
    op = build_op(scope, op_type, [inputs], attrs, name=name or op_type)
    if not is_list:
        return op.outputs[0] if op.outputs else op
    return list(op.outputs)


def py_func(func: Callable, inp: Any, Tout: Any, stateful: bool = True,  # noqa: N803
            name: str | None = None) -> Any:
    """Wraps a Python function taking and returning NumPy arrays as an op (``tf.py_func``).

    Example::

        y = tm.py_func(lambda a: np.sort(a), [x], tm.float32)

    Args:
        func: Called with one NumPy array per input; returns one array (or a list of them)
            per ``Tout`` entry, of exactly those dtypes.
        inp: The input tensors.
        Tout: A dtype, or a list of dtypes (then a list is returned).
        stateful: False builds PyFuncStateless (the function promises no side effects).
        name: Name of the op (default "PyFunc").

    Returns:
        The output tensor (or list), of unknown shape (use ``set_shape``).

    Raises:
        TypeError: ``func`` is not callable.
    """
    return _build("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name)


def numpy_function(func: Callable, inp: Any, Tout: Any, stateful: bool = True,  # noqa: N803
                   name: str | None = None) -> Any:
    """``tf.numpy_function``: :func:`py_func` under its TF2 name."""
    return _build("PyFunc" if stateful else "PyFuncStateless", func, inp, Tout, name)


def py_function(func: Callable, inp: Any, Tout: Any, name: str | None = None) -> Any:  # noqa: N803
    """Wraps a Python function as an EagerPyFunc op (``tf.py_function``).

    The function receives arrays that also offer ``.numpy()`` (as TensorFlow's eager tensors
    do); its results are converted to ``Tout``. tfmini has no eager mode, so it cannot run
    TensorFlow ops inside the function, and the op has no gradient.

    Args:
        func: Called with one array per input.
        inp: The input tensors.
        Tout: A dtype, or a list of dtypes (then a list is returned).
        name: Name of the op (default "EagerPyFunc").

    Returns:
        The output tensor (or list), of unknown shape.
    """
    return _build("EagerPyFunc", func, inp, Tout, name, {"is_async": False})


__all__ = ["numpy_function", "py_func", "py_function"]
