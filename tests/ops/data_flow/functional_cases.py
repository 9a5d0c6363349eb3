"""Cases shared by tools/record_goldens_functional.py (under TensorFlow 2.21's tf.compat.v1)
and the tfmini tests: each builds a graph with ``t`` (``tf.compat.v1`` or ``tfmini``) and
returns the tensors to fetch by name. Inputs are fixed, so both sides build the same graph.

``VALUE_CASES``: name -> build(t) returning {key: tensor}. ``ERROR_CASES``: name -> build(t)
returning a tensor or op whose run fails. ``NAME_CASES``: tensors whose names are recorded.
"""

from __future__ import annotations

import numpy as np

X32 = (np.arange(12, dtype=np.float32).reshape(4, 3) * 0.25 - 1.0)
SEQ = (np.sin(np.arange(15, dtype=np.float32)).reshape(5, 3) * 0.8).astype(np.float32)


def _c(t, value):
    return t.constant(value)


# ------------------------------------------------------------------------------------------
# TensorArray


def ta_basics(t):
    ta = t.TensorArray(t.float32, size=3, clear_after_read=False)
    ta = ta.write(0, [1.0, 2.0]).write(1, [3.0, 4.0]).write(2, [5.0, 6.0])
    return {"stack": ta.stack(), "size": ta.size(), "gather": ta.gather([2, 0])}


def ta_read(t):
    ta = t.TensorArray(t.float32, size=3, clear_after_read=False)
    ta = ta.unstack(_c(t, X32[:3]))
    return {"r0": ta.read(0), "r2": ta.read(2), "again": ta.read(0)}


def ta_concat_split(t):
    x = _c(t, X32)
    ta = t.TensorArray(t.float32, size=3, infer_shape=False).split(x, [1, 2, 1])
    w = _c(t, np.float32(1.5))
    y = ta.concat() * w
    loss = t.reduce_sum(y * y)
    gx, gw = t.gradients(loss, [x, w])
    return {"concat": y, "gx": gx, "gw": gw}


def ta_unstack_grad(t):
    x = _c(t, X32)
    ta = t.TensorArray(t.float32, size=4).unstack(x)
    y = ta.read(0) * 2.0 + ta.read(3) * ta.read(1)
    (gx,) = t.gradients(t.reduce_sum(y * y), [x])
    return {"y": y, "gx": gx}


def ta_scatter_gather_grad(t):
    x = _c(t, X32[:3])
    ta = t.TensorArray(t.float32, size=5).scatter([4, 0, 2], x)
    g = ta.gather([0, 4])
    (gx,) = t.gradients(t.reduce_sum(g * _c(t, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])), [x])
    return {"gather": g, "gx": gx}


def ta_stack_grad_partial(t):
    # Only some elements reach the loss: the others' gradients are zeros (known shape).
    x = _c(t, X32)
    ta = t.TensorArray(t.float32, size=4).unstack(x)
    (gx,) = t.gradients(t.reduce_sum(ta.read(1) * 3.0), [x])
    return {"gx": gx}


def ta_dynamic(t):
    ta = t.TensorArray(t.float32, size=1, dynamic_size=True)
    ta = ta.write(3, [1.0]).write(0, [2.0])
    return {"stack": ta.stack(), "size": ta.size()}


def ta_unwritten_known_shape(t):
    ta = t.TensorArray(t.float32, size=3, element_shape=[2]).write(0, [1.0, 2.0])
    return {"stack": ta.stack()}


def ta_while_rnn(t):
    """What dynamic_rnn builds: inputs unstacked, a loop reading one step and writing one
    output per iteration with maximum_iterations, outputs stacked; gradients through it."""
    n = SEQ.shape[0]
    xs = _c(t, SEQ)
    w = _c(t, (np.arange(9, dtype=np.float32).reshape(3, 3) * 0.1 - 0.4))
    u = _c(t, (np.eye(3, dtype=np.float32) * 0.5))
    in_ta = t.TensorArray(t.float32, size=n).unstack(xs)
    out_ta = t.TensorArray(t.float32, size=n)
    lengths = _c(t, [3, 5])

    def body(time, h, out):
        x_t = t.reshape(in_ta.read(time), [1, 3]) * t.ones([2, 1])
        new_h = t.tanh(t.matmul(x_t, w) + t.matmul(h, u))
        keep = t.reshape(time < lengths, [2, 1]) & t.ones([2, 3], dtype=t.bool)
        new_h = t.where(keep, new_h, h)
        out_t = t.where(keep, new_h, t.zeros_like(new_h))
        return time + 1, new_h, out.write(time, out_t)

    _, h, out = t.while_loop(lambda time, h, o: time < n, body,
                             (_c(t, 0), t.zeros([2, 3]), out_ta), maximum_iterations=n)
    outputs = out.stack()
    loss = t.reduce_sum(outputs * outputs) + t.reduce_sum(h)
    gx, gw, gu = t.gradients(loss, [xs, w, u])
    return {"outputs": outputs, "h": h, "gx": gx, "gw": gw, "gu": gu}


# ------------------------------------------------------------------------------------------
# map_fn, scan, foldl, foldr


def map_simple(t):
    x = _c(t, X32)
    w = _c(t, np.float32(0.5))
    y = t.map_fn(lambda e: t.reduce_sum(e * e) * w, x)
    gx, gw = t.gradients(t.reduce_sum(y), [x, w])
    return {"y": y, "gx": gx, "gw": gw}


def map_nested(t):
    a = _c(t, X32)
    b = _c(t, np.arange(4, dtype=np.int32))
    y, z = t.map_fn(lambda e: (e[0] * t.cast(e[1], t.float32), e[1] * 2), (a, b),
                    dtype=(t.float32, t.int32))
    (ga,) = t.gradients(t.reduce_sum(y), [a])
    return {"y": y, "z": z, "ga": ga}


def map_signature_dict(t):
    a = _c(t, X32)
    out = t.map_fn(lambda e: {"s": t.reduce_sum(e), "m": t.reduce_max(e)}, a,
                   fn_output_signature={"s": t.float32, "m": t.float32})
    return {"s": out["s"], "m": out["m"]}


def scan_default(t):
    x = _c(t, X32)
    y = t.scan(lambda acc, e: acc * 0.5 + e, x)
    (gx,) = t.gradients(t.reduce_sum(y * y), [x])
    return {"y": y, "gx": gx}


def scan_initializer_reverse(t):
    x = _c(t, X32)
    init = _c(t, [1.0, -1.0, 0.5])
    y = t.scan(lambda acc, e: t.tanh(acc + e), x, initializer=init, reverse=True)
    gx, gi = t.gradients(t.reduce_sum(y), [x, init])
    return {"y": y, "gx": gx, "ginit": gi}


def scan_nested(t):
    x = _c(t, X32)
    y = t.scan(lambda acc, e: (acc[0] + e, acc[1] * t.reduce_sum(e)), x,
               initializer=(t.zeros([3]), _c(t, 1.0)))
    gx = t.gradients(t.reduce_sum(y[0]) + t.reduce_sum(y[1]), x)[0]
    return {"y0": y[0], "y1": y[1], "gx": gx}


def foldl_default(t):
    x = _c(t, X32)
    y = t.foldl(lambda a, e: a * 0.9 + e * e, x)
    (gx,) = t.gradients(t.reduce_sum(y), [x])
    return {"y": y, "gx": gx}


def foldr_initializer(t):
    x = _c(t, X32)
    init = _c(t, 2.0)
    y = t.foldr(lambda a, e: a * 0.5 + t.reduce_sum(e), x, initializer=init)
    gx, gi = t.gradients(y, [x, init])
    return {"y": y, "gx": gx, "ginit": gi}


def foldl_nested(t):
    a = _c(t, X32)
    b = _c(t, X32[::-1].copy())
    y = t.foldl(lambda acc, e: acc + e[0] * e[1], (a, b), initializer=t.zeros([3]))
    ga, gb = t.gradients(t.reduce_sum(y), [a, b])
    return {"y": y, "ga": ga, "gb": gb}


def foldr_default(t):
    x = _c(t, X32)
    y = t.foldr(lambda a, e: a - e, x)
    return {"y": y}


# ------------------------------------------------------------------------------------------
# case, switch_case


def _branches(t, x):
    return [lambda: x * 2.0, lambda: t.sin(x), lambda: x * x]


def switch_case_each(t):
    x = _c(t, X32[0])
    result = {}
    for index in (0, 1, 2, 7, -1):
        y = t.switch_case(_c(t, index), _branches(t, x))
        (gx,) = t.gradients(t.reduce_sum(y), [x])
        key = f"i{index}".replace("-", "m")
        result[key] = y
        result[key + "_gx"] = gx
    return result


def switch_case_default(t):
    x = _c(t, X32[0])
    result = {}
    for index in (1, 5):
        y = t.switch_case(_c(t, index), {0: lambda: x + 1.0, 1: lambda: x + 2.0},
                          default=lambda: x * 10.0)
        result[f"i{index}"] = y
    return result


def case_first_true(t):
    x = _c(t, X32[1])
    s = t.reduce_sum(x)
    result = {}
    for k, bound in enumerate((-10.0, 0.0, 10.0)):
        y = t.case([(s < bound, lambda: x * 3.0), (s < bound + 5.0, lambda: t.cos(x))],
                   default=lambda: x - 1.0)
        (gx,) = t.gradients(t.reduce_sum(y), [x])
        result[f"b{k}"] = y
        result[f"b{k}_gx"] = gx
    return result


def case_no_default(t):
    x = _c(t, X32[2])
    y = t.case([(t.reduce_sum(x) > 100.0, lambda: x * 3.0),
                (t.reduce_sum(x) > -100.0, lambda: x + 4.0)])
    return {"y": y}


def case_exclusive(t):
    x = _c(t, X32[2])
    y = t.case([(t.reduce_sum(x) > 100.0, lambda: x * 3.0),
                (t.reduce_sum(x) > -100.0, lambda: x + 4.0)], default=lambda: x,
               exclusive=True)
    return {"y": y}


# ------------------------------------------------------------------------------------------
# py_func, numpy_function, py_function


def py_func_values(t):
    x = _c(t, X32)
    a = t.py_func(lambda v: np.sort(v, axis=1)[:, ::-1].copy(), [x], t.float32)
    b, c = t.py_func(lambda v, w: (v.sum(axis=0), np.int64(w.size)), [x, _c(t, [1, 2, 3])],
                     [t.float32, t.int64], stateful=False)
    d = t.numpy_function(lambda v: (v * 2).astype(np.float32), [x], t.float32)
    e = t.py_function(lambda v: v.numpy() + 1.0, [x], t.float32)
    s = t.py_func(lambda v: np.array([w + b"!" for w in v], dtype=object),
                  [_c(t, ["ab", "c"])], t.string)
    return {"a": a, "b": b, "c": c, "d": d, "e": e, "s": s}


# ------------------------------------------------------------------------------------------
# custom_gradient


def custom_gradient_basic(t):
    x = _c(t, X32[0])

    @t.custom_gradient
    def log1pexp(v):
        e = t.exp(v)

        def grad(dy):
            return dy * (1.0 - 1.0 / (1.0 + e))

        return t.log(1.0 + e), grad

    y = log1pexp(x)
    (gx,) = t.gradients(t.reduce_sum(y * y), [x])
    return {"y": y, "gx": gx}


def custom_gradient_two_inputs(t):
    a = _c(t, X32[0])
    b = _c(t, X32[1])

    @t.custom_gradient
    def f(u, v):
        def grad(dy):
            return dy * 2.0, dy * -3.0

        return u * v, grad

    y = f(a, b)
    ga, gb = t.gradients(t.reduce_sum(y), [a, b])
    return {"y": y, "ga": ga, "gb": gb}


def custom_gradient_variables(t):
    x = _c(t, X32[0])
    v = t.Variable(np.float32(1.5), name="cg_v", use_resource=True)

    @t.custom_gradient
    def scaled(u):
        def grad(dy, variables=None):
            return dy * v, [t.reduce_sum(dy * u) * 10.0]

        return u * v, grad

    y = scaled(x)
    gx, gv = t.gradients(t.reduce_sum(y), [x, v])
    return {"y": y, "gx": gx, "gv": gv, "__init__": t.global_variables_initializer()}


VALUE_CASES = {f.__name__: f for f in [
    ta_basics, ta_read, ta_concat_split, ta_unstack_grad, ta_scatter_gather_grad,
    ta_stack_grad_partial, ta_dynamic, ta_unwritten_known_shape, ta_while_rnn,
    map_simple, map_nested, map_signature_dict, scan_default, scan_initializer_reverse,
    scan_nested, foldl_default, foldr_initializer, foldl_nested, foldr_default,
    switch_case_each, switch_case_default, case_first_true, case_no_default, case_exclusive,
    py_func_values, custom_gradient_basic, custom_gradient_two_inputs,
    custom_gradient_variables,
]}


# ------------------------------------------------------------------------------------------
# Run-time errors: (build(t) -> fetch)


def _ta(t, size=3, **kw):
    return t.TensorArray(t.float32, size, **kw)


def _pw(t, value):
    return t.placeholder_with_default(_c(t, value), [None])


def _raiser(kind):
    def f(v):
        raise kind("bad value here")
    return f


ERROR_CASES = {
    "ta_double_write": lambda t: _ta(t).write(2, 1.0).write(2, 2.0).stack(),
    "ta_write_out_of_range": lambda t: _ta(t).write(5, 1.0).flow,
    "ta_write_negative": lambda t: _ta(t).write(-1, 1.0).flow,
    "ta_read_out_of_range": lambda t: _ta(t).write(0, 1.0).read(5),
    "ta_read_unwritten_unknown_shape": lambda t: _ta(t, infer_shape=False).read(1),
    "ta_read_twice": lambda t: (lambda a: t.group(a.read(0), a.read(0)))(_ta(t).write(0, 1.0)),
    "ta_shape_conflict": lambda t: _ta(t).write(0, _pw(t, [1.0, 2.0])).write(
        1, _pw(t, [1.0, 2.0, 3.0])).stack(),
    "ta_stack_empty_unknown_shape": lambda t: _ta(t, 0, infer_shape=False).stack(),
    "ta_stack_unwritten_unknown_shape": lambda t: _ta(t, infer_shape=False).write(
        0, [1.0, 2.0]).stack(),
    "ta_scatter_out_of_range": lambda t: _ta(t, 2).scatter([0, 3], [[1.0], [2.0]]).flow,
    "ta_split_bad_lengths": lambda t: _ta(t, 2).split([1.0, 2.0, 3.0], [1, 1]).flow,
    "ta_split_size": lambda t: _ta(t, 2).split([1.0, 2.0, 3.0], [1, 1, 1]).flow,
    "ta_concat_ragged": lambda t: _ta(t, 2, infer_shape=False).write(0, [[1.0]]).write(
        1, [[1.0, 2.0]]).concat(),
    "ta_write_dtype": lambda t: _ta(t, 2).write(0, t.constant(1)).flow,
    "ta_gather_out_of_range": lambda t: _ta(t, 2).write(0, 1.0).write(1, 2.0).gather([3]),
    "ta_negative_size": lambda t: _ta(t, -1).flow,
    "case_none_true": lambda t: t.case([(_c(t, False), lambda: _c(t, 1.0)),
                                        (_c(t, False), lambda: _c(t, 2.0))]),
    "case_exclusive_two_true": lambda t: t.case(
        [(_c(t, True), lambda: _c(t, 1.0)), (_c(t, True), lambda: _c(t, 2.0))],
        default=lambda: _c(t, 3.0), exclusive=True),
    "py_func_value_error": lambda t: t.py_func(_raiser(ValueError), [_c(t, 1.0)], t.float32),
    "py_func_type_error": lambda t: t.py_func(_raiser(TypeError), [_c(t, 1.0)], t.float32),
    "py_func_stop_iteration": lambda t: t.py_func(_raiser(StopIteration), [_c(t, 1.0)],
                                                  t.float32),
    "py_func_not_implemented": lambda t: t.py_func(_raiser(NotImplementedError),
                                                   [_c(t, 1.0)], t.float32),
    "py_func_memory_error": lambda t: t.py_func(_raiser(MemoryError), [_c(t, 1.0)], t.float32),
    "py_func_key_error": lambda t: t.py_func(_raiser(KeyError), [_c(t, 1.0)], t.float32),
    "py_func_runtime_error": lambda t: t.py_func(_raiser(RuntimeError), [_c(t, 1.0)],
                                                 t.float32),
    "py_func_too_many": lambda t: t.py_func(lambda v: (v, v), [_c(t, 1.0)], t.float32),
    "py_func_too_few": lambda t: t.py_func(lambda v: v, [_c(t, 1.0)], [t.float32, t.float32]),
    "py_func_dtype": lambda t: t.py_func(lambda v: v.astype(np.float64), [_c(t, 1.0)],
                                         t.float32),
    "py_func_dtype_int": lambda t: t.py_func(lambda v: np.int64(3), [_c(t, 1.0)], t.int32),
    "py_func_ragged": lambda t: t.py_func(lambda v: [[1.0, 2.0], [3.0]], [_c(t, 1.0)],
                                          t.float32),
    "py_func_none": lambda t: t.py_func(lambda v: None, [_c(t, 1.0)], t.float32),
    "py_function_value_error": lambda t: t.py_function(_raiser(ValueError), [_c(t, 1.0)],
                                                       t.float32),
}


def error_message(text: str) -> str:
    """The kernel's message without the run-specific names (TensorArray and token numbers)."""
    import re

    text = re.sub(r"TensorArray_\d+", "TensorArray_N", text)
    text = re.sub(r"pyfunc_\d+", "pyfunc_N", text)
    return text


def tensor_names(t):
    """Names of what the functions build (control-flow-v1 structure names, Exit/Merge, are left
    out: tfmini builds the functional While/If, as TF2's control flow v2)."""
    x = t.constant(np.ones((3, 2), np.float32))
    ta = t.TensorArray(t.float32, 3)
    w = ta.write(0, [1.0, 2.0])

    @t.custom_gradient
    def f(a):
        return a * 2.0, lambda dy: dy

    return {
        "handle": ta.handle.name, "flow": ta.flow.name, "write": w.flow.name,
        "read": w.read(0).name, "stack": w.stack().name, "unstack": ta.unstack(x).flow.name,
        "map_fn": t.map_fn(lambda e: e, x).name,
        "scan": t.scan(lambda a, e: a + e, x).name,
        "switch_case": t.switch_case(t.constant(1), [lambda: x, lambda: x * 2.0]).name,
        "py_func": t.py_func(lambda a: a, [x], t.float32).name,
        "py_func_stateless": t.py_func(lambda a: a, [x], t.float32, stateful=False).name,
        "py_function": t.py_function(lambda a: a, [x], t.float32).name,
        "custom_gradient": f(x).name,
    }


def _scalar_map(t):
    return t.map_fn(lambda e: e, t.constant(1.0))


# Build-time errors: (build(t)) raising TensorFlow's ValueError / TypeError.
BUILD_ERROR_CASES = {
    "map_fn_scalar_elems": _scalar_map,
    "switch_case_python_index": lambda t: t.switch_case(1, [lambda: t.constant(1.0)]),
    "switch_case_float_index": lambda t: t.switch_case(t.constant(1.0),
                                                       [lambda: t.constant(1.0)]),
    "switch_case_no_branches": lambda t: t.switch_case(t.constant(1), []),
    "switch_case_bad_keys": lambda t: t.switch_case(
        t.constant(1), {0: lambda: t.constant(1.0), 2: lambda: t.constant(2.0)}),
    "switch_case_not_callable": lambda t: t.switch_case(t.constant(1), [(0, 3)]),
    "case_not_a_list": lambda t: t.case(3),
    "case_not_pairs": lambda t: t.case([(t.constant(True),)]),
    "case_int_pred": lambda t: t.case([(t.constant(1), lambda: t.constant(1.0))]),
    "ta_inconsistent_shapes": lambda t: t.TensorArray(t.float32, 2).write(
        0, [1.0, 2.0]).write(1, [1.0, 2.0, 3.0]),
    "ta_no_size": lambda t: t.TensorArray(t.float32),
}
